/**
 * @module dialects/opencode-todos/execute
 * How a todowrite call is decoded as opencode decodes it, changes the list and answers; the list
 * as the tool renders it.
 */
import type { Item, Status } from '../../core/items.js'
import { isRecord } from '../json.js'
import { rewriteList } from '../list-rewrite.js'
import { refused } from '../outcome.js'
import type { CallOutcome, DialectState, ListCheck } from '../types.js'
import { DEFAULT_PRIORITY, KEYS, KNOWN_STATUSES, type OpencodeTodo } from './schema.js'
import { invalidArguments, schemaError, shown } from './texts.js'

/**
 * Decodes `todowrite`'s arguments as opencode's effect Schema does: the todos with their three
 * keys, or the error text the model reads.
 * @param params - the call's args
 */
export function decodeTodoWrite(
  params: unknown
): { ok: true; todos: OpencodeTodo[] } | { ok: false; message: string } {
  const fail = (issue: string, path: (string | number)[]) => ({
    ok: false as const,
    message: invalidArguments(schemaError(issue, path)),
  })
  if (!isRecord(params)) return fail(`Expected object, got ${shown(params)}`, [])
  if (!Object.hasOwn(params, 'todos')) return fail('Missing key', ['todos'])
  const list = params.todos
  if (!Array.isArray(list)) return fail(`Expected array, got ${shown(list)}`, ['todos'])
  const todos: OpencodeTodo[] = []
  for (let i = 0; i < list.length; i++) {
    const entry: unknown = list[i]
    if (!isRecord(entry)) return fail(`Expected Todo, got ${shown(entry)}`, ['todos', i])
    for (const key of KEYS) {
      if (!Object.hasOwn(entry, key)) return fail('Missing key', ['todos', i, key])
      if (typeof entry[key] !== 'string') {
        return fail(`Expected string, got ${shown(entry[key])}`, ['todos', i, key])
      }
    }
    todos.push({
      content: entry.content as string,
      status: entry.status as string,
      priority: entry.priority as string,
    })
  }
  return { ok: true, todos }
}

/**
 * The tool's output: the todos as JSON, two-space indented.
 * @param todos - the decoded todos
 */
export const todosText = (todos: readonly OpencodeTodo[]) => JSON.stringify(todos, null, 2)

/** A canonical status for opencode's free-text one; unknown words are pending. */
const canonicalStatus = (status: string): Status =>
  KNOWN_STATUSES.includes(status) ? (status as Status) : 'pending'

/**
 * The todo an item stands for: the model's status word while the item is still the pending it
 * was stored as (a person may have moved it on since), its priority, else the canonical ones.
 */
function todoOf(item: Item): OpencodeTodo {
  const status = item.metadata?.status
  const priority = item.metadata?.priority
  return {
    content: item.content,
    status: typeof status === 'string' && item.status === 'pending' ? status : item.status,
    priority: typeof priority === 'string' ? priority : DEFAULT_PRIORITY,
  }
}

/** The metadata that keeps what the canonical item cannot hold. */
function metadataOf(todo: OpencodeTodo): Record<string, unknown> {
  return KNOWN_STATUSES.includes(todo.status)
    ? { priority: todo.priority }
    : { priority: todo.priority, status: todo.status }
}

/**
 * The list after a write of these todos (executed here, or observed): stable ids by content, then
 * position; the four known statuses as they are, any other word pending with the word kept in
 * `metadata.status`; the priority in `metadata.priority`.
 * @param state - the dialect state before the write
 * @param todos - the todos written, in order
 */
export function writeTodos(
  state: DialectState,
  todos: readonly OpencodeTodo[]
): { state: DialectState; dropped: Item[] } {
  const next = rewriteList(
    state,
    todos.map((todo) => ({ content: todo.content, status: canonicalStatus(todo.status) }))
  )
  const items = next.state.items.map((item, i) => ({ ...item, metadata: metadataOf(todos[i]) }))
  return { state: { ...next.state, items }, dropped: next.dropped }
}

/** The dialect's `apply`: one call checked, applied to the list, answered as the native does. */
export function applyTodoWrite(state: DialectState, params: unknown): CallOutcome {
  const decoded = decodeTodoWrite(params)
  if (!decoded.ok) return refused(state, decoded.message)
  const { todos } = decoded
  const next = writeTodos(state, todos)
  return {
    result: { is_error: false, content: todosText(todos), structured: { todos } },
    state: next.state,
    dropped: next.dropped,
  }
}

/**
 * The list as opencode shows it to the model: the JSON of its todos.
 * @param items - the list
 */
export function renderOpencodeTodos(items: readonly Item[]): string {
  return todosText(items.map(todoOf))
}

// opencode takes any strings; a person's list only needs each item to stand for a todo
/** The dialect's `checkList`: an operator's canonical list checked against the native's rules. */
export function checkList(items: readonly Item[]): ListCheck {
  return { ok: true, items: items.map((item) => ({ ...item })) }
}
