/**
 * @module dialects/gemini-todos/execute
 * How a write_todos call is checked as Gemini CLI checks it, changes the list and answers; the
 * list as the tool renders it.
 */
import type { Item } from '../../core/items.js'
import { isRecord } from '../json.js'
import { renderNumbered, rewriteList } from '../list-rewrite.js'
import type { CallOutcome, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'
import { TODO_STATUSES, type GeminiTodo } from './schema.js'

const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v)

/**
 * `SchemaValidator.validate(parametersJsonSchema, params)`: Ajv's first error as
 * `errorsText(…, {dataVar: 'params'})`, keywords in Ajv's order (required, additionalProperties,
 * properties; type before enum).
 */
function schemaError(params: unknown): string | null {
  if (typeof params !== 'object' || params === null) return 'Value of params must be an object'
  if (!isRecord(params)) return 'params must be object'
  if (params.todos === undefined) return "params must have required property 'todos'"
  if (Object.keys(params).some((k) => k !== 'todos'))
    return 'params must NOT have additional properties'
  if (!Array.isArray(params.todos)) return 'params/todos must be array'
  for (let i = 0; i < params.todos.length; i++) {
    const todo: unknown = params.todos[i]
    const at = `params/todos/${i}`
    if (!isRecord(todo)) return `${at} must be object`
    if (todo.description === undefined) return `${at} must have required property 'description'`
    if (todo.status === undefined) return `${at} must have required property 'status'`
    if (Object.keys(todo).some((k) => k !== 'description' && k !== 'status')) {
      return `${at} must NOT have additional properties`
    }
    if (typeOf(todo.description) !== 'string') return `${at}/description must be string`
    if (typeOf(todo.status) !== 'string') return `${at}/status must be string`
    if (!(TODO_STATUSES as readonly unknown[]).includes(todo.status)) {
      return `${at}/status must be equal to one of the allowed values`
    }
  }
  return null
}

/** `WriteTodosTool.validateToolParamValues`, verbatim in behaviour and text. */
function valueError(params: Record<string, unknown>): string | null {
  const todos = params.todos
  if (!Array.isArray(todos)) return '`todos` parameter must be an array'
  for (const todo of todos as unknown[]) {
    if (typeof todo !== 'object' || todo === null) return 'Each todo item must be an object'
    const { description, status } = todo as Record<string, unknown>
    if (typeof description !== 'string' || !description.trim()) {
      return 'Each todo must have a non-empty description string'
    }
    if (!(TODO_STATUSES as readonly unknown[]).includes(status)) {
      return `Each todo must have a valid status (${TODO_STATUSES.join(', ')})`
    }
  }
  const inProgress = (todos as GeminiTodo[]).filter((todo) => todo.status === 'in_progress').length
  if (inProgress > 1) return 'Invalid parameters: Only one task can be "in_progress" at a time.'
  return null
}

/**
 * `validateToolParams`: the schema first, then the value rules. Returns the error text the model
 * reads, or the todos.
 * @param params - the call's args
 */
export function validateWriteTodos(
  params: unknown
): { ok: true; todos: GeminiTodo[] } | { ok: false; message: string } {
  const message = schemaError(params) ?? valueError(params as Record<string, unknown>)
  if (message !== null) return { ok: false, message }
  return { ok: true, todos: (params as { todos: GeminiTodo[] }).todos }
}

function numbered(todos: readonly { description: string; status: string }[]): string {
  return todos.map((todo, index) => `${index + 1}. [${todo.status}] ${todo.description}`).join('\n')
}

/**
 * The list as Gemini CLI writes it into its tool result: `N. [status] description` lines.
 * @param items - the list
 */
export function renderGeminiTodos(items: readonly Item[]): string {
  return renderNumbered(items, 'The todo list is empty.')
}

/** The dialect's `apply`: one call checked, applied to the list, answered as the native does. */
export function applyWriteTodos(state: DialectState, input: unknown): CallOutcome {
  const checked = validateWriteTodos(input)
  if (!checked.ok) {
    return refused(state, checked.message)
  }
  const todos = checked.todos.map((todo) => ({
    description: todo.description,
    status: todo.status,
  }))
  const next = rewriteList(
    state,
    todos.map((todo) => ({ content: todo.description, status: todo.status }))
  )
  const content =
    todos.length > 0
      ? `Successfully updated the todo list. The current list is now:\n${numbered(todos)}`
      : 'Successfully cleared the todo list.'
  return {
    result: { is_error: false, content, structured: { todos } },
    state: next.state,
    dropped: next.dropped,
  }
}

/** The dialect's `checkList`: an operator's canonical list checked against the native's rules. */
export function checkList(items: readonly Item[]): ListCheck {
  const params = {
    todos: items.map((item) => ({ description: item.content, status: item.status })),
  }
  const checked = validateWriteTodos(params)
  if (!checked.ok) return checked
  return { ok: true, items: items.map((item) => ({ ...item })) }
}
