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
import { z } from 'zod'
import type { Item } from '../../core/items.js'
import { renderChecklist, rewriteList } from '../list-rewrite.js'
import { fromStr, type Deserializer, type StructSpec } from '../native/serde-json.js'
import type { CallOutcome, Dialect, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'

const STEP_STATUSES = ['pending', 'in_progress', 'completed'] as const

const DESCRIPTION = `Updates the task plan.
Provide an optional explanation and a list of plan items, each with a step and status.
At most one step can be in_progress at a time.
`

/** The advertised input schema of `update_plan`, the native's `update_plan_input_schema()`. */
export const UpdatePlanInput = z.strictObject({
  explanation: z.string().describe('Optional explanation for this plan update.').optional(),
  plan: z
    .array(
      z.strictObject({
        step: z.string().describe('Task step text.'),
        status: z.enum(STEP_STATUSES).describe('Step status.'),
      })
    )
    .describe('The list of steps'),
})

interface PlanItemArg {
  step: string
  status: (typeof STEP_STATUSES)[number]
}

interface UpdatePlanArgs {
  explanation: string | null
  plan: PlanItemArg[]
}

const PLAN_ITEM_ARG: StructSpec = {
  name: 'PlanItemArg',
  fields: [
    { name: 'step', de: (de) => de.string() },
    { name: 'status', de: (de) => de.unitEnum(STEP_STATUSES) },
  ],
}

const UPDATE_PLAN_ARGS: StructSpec = {
  name: 'UpdatePlanArgs',
  fields: [
    { name: 'explanation', de: (de) => de.option((d) => d.string()), default: () => null },
    { name: 'plan', de: (de) => de.seq((d) => d.struct(PLAN_ITEM_ARG)) },
  ],
}

const parseArgs = (de: Deserializer) => de.struct(UPDATE_PLAN_ARGS) as unknown as UpdatePlanArgs

/**
 * `parse_update_plan_arguments`: the arguments text into `UpdatePlanArgs`, or the text the model
 * reads (`failed to parse function arguments: …`).
 * @param text - the function call's arguments, as JSON text
 */
export function parseUpdatePlanArguments(
  text: string
): { ok: true; args: UpdatePlanArgs } | { ok: false; message: string } {
  const parsed = fromStr(text, parseArgs)
  if (parsed.ok) return { ok: true, args: parsed.value }
  return { ok: false, message: `failed to parse function arguments: ${parsed.message}` }
}

/**
 * The plan as Codex's renders would show it, for `GET …/render` and the operator notice.
 * @param items - the list
 */
export function renderCodexPlan(items: readonly Item[]): string {
  return renderChecklist(items, 'No plan.')
}

function applyUpdatePlan(state: DialectState, input: unknown, raw?: string): CallOutcome {
  // parsed input (no text was sent) is read in its compact JSON form
  const parsed = parseUpdatePlanArguments(raw ?? JSON.stringify(input) ?? '')
  if (!parsed.ok) {
    return refused(state, parsed.message)
  }
  const { explanation, plan } = parsed.args
  const next = rewriteList(
    state,
    plan.map((p) => ({ content: p.step, status: p.status }))
  )
  return {
    result: { is_error: false, content: 'Plan updated', structured: { explanation, plan } },
    state: next.state,
    dropped: next.dropped,
  }
}

function checkList(items: readonly Item[]): ListCheck {
  const args = { plan: items.map((item) => ({ step: item.content, status: item.status })) }
  const parsed = parseUpdatePlanArguments(JSON.stringify(args))
  if (!parsed.ok) return parsed
  return { ok: true, items: items.map((item) => ({ ...item })) }
}

/** The `codex-plan` dialect. */
export const codexPlan: Dialect = {
  name: 'codex-plan',
  description:
    "OpenAI Codex CLI's `update_plan` tool (plan [{step, status}], optional explanation; result `Plan updated`; serde_json parse errors).",
  tools: [{ name: 'update_plan', description: DESCRIPTION, input: UpdatePlanInput }],
  reminder: { afterRounds: 3, repeatEvery: 1 },
  reminderText: () => '<reminder>Update your plan with update_plan.</reminder>',
  apply: (state, _toolName, input, ctx) => applyUpdatePlan(state, input, ctx.rawArguments),
  argumentsError: (_toolName, raw) => {
    const parsed = parseUpdatePlanArguments(raw)
    // serde_json accepts no text JSON.parse rejects; the fallback only keeps the type total
    return parsed.ok ? 'failed to parse function arguments: expected value' : parsed.message
  },
  render: renderCodexPlan,
  checkList,
}
