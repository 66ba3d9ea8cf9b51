/**
 * @module dialects/claude-todowrite
 * Claude Code's `TodoWrite` as Claude Code 2.1.332 ships it (`content`, `status`, `activeForm`),
 * byte for byte (`TodoWriteInput` / `TodoWriteOutput` in the `sdk-tools.d.ts` of
 * `@anthropic-ai/claude-code` 2.1.332, a dev dependency): a whole-list replace whose stored list is
 * cleared once every item is completed.
 *
 * - Cleared, as the model sees it: after an all-completed write the next call's `oldTodos` is
 *   `[]` and the reminder shows no list. The session keeps the finished list, so it shows done
 *   with what it finished rather than an empty working session; the next write starts a new plan
 *   in which only an item written again word for word keeps its id.
 *
 * - Description: the tool's long prompt (`texts.ts`), as Claude Code sends it.
 * - Input errors: `formatZodValidationError` of 2.1.332 (every issue listed); `active_form` is
 *   not `activeForm` (the native strips the unknown item key and reports `activeForm` missing);
 *   a list sent as a JSON string is parsed.
 * - Arguments that are no JSON: quoted back escaped (`unparsedInputError`).
 */
import { z } from 'zod'
import { reconcileIds } from '../../core/reconcile-ids.js'
import { droppedItems, makeItem, type Item } from '../../core/items.js'
import {
  duplicateId,
  inputValidationError,
  listIssues,
  parseStringified,
  systemReminder,
  unparsedInputError,
} from '../claude-shared.js'
import { TODO_WRITE_PROMPT, TODO_WRITE_SYSTEM_PROMPT } from './texts.js'
import { isRecord } from '../json.js'
import type { CallOutcome, Dialect, DialectState, ListCheck } from '../types.js'
import { nextIdOf, renderNumbered } from '../list-rewrite.js'
import { refused } from '../outcome.js'

const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const

const TodoItem = z.object({
  content: z.string().min(1, 'Content cannot be empty'),
  status: z.enum(TODO_STATUSES),
  activeForm: z.string().min(1, 'Active form cannot be empty'),
})

type Todo = z.infer<typeof TodoItem>

/** The advertised input schema of `TodoWrite`, as Claude Code declares it. */
export const TodoWriteInput = z.strictObject({
  todos: z.array(TodoItem).describe('The updated todo list'),
})

/** The result text of every successful `TodoWrite` call. */
export const TODO_WRITE_RESULT =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable'

// The current wording: Claude Code 2.1.139 dropped the sentence "Make sure that you NEVER mention
// this reminder to the user" that the v2.1.88 source still had.
const REMINDER =
  "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. Also consider cleaning up the todo list if has become stale and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a gentle reminder - ignore if not applicable.\n"

/** A stored item as Claude Code holds a todo; an operator's item may lack an active form. */
function toTodo(item: Item): Todo {
  return {
    content: item.content,
    status: item.status as Todo['status'],
    activeForm: item.active_form ?? item.content,
  }
}

/** Lenient where the native is: a list sent as a JSON string is parsed. */
function repairInput(input: unknown): unknown {
  if (!isRecord(input) || !('todos' in input)) return input
  return { ...input, todos: parseStringified(input.todos) }
}

/**
 * Whether Claude Code has cleared this list: every item completed, so its own store holds `[]`.
 * @param items - the session's list
 */
export function todoWriteCleared(items: readonly Item[]): boolean {
  return items.length > 0 && items.every((item) => item.status === 'completed')
}

function applyTodoWrite(state: DialectState, input: unknown): CallOutcome {
  const parsed = TodoWriteInput.safeParse(repairInput(input))
  if (!parsed.success) {
    return refused(state, inputValidationError('TodoWrite', parsed.error))
  }
  const { todos } = parsed.data
  const cleared = todoWriteCleared(state.items)
  const { ids, nextId } = reconcileIds(state.items, todos, nextIdOf(state.data), {
    byPosition: !cleared,
  })
  const before = new Map(state.items.map((item) => [item.id, item]))
  // a matched item keeps what TodoWrite cannot express (an operator's notes, owner, …)
  const written = todos.map((todo, i) => ({
    ...(before.get(ids[i]) ?? makeItem({ id: ids[i], content: todo.content, status: todo.status })),
    content: todo.content,
    status: todo.status,
    active_form: todo.activeForm,
  }))
  return {
    result: {
      is_error: false,
      content: TODO_WRITE_RESULT,
      structured: { oldTodos: cleared ? [] : state.items.map(toTodo), newTodos: todos },
    },
    state: { items: written, data: { ...state.data, next_id: nextId } },
    dropped: droppedItems(state.items, written),
  }
}

/**
 * Claude Code's `todo_reminder` attachment: the nag plus the current list, numbered from 1,
 * inside `<system-reminder>`.
 * @param items - the current list
 */
export function todoWriteReminder(items: readonly Item[]): string {
  const list = todoWriteCleared(items) ? '' : renderNumbered(items, '')
  const text =
    list.length > 0
      ? `${REMINDER}\n\nHere are the existing contents of your todo list:\n\n[${list}]`
      : REMINDER
  return systemReminder(text)
}

/**
 * The list in the reminder's numbered form, one `N. [status] content` line per item.
 * @param items - the list
 */
export function renderTodoWrite(items: readonly Item[]): string {
  return renderNumbered(items, 'The todo list is empty.')
}

// an operator may leave the active form out; it then defaults to the content
const OperatorTodo = TodoItem.extend({ activeForm: TodoItem.shape.activeForm.optional() })

function checkList(items: readonly Item[]): ListCheck {
  const todos = items.map((item) => ({
    content: item.content,
    status: item.status,
    activeForm: item.active_form,
  }))
  const parsed = z.array(OperatorTodo).safeParse(todos)
  if (!parsed.success) return { ok: false, message: listIssues('todos', parsed.error) }
  const duplicate = duplicateId(items)
  if (duplicate !== undefined) return { ok: false, message: `Duplicate todo id '${duplicate}'` }
  return {
    ok: true,
    items: items.map((item) => ({ ...item, active_form: item.active_form ?? item.content })),
  }
}

/** The `claude-todowrite` dialect. */
export const claudeTodoWrite: Dialect = {
  name: 'claude-todowrite',
  description:
    "Claude Code's TodoWrite: whole-list todos[{content, status, activeForm}], cleared for the model once all are completed (the session keeps the finished list, done), {oldTodos, newTodos} output; reminder after 10 rounds.",
  tools: [{ name: 'TodoWrite', description: TODO_WRITE_PROMPT, input: TodoWriteInput }],
  systemPrompt: TODO_WRITE_SYSTEM_PROMPT,
  reminder: { afterRounds: 10, repeatEvery: 10 },
  reminderText: todoWriteReminder,
  apply: (state, _toolName, input) => applyTodoWrite(state, input),
  argumentsError: unparsedInputError,
  render: renderTodoWrite,
  checkList,
}
