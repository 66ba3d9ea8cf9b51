/**
 * @module dialects/codex-plan/observe
 * OpenAI Codex CLI's plan, observed (Codex 0.171.0; the exec events are typed in
 * `@openai/codex-sdk` 0.163.0 `dist/index.d.ts`): `update_plan` as a command hook sees it (the
 * plan with every status), and the `todo_list` items of `codex exec --json`,
 * which keep only done / not done. A `todo_list` snapshot keeps the status a step already had while
 * it is not done (an `in_progress` seen through a hook stays), so the two feeds agree.
 */
import { parseUpdatePlanArguments } from './execute.js'
import { isRecord } from '../json.js'
import { rewriteList, type NewItem } from '../list-rewrite.js'
import type { DialectState } from '../types.js'
import {
  canonicalStatus,
  notApplied,
  type ObserveOutcome,
  type Observer,
} from '../observe/types.js'
import { entriesWith } from '../observe/whole-list.js'

/** update_plan's `plan`, parsed as Codex parses it; leniently (app-server casing) otherwise. */
function planItems(input: unknown): NewItem[] | undefined {
  const text = typeof input === 'string' ? input : JSON.stringify(input ?? null)
  const parsed = parseUpdatePlanArguments(text)
  if (parsed.ok) {
    return parsed.args.plan.map((step) => ({ content: step.step, status: step.status }))
  }
  let value: unknown = input
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input)
    } catch {
      return undefined
    }
  }
  if (!isRecord(value)) return undefined
  return entriesWith(value.plan, 'step', (step, text) => ({
    content: text,
    status: canonicalStatus(step.status) ?? 'pending',
  }))
}

function observeTodoList(input: unknown, state: DialectState): ObserveOutcome {
  const list = isRecord(input) ? input.items : undefined
  if (!Array.isArray(list)) return notApplied('no items')
  const steps: { text: string; completed: boolean }[] = []
  for (const entry of list as unknown[]) {
    if (!isRecord(entry) || typeof entry.text !== 'string')
      return notApplied('an item without text')
    steps.push({ text: entry.text, completed: entry.completed === true })
  }
  const next = rewriteList(
    state,
    steps.map((step) => ({ content: step.text, status: step.completed ? 'completed' : 'pending' }))
  )
  const before = new Map(state.items.map((item) => [item.id, item.status]))
  const items = next.state.items.map((item, i) => {
    const had = before.get(item.id)
    if (steps[i].completed || had === undefined || had === 'completed') return item
    return { ...item, status: had }
  })
  return { applied: true, state: { ...next.state, items } }
}

/** The `codex-plan` observer. */
export const codexPlanObserver: Observer = {
  dialect: 'codex-plan',
  tools: ['update_plan', 'todo_list'],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    if (call.name === 'todo_list') return observeTodoList(call.input, state)
    if (result.text !== undefined && result.text.startsWith('failed to parse')) {
      return notApplied(result.text)
    }
    const items = planItems(call.input)
    if (!items) return notApplied('no plan in the call')
    return { applied: true, state: rewriteList(state, items).state }
  },
}
