/**
 * @module core/decisions
 * A person's answer to an agent that waits for them, given from elsewhere (docs/decisions.md):
 * the pending request a `?decide=1` hook holds open, kept in the session's `waiting.request`, and
 * the records of the last requests with their answers (`observed.decisions`). Pure: the ingest
 * handlers record and settle requests, the decisions service answers them, both inside the
 * store's one atomic `update`, so the first answer wins across a fleet.
 */
import type {
  DecisionAnswer,
  DecisionKind,
  DecisionOption,
  DecisionRecord,
  DecisionRequest,
  Session,
} from './session.js'

/** A request's input is cut to this many bytes of JSON (views, summaries and alerts carry it). */
export const MAX_REQUEST_INPUT_BYTES = 4096
/** Requests a session remembers with their answers. */
export const MAX_DECISION_RECORDS = 8

/** What an agent's hook says of a request before the session numbers it. */
export interface RequestDraft {
  kind: DecisionKind
  tool: string | null
  input: unknown
  questions?: unknown
  options: DecisionOption[]
  match: string
  /** The agent route that holds it open. */
  channel: string
  /** How long the hook is held (ms): the request expires then. */
  holdMs: number
}

/** The options of a permission prompt: allow once, deny. */
export const PERMISSION_OPTIONS: readonly DecisionOption[] = Object.freeze([
  { id: 'allow_once', label: 'Allow once', kind: 'allow_once' },
  { id: 'deny', label: 'Deny', kind: 'deny' },
])

/**
 * The input as a request carries it: the value itself when its JSON fits
 * `MAX_REQUEST_INPUT_BYTES`, else the JSON text cut to that many bytes (a string, so nobody
 * mistakes it for the whole input).
 * @param input - the tool's input
 */
export function cutInput(input: unknown): unknown {
  const json = JSON.stringify(input ?? null)
  if (Buffer.byteLength(json) <= MAX_REQUEST_INPUT_BYTES) return input ?? null
  // cut on a byte boundary; a character split there decodes as U+FFFD, dropped
  const cut = Buffer.from(json)
    .subarray(0, MAX_REQUEST_INPUT_BYTES - 3)
    .toString()
    .replace(/\uFFFD+$/, '')
  return `${cut}…`
}

/**
 * The options of an AskUserQuestion-style question: each label of each question (`q<i>:<j>`),
 * and a deny (dismiss).
 * @param questions - the tool input's `questions`
 */
export function questionOptions(questions: unknown): DecisionOption[] {
  const out: DecisionOption[] = []
  if (Array.isArray(questions)) {
    questions.forEach((question, i) => {
      const options = (question as { options?: unknown })?.options
      if (!Array.isArray(options)) return
      options.forEach((option, j) => {
        const label = (option as { label?: unknown })?.label
        if (typeof label === 'string') out.push({ id: `q${i}:${j}`, label, kind: 'answer' })
      })
    })
  }
  out.push({ id: 'deny', label: 'Dismiss', kind: 'deny' })
  return out
}

/**
 * The pending request of a session: the one its wait shows, not answered, not expired.
 * @param session - the session
 * @param now - epoch ms
 */
export function pendingRequest(session: Session | null, now: number): DecisionRequest | null {
  const request = session?.observed?.waiting?.request
  return request && request.expires_at > now ? request : null
}

/**
 * The record of a request.
 * @param session - the session
 * @param requestId - the request's id
 */
export function recordOf(session: Session | null, requestId: string): DecisionRecord | null {
  return session?.observed?.decisions?.find((r) => r.request.id === requestId) ?? null
}

/**
 * The records with one request added (the oldest beyond `MAX_DECISION_RECORDS` dropped).
 * @param records - the session's records
 * @param request - the new request
 */
export function withRequest(
  records: readonly DecisionRecord[] | undefined,
  request: DecisionRequest
): DecisionRecord[] {
  return [...(records ?? []), { request, answer: null }].slice(-MAX_DECISION_RECORDS)
}

/**
 * The records with a request's answer set; the same array when it had one already (the first
 * answer wins) or is unknown.
 * @param records - the session's records
 * @param requestId - the request
 * @param answer - the answer
 */
export function withAnswer(
  records: readonly DecisionRecord[] | undefined,
  requestId: string,
  answer: DecisionAnswer
): DecisionRecord[] | undefined {
  if (!records?.some((r) => r.request.id === requestId && r.answer === null)) {
    return records as DecisionRecord[] | undefined
  }
  return records.map((r) => (r.request.id === requestId ? { ...r, answer } : r))
}

/**
 * A new request's id: the session's, its match and the time, so one delivery's retry (the same
 * updater run again) names it the same.
 */
export function requestIdOf(parts: { session: string; match: string; at: number; n: number }) {
  let h = 0x811c9dc5
  for (const ch of `${parts.session}\u0000${parts.match}\u0000${parts.at}\u0000${parts.n}`) {
    h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0
  }
  return `dr_${parts.at.toString(36)}${h.toString(36)}`
}

/** The last record with an answer, for the view's `last_decision`. */
export function lastAnswered(session: Session): DecisionRecord | null {
  const records = session.observed?.decisions ?? []
  for (let i = records.length - 1; i >= 0; i--) if (records[i].answer) return records[i]
  return null
}
