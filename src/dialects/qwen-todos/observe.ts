/**
 * @module dialects/qwen-todos/observe
 * Qwen Code's `todo_write`, observed (0.24.4; real hooks and stream in
 * test/fixtures/ingest/qwen-code/real-*). Every write is the whole list, and the ids are the
 * model's. The list is, in this order:
 * - the hook's `tool_response.returnDisplay.todos` (PostToolUse; the todo hooks' `all_todos`),
 *   what the tool stored (with the dependencies it kept);
 * - else the result text: `Todos have been modified successfully. …` holds the list's JSON in its
 *   system-reminder (the stream's tool_result), `Todo list has been cleared.` is `[]`, and
 *   `Todo list is already up to date.` is the call's own list;
 * - a result that says none of these (`Failed to modify todos. …`, an error) changes nothing.
 *
 * Which write is newer. A write's todo hooks change the list before its PostToolUse arrives, and a
 * result that changes nothing leaves no record of its call id, so the PostToolUse (or the
 * stream's result) of a write could come again later and take the list back. So:
 * - hooks carry their `timestamp` (the parser passes it as `structured.timestamp`): a write
 *   older than the last one the hooks showed is not taken;
 * - a stream result carries no time (a stream comes in order): when hooks feed the session too,
 *   a list they showed before and no longer show is an old write, not taken
 *   (`hook_lists`: the last lists the hooks showed, by digest).
 */
import { createHash } from 'node:crypto'
import type { Item } from '../../core/items.js'
import { isRecord } from '../json.js'
import { canonicalStatus, notApplied, type Observer } from '../observe/types.js'
import { qwenItems } from './execute.js'
import type { QwenTodo } from './schema.js'

const MODIFIED = /^Todos have been modified successfully/
const CLEARED = /^Todo list has been cleared/
const UNCHANGED = /^Todo list is already up to date/
/** The list's JSON in the modified text's system-reminder. */
const LISTED = /Here are the latest contents of your todo list:\n\n([\s\S]*)\. Continue on with/

/** A todo list as Qwen wrote it, or undefined when the value is not one. */
function todosOf(value: unknown): QwenTodo[] | undefined {
  if (!Array.isArray(value)) return undefined
  const todos: QwenTodo[] = []
  for (const todo of value as unknown[]) {
    if (!isRecord(todo) || typeof todo.id !== 'string' || typeof todo.content !== 'string') {
      return undefined
    }
    const status = canonicalStatus(todo.status)
    if (status !== 'pending' && status !== 'in_progress' && status !== 'completed') return undefined
    const { blockedBy, ...rest } = todo
    const entry: QwenTodo = { ...rest, id: todo.id, content: todo.content, status }
    if (Array.isArray(blockedBy)) {
      entry.blockedBy = blockedBy.filter((id): id is string => typeof id === 'string')
    }
    todos.push(entry)
  }
  return todos
}

/** The list a modified-result text lists, if its JSON is there. */
function listedIn(text: string): QwenTodo[] | undefined {
  const json = LISTED.exec(text)?.[1]
  if (json === undefined) return undefined
  try {
    return todosOf(JSON.parse(json))
  } catch {
    return undefined
  }
}

/** The list the tool stored, from its result and the call; undefined when it says none. */
function writtenTodos(input: unknown, structured: unknown, text: string | undefined) {
  const response = isRecord(structured) ? structured : undefined
  const display = isRecord(response?.returnDisplay) ? response.returnDisplay : undefined
  const shown = todosOf(display?.todos)
  if (shown) return shown
  const said = typeof response?.llmContent === 'string' ? response.llmContent : text
  const called = isRecord(input) ? todosOf(input.todos) : undefined
  if (said === undefined) return undefined
  if (MODIFIED.test(said)) return listedIn(said) ?? called
  if (CLEARED.test(said)) return []
  if (UNCHANGED.test(said)) return called
  return undefined
}

/** A hook's time as epoch ms, or undefined (stream results carry none: a stream is in order). */
function timeOf(value: unknown): number | undefined {
  const at = typeof value === 'string' ? Date.parse(value) : NaN
  return Number.isNaN(at) ? undefined : at
}

/** Lists the hooks showed that a session remembers. */
const HOOK_LISTS = 16

/** A short digest of a list's ids, contents, statuses and dependencies. */
function listKey(rows: readonly (readonly [string, string, string, readonly string[]])[]): string {
  return createHash('sha256').update(JSON.stringify(rows)).digest('base64url').slice(0, 16)
}

const keyOfTodos = (todos: readonly QwenTodo[]) =>
  listKey(todos.map((todo) => [todo.id, todo.content, todo.status, todo.blockedBy ?? []] as const))

const keyOfItems = (items: readonly Item[]) =>
  listKey(items.map((item) => [item.id, item.content, item.status, item.blocked_by] as const))

/** The `qwen-todos` observer. */
export const qwenTodosObserver: Observer = {
  dialect: 'qwen-todos',
  tools: ['todo_write'],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    const todos = writtenTodos(call.input, result.structured, result.text)
    if (!todos) return notApplied('the result does not say the list was written')
    const at = isRecord(result.structured) ? timeOf(result.structured.timestamp) : undefined
    const shown = timeOf(state.data.written_at)
    const hookLists = Array.isArray(state.data.hook_lists)
      ? (state.data.hook_lists as string[])
      : []
    const key = keyOfTodos(todos)
    if (at !== undefined && shown !== undefined && at < shown) {
      return notApplied('an older write than the list shown')
    }
    if (at === undefined && hookLists.includes(key) && key !== keyOfItems(state.items)) {
      return notApplied('a write the hooks showed before')
    }
    const data: Record<string, unknown> = { ...state.data, todos }
    if (at !== undefined) {
      data.written_at = new Date(at).toISOString()
      data.hook_lists = [...hookLists.filter((known) => known !== key), key].slice(-HOOK_LISTS)
    }
    return { applied: true, state: { items: qwenItems(todos), data } }
  },
}
