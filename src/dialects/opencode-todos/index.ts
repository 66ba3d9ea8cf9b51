/**
 * @module dialects/opencode-todos
 * opencode's `todowrite` tool as `opencode-ai` 1.18.33 ships it (the `opencode-linux-x64`
 * binary's bundled JS: the tool `todowrite` with description `bt` and parameters `Ms`, the tool
 * wrapper's `ToolInvalidArgumentsError`; source `anomalyco/opencode`
 * `packages/opencode/src/tool/todo.ts`). Kilo CLI 7.7.9 has the same tool, byte for byte.
 *
 * - Input `{todos: [{content, status, priority}]}`, all three required plain strings (the
 *   descriptions name pending/in_progress/completed/cancelled and high/medium/low, nothing
 *   enforces them); a full replace. The four known statuses map to the canonical ones; any other
 *   is stored as pending with the model's word in `metadata.status`; `priority` is kept in
 *   `metadata.priority`. Items have no ids: identity is kept by content, then position.
 * - Checks: effect's Schema decode (effect 4.0.0-beta.87 gives these texts): the first issue, in
 *   key order, as `The todowrite tool was called with invalid arguments: SchemaError(<issue>\n
 *   at <path>).\nPlease rewrite the input so it satisfies the expected schema.` Issues:
 *   `Missing key`, `Expected array|string, got <JSON>`, `Expected Todo, got <JSON>` for an item
 *   that is no object, `Expected object, got <JSON>` for arguments that are no object.
 * - Result: `JSON.stringify(todos, null, 2)` of the decoded todos (keys content, status,
 *   priority in that order; extra keys dropped, as the decode drops them). `structured` is the
 *   tool's metadata, `{todos}`.
 * - Render: the same JSON of the list. Reminder: the service's own (opencode has none; s03's
 *   counter): after 3 rounds without `todowrite`, `<reminder>Update your todo list with
 *   todowrite.</reminder>` every round.
 * - Arguments that are not JSON: opencode's AI SDK hands them to its `invalid` tool, whose
 *   result embeds Bun's `JSON.parse` message; the commonest breaks (cut off, unterminated
 *   string, text after the value, bad escape) get Bun's words, others V8's. opencode answers
 *   them as a normal result; here, as every dialect's unparseable arguments, `is_error`.
 *
 * Checked against the real opencode 1.18.33 binary (`opencode run` against a scripted model):
 * the description and schema it sent, the result text, the schema errors above and the four
 * JSON messages are the same bytes. Not reproduced: opencode truncates tool outputs over its
 * limits (2000 lines or 50 KB) into a file; lists that long are answered whole here.
 */
import { oneToolDialect } from '../one-tool.js'
import { DESCRIPTION, jsonParseMessage } from './texts.js'
import { TodoWriteInput } from './schema.js'
import { applyTodoWrite, checkList, renderOpencodeTodos } from './execute.js'
export { type OpencodeTodo, DEFAULT_PRIORITY, TodoWriteInput } from './schema.js'
export { decodeTodoWrite, todosText, writeTodos, renderOpencodeTodos } from './execute.js'

/** The `opencode-todos` dialect. */
export const opencodeTodos = oneToolDialect({
  name: 'opencode-todos',
  description:
    'opencode / Kilo `todowrite` (todos [{content, status, priority}] as free strings, no ids, result the list as JSON.stringify(todos, null, 2)).',
  tool: { name: 'todowrite', description: DESCRIPTION, input: TodoWriteInput },
  write: applyTodoWrite,
  // the AI SDK's InvalidToolInputError, answered by opencode's `invalid` tool
  argumentsError: (toolName, raw) =>
    `The arguments provided to the tool are invalid: Invalid input for tool ${toolName}: JSON parsing failed: Text: ${raw}.\nError message: ${jsonParseMessage(raw)}`,
  render: renderOpencodeTodos,
  checkList,
})
