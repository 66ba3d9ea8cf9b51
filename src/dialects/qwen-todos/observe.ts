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
 */
import { isRecord } from '../json.js'
import { canonicalStatus, notApplied, type Observer } from '../observe/types.js'
import { qwenItems, type QwenTodo } from './index.js'

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

/** The `qwen-todos` observer. */
export const qwenTodosObserver: Observer = {
  dialect: 'qwen-todos',
  tools: ['todo_write'],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    const todos = writtenTodos(call.input, result.structured, result.text)
    if (!todos) return notApplied('the result does not say the list was written')
    return { applied: true, state: { items: qwenItems(todos), data: { ...state.data, todos } } }
  },
}
