/**
 * @module core/transitions
 * What a session change means for alerts (docs/alerts.md): comparing a session before and after
 * one write tells which alert-relevant transitions it made. The stores call this inside the
 * write's atomic step and keep what it returns as outbox rows, so an event is stored with the
 * change that caused it. `stale` is a timer, not a write: the stores scan for it.
 */
import { sessionState, stateColumns, type Session } from './session.js'

/** The transitions a write can make (the alert's `session.<kind>`). */
export const TRANSITION_KINDS = ['waiting', 'done', 'ended', 'resumed', 'stale', 'decided'] as const
export type TransitionKind = (typeof TRANSITION_KINDS)[number]

/** One transition of one session, as the outbox keeps it. */
export interface Transition {
  kind: TransitionKind
  /** Epoch ms: the write's `updated_at` (for `stale`: the last change, which the scan found). */
  at: number
  /** `waiting`: when the wait began (`waiting.at`), which a delayed delivery checks again. */
  since?: number
}

/**
 * The alert transitions of one write: a wait began, the list became done, the run ended, a person
 * answered a pending request (`decided`), or a session that waited or was stale shows a change again (a `resumed` candidate: only webhooks
 * that were told of the wait or the stall hear it).
 * @param before - the stored session, or null for a new one
 * @param after - the session the write stores
 * @param staleAfterMs - `STALE_AFTER_SECONDS` in ms: whether `before` was stale at the write
 */
export function alertTransitions(
  before: Session | null,
  after: Session,
  staleAfterMs: number
): Transition[] {
  const at = after.updated_at
  const out: Transition[] = []
  const stateAfter = sessionState(stateColumns(after), at, Number.NEGATIVE_INFINITY)
  const stateBefore = before
    ? sessionState(stateColumns(before), before.updated_at, at - staleAfterMs)
    : null
  const waitingBefore = before?.observed?.waiting ?? null
  const waitingAfter = after.observed?.waiting ?? null
  if (!before?.ended && after.ended) out.push({ kind: 'ended', at })
  if (stateAfter === 'done' && stateBefore !== 'done') out.push({ kind: 'done', at })
  if (!waitingBefore && waitingAfter && !after.ended) {
    out.push({ kind: 'waiting', at, since: waitingAfter.at })
  }
  if (decidedBy(before, after)) out.push({ kind: 'decided', at })
  if ((waitingBefore && !waitingAfter) || (stateBefore === 'stale' && stateAfter !== 'waiting')) {
    out.push({ kind: 'resumed', at })
  }
  return out
}

/** Outcomes a person gives (not the terminal's `answered_elsewhere`, not the clock's `expired`). */
const PERSON_OUTCOMES: ReadonlySet<string> = new Set(['allowed', 'denied', 'answered'])

/** Whether a write recorded a person's answer to a request (`session.decided`). */
function decidedBy(before: Session | null, after: Session): boolean {
  const records = after.observed?.decisions
  if (!records || records === before?.observed?.decisions) return false
  const earlier = new Map(
    (before?.observed?.decisions ?? []).map((record) => [record.request.id, record.answer])
  )
  return records.some(
    (record) =>
      record.answer !== null &&
      PERSON_OUTCOMES.has(record.answer.outcome) &&
      !earlier.get(record.request.id)
  )
}
