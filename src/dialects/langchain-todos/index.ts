/**
 * @module dialects/langchain-todos
 * LangChain's `TodoListMiddleware` / deepagents `write_todos` tool in its Python flavour: the
 * `langchain` package for Python, v1 (`langchain-ai/langchain`:
 * `libs/langchain_v1/langchain/agents/middleware/todo.py`, as of Nov 2026). The JavaScript
 * `langchain` (`todoListMiddleware`) answers with JSON instead of Python's repr: its texts are
 * the `js` flavour (`settings.flavour`, texts in `js.ts`), which shares the
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
import { JS_DESCRIPTION, JS_SYSTEM_PROMPT, WriteTodosJsInput } from './js.js'
import { oneToolDialect, type OneToolSpec } from '../one-tool.js'
import type { Dialect } from '../types.js'
import {
  JS_TEXTS,
  PYTHON_TEXTS,
  renderLangchainTodos,
  writeTodosWith,
  type FlavourTexts,
} from './execute.js'
import { DESCRIPTION, SYSTEM_PROMPT } from './texts.js'
import { WriteTodosInput } from './schema.js'
export { SYSTEM_PROMPT, PARALLEL_CALL_ERROR } from './texts.js'
export { WriteTodosInput } from './schema.js'
export { validateWriteTodos, updatedText, renderLangchainTodos } from './execute.js'

/**
 * A flavour of the dialect: one package's tool, system prompt, texts and rules, with what both
 * share (the service's reminder, the render, langchain-core's unparseable-arguments text).
 * @param texts - the flavour's texts and rules
 * @param spec - the flavour's dialect description, tool, system prompt (and the default's flavours)
 */
function langchainFlavour(
  texts: FlavourTexts,
  spec: Pick<OneToolSpec, 'description' | 'tool' | 'systemPrompt' | 'flavours'>
): Dialect {
  return oneToolDialect({
    ...spec,
    name: 'langchain-todos',
    // langchain-core's default_tool_parser: an invalid call without error detail
    argumentsError: (toolName) =>
      `Error: Failed to parse tool call arguments for '${toolName}'.\nPlease fix your mistakes and try again.`,
    render: renderLangchainTodos,
    write: writeTodosWith(texts),
    checkList: texts.checkList,
  })
}

/** The `js` flavour: the npm package `langchain` 1.5.14's `todoListMiddleware`. */
export const langchainTodosJs = langchainFlavour(JS_TEXTS, {
  description:
    'LangChain TodoListMiddleware / deepagents `write_todos`, JS flavour (todos [{content, status}], result `Updated todo list to [...]` as JSON.stringify, one call per round).',
  tool: { name: 'write_todos', description: JS_DESCRIPTION, input: WriteTodosJsInput },
  systemPrompt: JS_SYSTEM_PROMPT,
})

/** The `langchain-todos` dialect, Python flavour (the default). */
export const langchainTodos = langchainFlavour(PYTHON_TEXTS, {
  description:
    'LangChain TodoListMiddleware / deepagents `write_todos`, Python flavour (todos [{content, status}], result `Updated todo list to [...]` in Python repr, one call per round).',
  tool: { name: 'write_todos', description: DESCRIPTION, input: WriteTodosInput },
  systemPrompt: SYSTEM_PROMPT,
  flavours: { js: langchainTodosJs },
})
