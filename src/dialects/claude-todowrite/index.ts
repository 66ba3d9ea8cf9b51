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
import { unparsedInputError } from '../claude-shared.js'
import { TODO_WRITE_PROMPT, TODO_WRITE_SYSTEM_PROMPT } from './texts.js'
import type { Dialect } from '../types.js'
import { TodoWriteInput } from './schema.js'
import { applyTodoWrite, checkList, renderTodoWrite, todoWriteReminder } from './execute.js'
export { TodoWriteInput } from './schema.js'
export { TODO_WRITE_RESULT } from './texts.js'
export { todoWriteCleared, todoWriteReminder, renderTodoWrite } from './execute.js'

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
