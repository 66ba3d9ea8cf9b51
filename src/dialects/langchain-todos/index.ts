/**
 * @module dialects/langchain-todos
 * LangChain's `TodoListMiddleware` / deepagents `write_todos` tool in its Python flavour: the
 * `langchain` package for Python, v1 (`langchain-ai/langchain`:
 * `libs/langchain_v1/langchain/agents/middleware/todo.py`, as of Nov 2026). The JavaScript
 * `langchain` (`todoListMiddleware`) answers with JSON instead of Python's repr: its texts are
 * the `js` flavour (`settings.flavour`, texts in `langchain-todos-js.ts`), which shares the
 * parallel-call error, the render, the reminder and the unparseable-arguments text below.
 *
 * - Input `{todos: [{content, status}]}`, status pending, in_progress or completed; a full
 *   replace; several items may be in_progress (the description allows it).
 * - Result `Updated todo list to {todos}`: Python's `repr` of the validated list of dicts (keys
 *   in the TypedDict's order, extra keys dropped, Python's quoting and escaping).
 * - More than one `write_todos` call in one round: every one of them gets the middleware's
 *   `after_model` error and the list is unchanged.
 * - A call that fails the pydantic args schema gets LangGraph ToolNode's
 *   `TOOL_INVOCATION_ERROR_TEMPLATE` with `loc: msg` lines (pydantic v2 messages) and the call's
 *   kwargs as Python prints them. pydantic's lax mode does not parse strings into lists, so a
 *   list sent as a JSON string is refused, as at home.
 * - Render (LangChain shows no list): `[x]`/`[>]`/`[ ]` lines, a blank line,
 *   `(done/total completed)`; `No todos.` when empty.
 * - Reminder: the service's own (LangChain has none; s03's counter): after 3 rounds without
 *   `write_todos`, `<reminder>Update your todo list with write_todos.</reminder>` every round.
 * - System prompt: `WRITE_TODOS_SYSTEM_PROMPT`, which the middleware appends to the agent's.
 * - Unparseable arguments (both flavours): langchain-core's Python `default_tool_parser` text;
 *   the JS package has none of its own (such a call lands in `invalid_tool_calls`, which its
 *   ToolNode never runs).
 */
import { z } from 'zod'
import type { Item } from '../../core/items.js'
import { isRecord } from '../json.js'
import {
  JS_DESCRIPTION,
  JS_SYSTEM_PROMPT,
  jsListProblems,
  updatedTextJs,
  validateWriteTodosJs,
  WriteTodosJsInput,
} from './js.js'
import { renderChecklist, rewriteList } from '../list-rewrite.js'
import { literalMessage, pyRepr } from '../native/python.js'
import type { CallContext, CallOutcome, Dialect, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'

const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const

type Todo = { content: string; status: (typeof TODO_STATUSES)[number] }

const DESCRIPTION = `Use this tool to create and manage a structured task list for your current work session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.

Only use this tool if you think it will be helpful in staying organized. If the user's request is trivial and takes less than 3 steps, it is better to NOT use this tool and just do the task directly.

## When to Use This Tool
Use this tool in these scenarios:

1. Complex multi-step tasks - When a task requires 3 or more distinct steps or actions
2. Non-trivial and complex tasks - Tasks that require careful planning or multiple operations
3. User explicitly requests todo list - When the user directly asks you to use the todo list
4. User provides multiple tasks - When users provide a list of things to be done (numbered or comma-separated)
5. The plan may need future revisions or updates based on results from the first few steps

## How to Use This Tool
1. When you start working on a task - Mark it as in_progress BEFORE beginning work.
2. After completing a task - Mark it as completed and add any new follow-up tasks discovered during implementation.
3. You can also update future tasks, such as deleting them if they are no longer necessary, or adding new tasks that are necessary. Don't change previously completed tasks.
4. You can make several updates to the todo list at once. For example, when you complete a task, you can mark the next task you need to start as in_progress.

## When NOT to Use This Tool
It is important to skip using this tool when:
1. There is only a single, straightforward task
2. The task is trivial and tracking it provides no benefit
3. The task can be completed in less than 3 trivial steps
4. The task is purely conversational or informational

## Task States and Management

1. **Task States**: Use these states to track progress:
   - pending: Task not yet started
   - in_progress: Currently working on (you can have multiple tasks in_progress at a time if they are not related to each other and can be run in parallel)
   - completed: Task finished successfully

2. **Task Management**:
   - Update task status in real-time as you work
   - Mark tasks complete IMMEDIATELY after finishing (don't batch completions)
   - Complete current tasks before starting new ones
   - Remove tasks that are no longer relevant from the list entirely
   - IMPORTANT: When you write this todo list, you should mark your first task (or tasks) as in_progress immediately!.
   - IMPORTANT: Unless all tasks are completed, you should always have at least one task in_progress to show the user that you are working on something.

3. **Task Completion Requirements**:
   - ONLY mark a task as completed when you have FULLY accomplished it
   - If you encounter errors, blockers, or cannot finish, keep the task as in_progress
   - When blocked, create a new task describing what needs to be resolved
   - Never mark a task as completed if:
     - There are unresolved issues or errors
     - Work is partial or incomplete
     - You encountered blockers that prevent completion
     - You couldn't find necessary resources or dependencies
     - Quality standards haven't been met

4. **Task Breakdown**:
   - Create specific, actionable items
   - Break complex tasks into smaller, manageable steps
   - Use clear, descriptive task names

Being proactive with task management demonstrates attentiveness and ensures you complete all requirements successfully
Remember: If you only need to make a few tool calls to complete a task, and it is clear what you need to do, it is better to just do the task directly and NOT call this tool at all.`

/** `WRITE_TODOS_SYSTEM_PROMPT`, appended to the agent's system prompt on every model call. */
export const SYSTEM_PROMPT = `## \`write_todos\`

You have access to the \`write_todos\` tool to help you manage and plan complex objectives.
Use this tool for complex objectives to ensure that you are tracking each necessary step and giving the user visibility into your progress.
This tool is very helpful for planning complex objectives, and for breaking down these larger complex objectives into smaller steps.

It is critical that you mark todos as completed as soon as you are done with a step. Do not batch up multiple steps before marking them as completed.
For simple objectives that only require a few steps, it is better to just complete the objective directly and NOT use this tool.
Writing todos takes time and tokens, use it when it is helpful for managing complex many-step problems! But not for simple few-step requests.

## Important To-Do List Usage Notes to Remember
- The \`write_todos\` tool should never be called multiple times in parallel.
- Don't be afraid to revise the To-Do list as you go. New information may reveal new tasks that need to be done, or old tasks that are irrelevant.`

/** The `after_model` answer to each of several `write_todos` calls in one model response. */
export const PARALLEL_CALL_ERROR =
  'Error: The `write_todos` tool should never be called multiple times in parallel. Please call it only once per model invocation to update the todo list.'

/** The advertised input schema of `write_todos`, as LangChain derives it from the signature. */
export const WriteTodosInput = z.object({
  todos: z.array(
    z
      .object({ content: z.string(), status: z.enum(TODO_STATUSES) })
      .describe('A single todo item with content and status.')
  ),
})

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

/** One flavour's texts: how a call is validated and what a successful one answers. */
interface FlavourTexts {
  validate: typeof validateWriteTodos
  updated: (todos: readonly Todo[]) => string
}

function applyWriteTodos(
  state: DialectState,
  input: unknown,
  ctx: CallContext,
  texts: FlavourTexts
): CallOutcome {
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

const PYTHON_TEXTS: FlavourTexts = { validate: validateWriteTodos, updated: updatedText }
const JS_TEXTS: FlavourTexts = { validate: validateWriteTodosJs, updated: updatedTextJs }

function checkList(items: readonly Item[]): ListCheck {
  const { errors } = pydanticErrors({
    todos: items.map((item) => ({ content: item.content, status: item.status })),
  })
  if (errors.length > 0) {
    return { ok: false, message: errorLines(errors) }
  }
  return { ok: true, items: items.map((item) => ({ ...item })) }
}

function checkListJs(items: readonly Item[]): ListCheck {
  const problems = jsListProblems(
    items.map((item) => ({ content: item.content, status: item.status }))
  )
  return problems === null
    ? { ok: true, items: items.map((item) => ({ ...item })) }
    : { ok: false, message: problems }
}

/** What both flavours share: the service's reminder, the render, the unparseable-arguments text. */
const SHARED = {
  name: 'langchain-todos',
  reminder: { afterRounds: 3, repeatEvery: 1 },
  reminderText: () => '<reminder>Update your todo list with write_todos.</reminder>',
  // langchain-core's default_tool_parser: an invalid call without error detail
  argumentsError: (toolName: string) =>
    `Error: Failed to parse tool call arguments for '${toolName}'.\nPlease fix your mistakes and try again.`,
  render: renderLangchainTodos,
} satisfies Partial<Dialect>

/** The `js` flavour: the npm package `langchain` 1.5.14's `todoListMiddleware`. */
export const langchainTodosJs: Dialect = {
  ...SHARED,
  description:
    'LangChain TodoListMiddleware / deepagents `write_todos`, JS flavour (todos [{content, status}], result `Updated todo list to [...]` as JSON.stringify, one call per round).',
  tools: [{ name: 'write_todos', description: JS_DESCRIPTION, input: WriteTodosJsInput }],
  systemPrompt: JS_SYSTEM_PROMPT,
  apply: (state, _toolName, input, ctx) => applyWriteTodos(state, input, ctx, JS_TEXTS),
  checkList: checkListJs,
}

/** The `langchain-todos` dialect, Python flavour (the default). */
export const langchainTodos: Dialect = {
  ...SHARED,
  description:
    'LangChain TodoListMiddleware / deepagents `write_todos`, Python flavour (todos [{content, status}], result `Updated todo list to [...]` in Python repr, one call per round).',
  tools: [{ name: 'write_todos', description: DESCRIPTION, input: WriteTodosInput }],
  systemPrompt: SYSTEM_PROMPT,
  flavours: { js: langchainTodosJs },
  apply: (state, _toolName, input, ctx) => applyWriteTodos(state, input, ctx, PYTHON_TEXTS),
  checkList,
}
