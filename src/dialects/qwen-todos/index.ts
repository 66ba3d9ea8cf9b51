/**
 * @module dialects/qwen-todos
 * Qwen Code's `todo_write` tool as `@qwen-code/qwen-code` 0.24.4 ships it (bundle
 * `chunks/todoWrite-QTSCFAI3.js`, source `packages/core/src/tools/todoWrite.ts`; the texts below
 * are copied from that file).
 *
 * - Input `{todos: [{id, content, status, blockedBy?}]}`: a full replace. The ids are the
 *   model's and stay the items' ids; `blockedBy` is the canonical `blocked_by` (and `blocks` its
 *   inverse). Status pending, in_progress or completed; several in_progress pass.
 * - Checks: only the tool's own `validateTodos`, in its order (Qwen overrides
 *   `validateToolParams`, so the advertised JSON Schema is never enforced: extra keys pass and
 *   are kept, as in Qwen's todo file). The error text is the tool result as is (Qwen's OpenAI
 *   converter sends `functionResponse.response.error`). One departure: `blockedBy: null` counts
 *   as absent (strict-mode callers send null for an absent optional field; Qwen refuses it).
 * - An item that omits `blockedBy` while the stored plan has unfinished items keeps its stored
 *   dependencies (those still in the list), unless that makes a cycle.
 * - Results: `Todos have been modified successfully. …` with a system-reminder holding
 *   `JSON.stringify` of the list as written; `Todo list is already up to date. …` when the write
 *   equals the stored list (`isDeepStrictEqual`, so `[]` on an empty list is that too);
 *   `Todo list has been cleared.` for `[]`. `structured` is the native's `returnDisplay` without
 *   its random `planId`.
 * - The stored list as Qwen's file holds it (`data.todos`, the objects as the model sent them) is
 *   used to compare and to keep dependencies while it still matches the items; after a person's
 *   edit the list is rebuilt from the items.
 * - Render: the JSON of the list. Reminder: the service's own (Qwen has no nag; s03's counter):
 *   after 3 rounds without `todo_write`, `<reminder>Update your todo list with
 *   todo_write.</reminder>` every round.
 *
 * Checked against Qwen Code 0.24.4 itself: its TodoWriteTool run on the same call sequences
 * (39 calls, same texts), and `qwen -p` against a scripted OpenAI-compatible model (the tool
 * definition it sent is byte for byte `formatTool(…, 'openai')`; the results are the same).
 *
 * Not reproduced: Qwen's active-todo context (`The current task still has unfinished todo
 * items: …`, re-sent every 3 tool turns of one user prompt), the `⚠ RETRY LOOP DETECTED`
 * suffix after the same error 3 times in a row, TodoCreated/TodoCompleted hooks that block a
 * write, and malformed arguments: Qwen runs them through jsonrepair (a cut-off
 * `{"todos": [` becomes an empty list and clears it) and adds a note that the response was
 * truncated to the errors of that response; here they are refused as Qwen refuses `{}`.
 */
import { isDeepStrictEqual } from 'node:util'
import { z } from 'zod'
import { droppedItems, makeItem, type Item } from '../../core/items.js'
import { isRecord } from '../json.js'
import { refused } from '../outcome.js'
import type { CallOutcome, Dialect, DialectState, ListCheck } from '../types.js'

const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const

/** A todo as Qwen stores it: the model's object, whatever keys it carried. */
export type QwenTodo = Record<string, unknown> & {
  id: string
  content: string
  status: (typeof TODO_STATUSES)[number]
  blockedBy?: string[]
}

const DESCRIPTION = `
Use this tool to create and manage a user-visible task list when explicit progress tracking improves clarity.

## When to Use This Tool
Use this tool for work that is complex, ambiguous, or multi-phase; has multiple independent outcomes or important dependencies; benefits from checkpoints; or when the user explicitly asks for a todo list.

Do not use it for simple or single-step work, purely conversational or informational requests, or tasks that can be answered or completed directly unless the user explicitly requests a todo list.

## Planning with Todos

Keep the list short and outcome-oriented. Use a small number of meaningful, logically ordered, verifiable steps. Do not create a separate todo for every error, file, command, or minor edit.

Use blockedBy only when the work has real dependencies. Reference Todo IDs from the same list and keep independent work unblocked.

Keep at most one task in_progress. When a plan exists, keep its statuses current, mark finished work completed, revise the plan when the scope or approach changes, and remove items that are no longer relevant. Do not mark incomplete or blocked work completed.
`

/**
 * The advertised input schema of `todo_write` as Qwen sends it over its OpenAI-compatible API
 * (captured from Qwen Code 0.24.4): its `parametersJsonSchema` after
 * `relaxSchemaForFunctionCalling`, which drops `$schema`, `uniqueItems` and the items'
 * `additionalProperties: false` (an item has an optional property).
 */
export const TodoWriteInput = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().min(1),
        status: z.enum(TODO_STATUSES),
        id: z.string().max(500),
        blockedBy: z
          .array(z.string().max(500))
          .describe(
            'Todo IDs that must be completed before this item. Active-plan updates preserve omitted dependencies for existing IDs; use [] to remove them.'
          )
          .optional(),
      })
    )
    .describe('The updated todo list'),
})

const CYCLE_ERROR = 'Todo dependencies must not contain a cycle.'

const isBadId = (value: unknown) =>
  !value || typeof value !== 'string' || value.trim() === '' || value.length > 500

/**
 * Qwen's `validateTodos`, verbatim in order and text: the first problem, or null.
 * @param value - the `todos` argument
 */
export function validateQwenTodos(value: unknown): string | null {
  if (!Array.isArray(value)) return 'Parameter "todos" must be an array.'
  for (const todo of value as unknown[]) {
    if (!todo || typeof todo !== 'object') return 'Each todo must be an object.'
    const { id, content, status, blockedBy } = todo as Record<string, unknown>
    if (isBadId(id)) {
      return 'Each todo must have a non-empty "id" string of at most 500 characters.'
    }
    if (!content || typeof content !== 'string' || content.trim() === '') {
      return 'Each todo must have a non-empty "content" string.'
    }
    if (!(TODO_STATUSES as readonly unknown[]).includes(status)) {
      return 'Each todo must have a valid "status" (pending, in_progress, completed).'
    }
    if (blockedBy !== undefined && (!Array.isArray(blockedBy) || blockedBy.some(isBadId))) {
      return 'Each todo "blockedBy" value must be an array of non-empty Todo IDs of at most 500 characters.'
    }
  }
  const todos = value as QwenTodo[]
  const ids = new Set(todos.map((todo) => todo.id))
  if (ids.size !== todos.length) return 'Todo IDs must be unique within the array.'
  for (const todo of todos) {
    const dependencies = todo.blockedBy ?? []
    if (new Set(dependencies).size !== dependencies.length) {
      return `Todo "${todo.id}" must not contain duplicate blockedBy references.`
    }
    if (dependencies.includes(todo.id)) return `Todo "${todo.id}" must not depend on itself.`
    const missing = dependencies.find((dependency) => !ids.has(dependency))
    if (missing) return `Todo "${todo.id}" references unknown dependency "${missing}".`
  }
  return hasCycle(todos) ? CYCLE_ERROR : null
}

function pushTo(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

/** Kahn's algorithm over `blockedBy`, as Qwen runs it: a cycle leaves items unvisited. */
function hasCycle(todos: readonly QwenTodo[]): boolean {
  const remaining = new Map<string, number>()
  const dependents = new Map<string, string[]>()
  for (const todo of todos) {
    remaining.set(todo.id, todo.blockedBy?.length ?? 0)
    for (const dependency of todo.blockedBy ?? []) {
      pushTo(dependents, dependency, todo.id)
    }
  }
  const queue = todos.filter((todo) => remaining.get(todo.id) === 0).map((todo) => todo.id)
  for (let i = 0; i < queue.length; i++) {
    for (const dependent of dependents.get(queue[i]) ?? []) {
      const left = (remaining.get(dependent) ?? 1) - 1
      remaining.set(dependent, left)
      if (left === 0) queue.push(dependent)
    }
  }
  return queue.length !== todos.length
}

/**
 * The error text of a call whose arguments are no object with `todos`: Qwen reads `params.todos`
 * (a TypeError on null).
 */
function argsError(params: unknown): string | null {
  if (params === null || params === undefined) {
    return `Cannot read properties of ${String(params)} (reading 'todos')`
  }
  return validateQwenTodos((params as { todos?: unknown }).todos)
}

/** One item as Qwen's file holds it when nothing better is stored. */
function todoOf(item: Item): QwenTodo {
  const todo: QwenTodo = { id: item.id, content: item.content, status: item.status as 'pending' }
  if (item.blocked_by.length > 0) todo.blockedBy = [...item.blocked_by]
  return todo
}

/** Whether the stored todos still describe the items (no person has edited the list since). */
function matches(todos: readonly QwenTodo[], items: readonly Item[]): boolean {
  return (
    todos.length === items.length &&
    todos.every(
      (todo, i) =>
        todo.id === items[i].id &&
        todo.content === items[i].content &&
        todo.status === items[i].status &&
        isDeepStrictEqual(todo.blockedBy ?? [], items[i].blocked_by)
    )
  )
}

/**
 * The list as Qwen's todo file would hold it: the stored todos while they match the items, else
 * the items rebuilt.
 * @param state - the dialect state
 */
export function storedTodos(state: DialectState): QwenTodo[] {
  const stored = state.data.todos
  if (Array.isArray(stored) && matches(stored as QwenTodo[], state.items)) {
    return stored as QwenTodo[]
  }
  return state.items.map(todoOf)
}

/**
 * Canonical items from Qwen todos: the model's ids, `blocks` the inverse of `blockedBy`.
 * @param todos - a list as Qwen's tool stores it (its observer reads it from the agent's events)
 */
export function qwenItems(todos: readonly QwenTodo[]): Item[] {
  const blocks = new Map<string, string[]>()
  for (const todo of todos) {
    for (const dependency of todo.blockedBy ?? []) {
      pushTo(blocks, dependency, todo.id)
    }
  }
  return todos.map((todo) =>
    makeItem({
      id: todo.id,
      content: todo.content,
      status: todo.status,
      blocked_by: [...(todo.blockedBy ?? [])],
      blocks: blocks.get(todo.id) ?? [],
    })
  )
}

/** Qwen's execute step: omitted dependencies of an active plan are kept, if that makes no cycle. */
function withKeptDependencies(old: readonly QwenTodo[], todos: QwenTodo[]): QwenTodo[] {
  const hasActivePlan = old.some((todo) => todo.status !== 'completed')
  const oldById = new Map(old.map((todo) => [todo.id, todo]))
  const incoming = new Set(todos.map((todo) => todo.id))
  let kept = false
  const candidate = todos.map((todo) => {
    const blockedBy =
      todo.blockedBy ??
      (hasActivePlan
        ? oldById.get(todo.id)?.blockedBy?.filter((dependency) => incoming.has(dependency))
        : undefined)
    if (blockedBy === undefined) return todo
    if (todo.blockedBy === undefined) kept = true
    return { ...todo, blockedBy }
  })
  if (kept && validateQwenTodos(candidate) === CYCLE_ERROR) return todos
  return candidate
}

/** Qwen's `detectTodoChanges`: new ids, and items that became completed. */
function changesOf(old: readonly QwenTodo[], todos: readonly QwenTodo[]) {
  const oldById = new Map(old.map((todo) => [todo.id, todo]))
  const created: QwenTodo[] = []
  const completed: QwenTodo[] = []
  for (const todo of todos) {
    const before = oldById.get(todo.id)
    if (!before) created.push(todo)
    else if (before.status !== 'completed' && todo.status === 'completed') completed.push(todo)
  }
  return { created, completed }
}

/**
 * The tool result of a write that changed the list.
 * @param todos - the list as written
 */
export function modifiedText(todos: readonly QwenTodo[]): string {
  if (todos.length === 0) {
    return `Todo list has been cleared.

<system-reminder>
Your todo list is now empty. DO NOT mention this explicitly to the user. You have no pending tasks in your todo list.
</system-reminder>`
  }
  return `Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable

<system-reminder>
Your todo list has changed. DO NOT mention this explicitly to the user. Here are the latest contents of your todo list:

${JSON.stringify(todos)}. Continue on with the tasks at hand if applicable.
</system-reminder>`
}

/** The tool result of a write equal to the stored list. */
export const UNCHANGED_TEXT = `Todo list is already up to date. No changes were needed.

<system-reminder>
Your todo list was not modified because it is already current. Continue with your existing tasks.
</system-reminder>`

/** The text of a failure inside `execute` (after the arguments passed). */
const failedText = (
  message: string
) => `Failed to modify todos. An error occurred during the operation.

<system-reminder>
Todo list modification failed with error: ${message}. You may need to retry or handle this error appropriately.
</system-reminder>`

/**
 * The arguments with a `blockedBy: null` left out: strict-mode callers send null for an absent
 * optional field (Qwen itself would refuse the null).
 */
function withoutNullDependencies(params: unknown): unknown {
  if (!isRecord(params) || !Array.isArray(params.todos)) return params
  const todos = (params.todos as unknown[]).map((todo) => {
    if (!isRecord(todo) || todo.blockedBy !== null) return todo
    const { blockedBy: _absent, ...rest } = todo
    return rest
  })
  return { ...params, todos }
}

function applyTodoWrite(state: DialectState, input: unknown): CallOutcome {
  const params = withoutNullDependencies(input)
  const invalid = argsError(params)
  if (invalid !== null) return refused(state, invalid)
  const todos = (params as { todos: QwenTodo[] }).todos
  const old = storedTodos(state)
  const finalTodos = withKeptDependencies(old, todos)
  const failed = validateQwenTodos(finalTodos)
  // Qwen's execute catches this and answers it as a result, not as an error
  if (failed !== null) {
    return {
      result: { is_error: false, content: failedText(failed), structured: null },
      state,
      dropped: [],
    }
  }
  if (isDeepStrictEqual(old, finalTodos)) {
    const structured = {
      type: 'todo_list',
      todos: finalTodos,
      changes: { created: [], completed: [] },
      unchanged: true,
    }
    return { result: { is_error: false, content: UNCHANGED_TEXT, structured }, state, dropped: [] }
  }
  const items = qwenItems(finalTodos)
  const structured = { type: 'todo_list', todos: finalTodos, changes: changesOf(old, finalTodos) }
  return {
    result: { is_error: false, content: modifiedText(finalTodos), structured },
    state: { items, data: { ...state.data, todos: finalTodos } },
    dropped: droppedItems(state.items, items),
  }
}

/**
 * The list as the model last read it in a result: the JSON of the todos.
 * @param items - the list
 */
export function renderQwenTodos(items: readonly Item[]): string {
  return JSON.stringify(items.map(todoOf))
}

function checkList(items: readonly Item[]): ListCheck {
  const todos = items.map(todoOf)
  const message = validateQwenTodos(todos)
  if (message !== null) return { ok: false, message }
  return { ok: true, items: qwenItems(todos).map((item, i) => ({ ...items[i], ...item })) }
}

/** The `qwen-todos` dialect. */
export const qwenTodos: Dialect = {
  name: 'qwen-todos',
  description:
    "Qwen Code's `todo_write` (todos [{id, content, status, blockedBy?}] with the model's ids, several in_progress, result with the list's JSON in a system-reminder).",
  tools: [{ name: 'todo_write', description: DESCRIPTION, input: TodoWriteInput }],
  reminder: { afterRounds: 3, repeatEvery: 1 },
  reminderText: () => '<reminder>Update your todo list with todo_write.</reminder>',
  apply: (state, _toolName, input) => applyTodoWrite(state, input),
  // Qwen parses malformed arguments to `{}` (after jsonrepair), so `todos` is missing
  argumentsError: () => 'Parameter "todos" must be an array.',
  render: renderQwenTodos,
  checkList,
}
