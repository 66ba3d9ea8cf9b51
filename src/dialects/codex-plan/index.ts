/**
 * @module dialects/codex-plan
 * OpenAI Codex CLI's `update_plan` tool as Codex 0.171.0 ships it (`openai/codex`:
 * `codex-rs/protocol/src/plan_tool.rs`, handler `codex-rs/core/src/tools/handlers/plan.rs`): a
 * non-strict Responses function tool (`strict: false`).
 *
 * - Input `{explanation?, plan: [{step, status}]}`, parsed as serde_json parses it into
 *   `UpdatePlanArgs` (`deny_unknown_fields`, status `pending | in_progress | completed`): a bad
 *   call reads `failed to parse function arguments: {serde error}`. serde reads the arguments
 *   text exactly as the model sent it, so error columns count its own whitespace and a repeated
 *   key is `duplicate field`; input that came parsed (Anthropic `input`, Gemini `args`) is read
 *   in its compact JSON form. serde is strict, so a plan sent as a JSON string is refused, as at
 *   home. `explanation: null` is `None`, as serde reads an `Option`.
 * - "At most one step can be in_progress" is only in the description; the native does not check
 *   it, and neither does this dialect.
 * - Result `Plan updated`; `structured` is the `PlanUpdate` event payload clients receive
 *   (`{explanation, plan}`).
 * - Render (Codex shows its plan in the TUI, not to the model): `[x]`/`[>]`/`[ ]` step lines,
 *   a blank line, `(done/total completed)`; `No plan.` when empty.
 * - Reminder: the service's own (Codex has none; s03's counter): after 3 rounds without
 *   `update_plan`, `<reminder>Update your plan with update_plan.</reminder>` every round.
 */
import { oneToolDialect } from '../one-tool.js'
import { DESCRIPTION } from './texts.js'
import { UpdatePlanInput } from './schema.js'
import { applyUpdatePlan, checkList, parseUpdatePlanArguments, renderCodexPlan } from './execute.js'
export { UpdatePlanInput } from './schema.js'
export { parseUpdatePlanArguments, renderCodexPlan } from './execute.js'

/** The `codex-plan` dialect. */
export const codexPlan = oneToolDialect({
  name: 'codex-plan',
  description:
    "OpenAI Codex CLI's `update_plan` tool (plan [{step, status}], optional explanation; result `Plan updated`; serde_json parse errors).",
  tool: { name: 'update_plan', description: DESCRIPTION, input: UpdatePlanInput },
  reminds: 'plan',
  write: applyUpdatePlan,
  argumentsError: (_toolName, raw) => {
    const parsed = parseUpdatePlanArguments(raw)
    // serde_json accepts no text JSON.parse rejects; the fallback only keeps the type total
    return parsed.ok ? 'failed to parse function arguments: expected value' : parsed.message
  },
  render: renderCodexPlan,
  checkList,
})
