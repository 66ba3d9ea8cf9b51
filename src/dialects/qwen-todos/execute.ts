/**
 * @module dialects/qwen-todos/execute
 * How a todo_write call is checked as Qwen Code checks it, changes the list and answers; the list
 * as the tool renders it.
 */
import { isDeepStrictEqual } from 'node:util'
import { droppedItems, makeItem, type Item } from '../../core/items.js'
import { isRecord } from '../json.js'
import { refused } from '../outcome.js'
import type { CallOutcome, DialectState, ListCheck } from '../types.js'
import { TODO_STATUSES, type QwenTodo } from './schema.js'
import { CYCLE_ERROR, UNCHANGED_TEXT, failedText, modifiedText } from './texts.js'

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

/** The dialect's `apply`: one call checked, applied to the list, answered as the native does. */
export function applyTodoWrite(state: DialectState, input: unknown): CallOutcome {
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

/** The dialect's `checkList`: an operator's canonical list checked against the native's rules. */
export function checkList(items: readonly Item[]): ListCheck {
  const todos = items.map(todoOf)
  const message = validateQwenTodos(todos)
  if (message !== null) return { ok: false, message }
  return { ok: true, items: qwenItems(todos).map((item, i) => ({ ...items[i], ...item })) }
}
