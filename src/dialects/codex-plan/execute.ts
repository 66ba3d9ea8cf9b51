/**
 * @module dialects/codex-plan/execute
 * How an update_plan call is parsed as Codex parses it, changes the list and answers; the list as
 * the plan renders it.
 */
import type { Item } from '../../core/items.js'
import { renderChecklist, rewriteList } from '../list-rewrite.js'
import { fromStr, type Deserializer } from '../native/serde-json.js'
import type { CallContext, CallOutcome, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'
import { UPDATE_PLAN_ARGS, type UpdatePlanArgs } from './schema.js'

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

/** The dialect's `apply`: one call checked, applied to the list, answered as the native does. */
export function applyUpdatePlan(
  state: DialectState,
  input: unknown,
  ctx?: CallContext
): CallOutcome {
  // parsed input (no text was sent) is read in its compact JSON form
  const parsed = parseUpdatePlanArguments(ctx?.rawArguments ?? JSON.stringify(input) ?? '')
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

/** The dialect's `checkList`: an operator's canonical list checked against the native's rules. */
export function checkList(items: readonly Item[]): ListCheck {
  const args = { plan: items.map((item) => ({ step: item.content, status: item.status })) }
  const parsed = parseUpdatePlanArguments(JSON.stringify(args))
  if (!parsed.ok) return parsed
  return { ok: true, items: items.map((item) => ({ ...item })) }
}
