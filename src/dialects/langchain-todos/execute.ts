/**
 * @module dialects/langchain-todos/execute
 * How a write_todos call is validated (pydantic's way in the Python flavour, the js flavour's in
 * js.ts), changes the list and answers; the list as a checklist.
 */
import type { Item } from '../../core/items.js'
import { isRecord } from '../json.js'
import { jsListProblems, updatedTextJs, validateWriteTodosJs } from './js.js'
import { renderChecklist, rewriteList } from '../list-rewrite.js'
import { literalMessage, pyRepr } from '../native/python.js'
import type { CallContext, CallOutcome, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'
import { TODO_STATUSES, type Todo } from './schema.js'
import { PARALLEL_CALL_ERROR } from './texts.js'

type LineError = { loc: (string | number)[]; msg: string }

/** pydantic v2 validation of `write_todos(todos: list[Todo])`, errors in pydantic's order. */
function pydanticErrors(args: Record<string, unknown>): { errors: LineError[]; todos: Todo[] } {
  const errors: LineError[] = []
  const todos: Todo[] = []
  if (!Object.hasOwn(args, 'todos'))
    return { errors: [{ loc: ['todos'], msg: 'Field required' }], todos }
  const list = args.todos
  if (!Array.isArray(list)) {
    return { errors: [{ loc: ['todos'], msg: 'Input should be a valid list' }], todos }
  }
  list.forEach((entry: unknown, i) => {
    if (!isRecord(entry)) {
      errors.push({ loc: ['todos', i], msg: 'Input should be a valid dictionary' })
      return
    }
    if (!Object.hasOwn(entry, 'content'))
      errors.push({ loc: ['todos', i, 'content'], msg: 'Field required' })
    else if (typeof entry.content !== 'string') {
      errors.push({ loc: ['todos', i, 'content'], msg: 'Input should be a valid string' })
    }
    if (!Object.hasOwn(entry, 'status'))
      errors.push({ loc: ['todos', i, 'status'], msg: 'Field required' })
    else if (!(TODO_STATUSES as readonly unknown[]).includes(entry.status)) {
      errors.push({ loc: ['todos', i, 'status'], msg: literalMessage(TODO_STATUSES) })
    }
    todos.push({ content: entry.content as string, status: entry.status as Todo['status'] })
  })
  return { errors, todos }
}

/** pydantic's errors as `loc: msg` lines. */
const errorLines = (errors: readonly { loc: readonly (string | number)[]; msg: string }[]) =>
  errors.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('\n')

/**
 * Validates a `write_todos` call as ToolNode would: the validated todos, or the error text the
 * model reads.
 * @param args - the call's args
 */
export function validateWriteTodos(
  args: unknown
): { ok: true; todos: Todo[] } | { ok: false; message: string } {
  const kwargs = isRecord(args) ? args : {}
  const { errors, todos } = pydanticErrors(kwargs)
  if (errors.length === 0) return { ok: true, todos }
  const detail = errorLines(errors)
  return {
    ok: false,
    message: `Error invoking tool 'write_todos' with kwargs ${pyRepr(kwargs)} with error:\n ${detail}\n Please fix the error and try again.`,
  }
}

/**
 * The tool result of a successful call: `Updated todo list to [{'content': …, 'status': …}]`.
 * @param todos - the validated todos
 */
export function updatedText(todos: readonly Todo[]): string {
  return `Updated todo list to ${pyRepr(todos.map((t) => ({ content: t.content, status: t.status })))}`
}

/**
 * The checklist rendering of a LangChain todo list (the native shows none).
 * @param items - the list
 */
export function renderLangchainTodos(items: readonly Item[]): string {
  return renderChecklist(items, 'No todos.')
}

/**
 * One flavour's texts and rules: how a call is validated, what a successful one answers, how an
 * operator's list is checked.
 */
export interface FlavourTexts {
  validate: typeof validateWriteTodos
  updated: (todos: readonly Todo[]) => string
  checkList: (items: readonly Item[]) => ListCheck
}

/**
 * The dialect's `apply` in one flavour (without the tool name, as `oneToolDialect` takes it): one
 * call checked, applied to the list, answered as the native does.
 * @param texts - the flavour whose texts and rules answer the call
 */
export function writeTodosWith(texts: FlavourTexts) {
  return (state: DialectState, input: unknown, ctx: CallContext): CallOutcome => {
    if (ctx.callsInRound > 1) {
      return refused(state, PARALLEL_CALL_ERROR)
    }
    const checked = texts.validate(input)
    if (!checked.ok) {
      return refused(state, checked.message)
    }
    const todos = checked.todos.map((t) => ({ content: t.content, status: t.status }))
    const next = rewriteList(
      state,
      todos.map((t) => ({ content: t.content, status: t.status }))
    )
    return {
      result: { is_error: false, content: texts.updated(todos), structured: { todos } },
      state: next.state,
      dropped: next.dropped,
    }
  }
}

export const PYTHON_TEXTS: FlavourTexts = {
  validate: validateWriteTodos,
  updated: updatedText,
  checkList,
}
export const JS_TEXTS: FlavourTexts = {
  validate: validateWriteTodosJs,
  updated: updatedTextJs,
  checkList: checkListJs,
}

/** The dialect's `checkList`: an operator's canonical list checked against the native's rules. */
export function checkList(items: readonly Item[]): ListCheck {
  const { errors } = pydanticErrors({
    todos: items.map((item) => ({ content: item.content, status: item.status })),
  })
  if (errors.length > 0) {
    return { ok: false, message: errorLines(errors) }
  }
  return { ok: true, items: items.map((item) => ({ ...item })) }
}

/** `checkList` of the js flavour: the list checked as the JS package's zod schema checks it. */
export function checkListJs(items: readonly Item[]): ListCheck {
  const problems = jsListProblems(
    items.map((item) => ({ content: item.content, status: item.status }))
  )
  return problems === null
    ? { ok: true, items: items.map((item) => ({ ...item })) }
    : { ok: false, message: problems }
}
