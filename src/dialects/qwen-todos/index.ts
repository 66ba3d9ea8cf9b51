/**
 * @module dialects/qwen-todos
 * Qwen Code's `todo_write` tool as `@qwen-code/qwen-code` 0.24.4 ships it (bundle
 * `chunks/todoWrite-QTSCFAI3.js`, source `packages/core/src/tools/todoWrite.ts`; the texts below
 * are copied from that file).
 *
 * - Input `{todos: [{id, content, status, blockedBy?}]}`: a full replace. The ids are the
 *   model's and stay the items' ids; `blockedBy` is the canonical `blocked_by` (and `blocks` its
 *   inverse). Status pending, in_progress or completed; several in_progress pass.
 * - Checks: only the tool's own `validateTodos`, in its order (Qwen overrides
 *   `validateToolParams`, so the advertised JSON Schema is never enforced: extra keys pass and
 *   are kept, as in Qwen's todo file). The error text is the tool result as is (Qwen's OpenAI
 *   converter sends `functionResponse.response.error`). One departure: `blockedBy: null` counts
 *   as absent (strict-mode callers send null for an absent optional field; Qwen refuses it).
 * - An item that omits `blockedBy` while the stored plan has unfinished items keeps its stored
 *   dependencies (those still in the list), unless that makes a cycle.
 * - Results: `Todos have been modified successfully. …` with a system-reminder holding
 *   `JSON.stringify` of the list as written; `Todo list is already up to date. …` when the write
 *   equals the stored list (`isDeepStrictEqual`, so `[]` on an empty list is that too);
 *   `Todo list has been cleared.` for `[]`. `structured` is the native's `returnDisplay` without
 *   its random `planId`.
 * - The stored list as Qwen's file holds it (`data.todos`, the objects as the model sent them) is
 *   used to compare and to keep dependencies while it still matches the items; after a person's
 *   edit the list is rebuilt from the items.
 * - Render: the JSON of the list. Reminder: the service's own (Qwen has no nag; s03's counter):
 *   after 3 rounds without `todo_write`, `<reminder>Update your todo list with
 *   todo_write.</reminder>` every round.
 *
 * Checked against Qwen Code 0.24.4 itself: its TodoWriteTool run on the same call sequences
 * (39 calls, same texts), and `qwen -p` against a scripted OpenAI-compatible model (the tool
 * definition it sent is byte for byte `formatTool(…, 'openai')`; the results are the same).
 *
 * Not reproduced: Qwen's active-todo context (`The current task still has unfinished todo
 * items: …`, re-sent every 3 tool turns of one user prompt), the `⚠ RETRY LOOP DETECTED`
 * suffix after the same error 3 times in a row, TodoCreated/TodoCompleted hooks that block a
 * write, and malformed arguments: Qwen runs them through jsonrepair (a cut-off
 * `{"todos": [` becomes an empty list and clears it) and adds a note that the response was
 * truncated to the errors of that response; here they are refused as Qwen refuses `{}`.
 */
import { oneToolDialect } from '../one-tool.js'
import { DESCRIPTION } from './texts.js'
import { TodoWriteInput } from './schema.js'
import { applyTodoWrite, checkList, renderQwenTodos } from './execute.js'
export { type QwenTodo, TodoWriteInput } from './schema.js'
export { validateQwenTodos, storedTodos, qwenItems, renderQwenTodos } from './execute.js'
export { modifiedText, UNCHANGED_TEXT } from './texts.js'

/** The `qwen-todos` dialect. */
export const qwenTodos = oneToolDialect({
  name: 'qwen-todos',
  description:
    "Qwen Code's `todo_write` (todos [{id, content, status, blockedBy?}] with the model's ids, several in_progress, result with the list's JSON in a system-reminder).",
  tool: { name: 'todo_write', description: DESCRIPTION, input: TodoWriteInput },
  write: applyTodoWrite,
  // Qwen parses malformed arguments to `{}` (after jsonrepair), so `todos` is missing
  argumentsError: () => 'Parameter "todos" must be an array.',
  render: renderQwenTodos,
  checkList,
})
