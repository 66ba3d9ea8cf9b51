/**
 * @module dialects/gemini-todos
 * Google Gemini CLI's `write_todos` tool as `@google/gemini-cli-core` 0.61.0 ships it
 * (`google-gemini/gemini-cli`: `packages/core/src/tools/write-todos.ts`, declaration in
 * `packages/core/src/tools/definitions/model-family-sets/gemini-3.ts`). Served in the
 * gemini format as `parametersJsonSchema`, as gemini-cli declares it.
 *
 * - Input `{todos: [{description, status}]}`, status one of pending, in_progress, completed,
 *   cancelled, blocked; a full replace.
 * - Checks in the native's order: first its JSON Schema through Ajv (`SchemaValidator`, first
 *   error, `params/…` paths, e.g. `params/todos/0/status must be equal to one of the allowed
 *   values`), then `validateToolParamValues` (non-empty description, one in_progress). Gemini
 *   hands args as an object, so there is no string-to-list leniency.
 * - Result: `Successfully updated the todo list. The current list is now:` and numbered
 *   `N. [status] description` lines; `Successfully cleared the todo list.` when empty.
 *   `structured` is the native's `returnDisplay` (`{todos}`).
 * - Render: the numbered lines; `The todo list is empty.` when empty.
 * - Reminder: the service's own (Gemini has none; s03's counter): after 3 rounds without
 *   `write_todos`, `<reminder>Update your todo list with write_todos.</reminder>` every round.
 */
import { oneToolDialect } from '../one-tool.js'
import { DESCRIPTION } from './texts.js'
import { WriteTodosInput } from './schema.js'
import { applyWriteTodos, checkList, renderGeminiTodos } from './execute.js'
export { WriteTodosInput } from './schema.js'
export { validateWriteTodos, renderGeminiTodos } from './execute.js'

/** The `gemini-todos` dialect. */
export const geminiTodos = oneToolDialect({
  name: 'gemini-todos',
  description:
    "Google Gemini CLI's `write_todos` tool (todos [{description, status}] with cancelled and blocked, one in_progress, numbered result list).",
  tool: { name: 'write_todos', description: DESCRIPTION, input: WriteTodosInput },
  write: applyWriteTodos,
  // Gemini's API hands args as an object; a text that is no object fails the same first check
  argumentsError: () => 'Value of params must be an object',
  render: renderGeminiTodos,
  checkList,
})
