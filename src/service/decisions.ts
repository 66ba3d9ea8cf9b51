/**
 * @module service/decisions
 * A person answers an agent that waits for them, from the dashboard, Slack or the API (SPEC
 * "Decisions", docs/decisions.md): who may answer, and the answer itself, decided inside the
 * store's one atomic `update` (compare-and-set), so the first answer wins across a fleet and an
 * answer given at the agent's own terminal (`answered_elsewhere`, set by the agent's next hook in
 * the same way) counts. The held hook that waits for it is `service/decisions-hold`.
 */
import { recordOf, withAnswer } from '../core/decisions.js'
import type {
  DecisionAnswer,
  DecisionOutcome,
  DecisionRecord,
  DecisionRequest,
  Session,
  SessionKey,
} from '../core/session.js'
import type { SessionStore } from '../store/types.js'
import { recordAudit, type AuditDeps } from './audit.js'
import { ServiceError, sessionNotFound } from './errors.js'

/** How the caller was authenticated (the people contract: keys, tokens, sign-in, open access). */
export type CallerVia = 'key' | 'token' | 'oidc' | 'open' | 'slack'

/** Who asks to answer. */
export interface Caller {
  tenant: string
  role: 'admin' | 'agent' | 'viewer'
  /** The caller's verified person (a keys-file user, a token's, a sign-in's); absent: none. */
  user?: string
  via: CallerVia
  /** Whether the request came from a loopback address (open access answers only from there). */
  loopback: boolean
}

/** What answering runs on. */
export interface DecisionDeps {
  store: SessionStore
  now: () => number
  /** `DECISIONS_OPEN`: open access (no keys) may answer, from loopback. */
  open: boolean
  /** Told every answer a person gave (metrics). */
  onDecided?: (record: DecisionRecord, answer: DecisionAnswer) => void
  /** How long an audit entry is kept (`AUDIT_TTL_DAYS` in ms). */
  auditTtlMs?: AuditDeps['auditTtlMs']
  /** Told when an answer's audit entry could not be stored (the answer stands). */
  onAuditError?: AuditDeps['onAuditError']
}

/** An answer as the API takes it. */
export interface DecisionInput {
  request_id: string
  option_id?: string
  decision?: 'allow' | 'deny'
  message?: string
  /** A question's answers (question text → label), or an elicitation's content. */
  answers?: Record<string, unknown>
}

/** The reply to an answer. */
export interface DecisionReply {
  request_id: string
  outcome: DecisionOutcome
  by: string | null
  at: number
}

/**
 * The session's person and whether the service knows them for sure: `origin.user` fixed by a
 * keys-file user, a personal token or a sign-in (`origin.user_verified`; until origins carry it,
 * the keys-file user the ingest recorded in `observed.verified_user`). A header alone is not.
 * @param session - the session
 */
export function sessionPerson(session: Session): { user: string | null; verified: boolean } {
  const user = session.origin?.user ?? null
  const flagged = (session.origin as { user_verified?: unknown } | undefined)?.user_verified
  const verified = user !== null && (flagged === true || session.observed?.verified_user === user)
  return { user, verified }
}

/**
 * Whether a caller may answer a session's requests: the session's own person (verified, and the
 * caller the same verified user) or an `admin`; never a `viewer`, never another person's key or
 * token; open access only with `DECISIONS_OPEN` and from loopback.
 * @param caller - who asks
 * @param session - the session
 * @param open - `DECISIONS_OPEN`
 */
export function mayAnswer(caller: Caller, session: Session, open: boolean): boolean {
  if (caller.tenant !== session.tenant || caller.role === 'viewer') return false
  if (caller.via === 'open') return open && caller.loopback
  if (caller.role === 'admin') return true
  const person = sessionPerson(session)
  return person.verified && caller.user !== undefined && caller.user === person.user
}

/** The answer an input makes of a request, or the reason it makes none. */
function answerOf(
  request: DecisionRequest,
  input: DecisionInput
): Pick<DecisionAnswer, 'outcome' | 'option_id' | 'message' | 'answers'> {
  const option =
    input.option_id === undefined
      ? undefined
      : request.options.find((candidate) => candidate.id === input.option_id)
  if (input.option_id !== undefined && !option) {
    throw new ServiceError('invalid-request', `No option '${input.option_id}' in this request.`, {
      errors: [{ pointer: '/option_id', detail: 'not one of the request’s options' }],
    })
  }
  const message = input.message === undefined ? {} : { message: input.message }
  const kind =
    option?.kind ??
    (input.decision === 'allow' ? 'allow_once' : input.decision === 'deny' ? 'deny' : undefined)
  if (kind === 'deny') return { outcome: 'denied', option_id: option?.id ?? 'deny', ...message }
  if (kind === 'allow_once' || kind === 'allow_always') {
    return { outcome: 'allowed', option_id: option?.id ?? 'allow_once', ...message }
  }
  const answers = input.answers ?? (option ? answersOfOption(request, option.id) : undefined)
  if (!answers) {
    throw new ServiceError('invalid-request', 'Give option_id, decision or answers.', {
      errors: [{ pointer: '', detail: 'option_id, decision or answers is required' }],
    })
  }
  return { outcome: 'answered', ...(option ? { option_id: option.id } : {}), answers, ...message }
}

/** A question option's answer: its question's text → its label (`q<i>:<j>`). */
function answersOfOption(request: DecisionRequest, optionId: string) {
  const [, i] = /^q(\d+):\d+$/.exec(optionId) ?? []
  const option = request.options.find((candidate) => candidate.id === optionId)
  const questions = Array.isArray(request.questions) ? request.questions : []
  const question = (questions[Number(i)] as { question?: unknown } | undefined)?.question
  return option && typeof question === 'string' ? { [question]: option.label } : undefined
}

/**
 * Answers a pending request: the first answer wins (a second is 409, across a fleet), an
 * expired request is 410. The session's wait ends with it (a new version, recorded in its
 * history), the answer is audited, and the held hook hears it through the store.
 * @param deps - store, clock, `DECISIONS_OPEN`, metrics and audit
 * @param request - the session, who asks, the answer, and where it came from
 * @throws ServiceError `session-not-found`, `decision-not-allowed`, `decision-not-found`,
 *   `decision-already-made`, `decision-expired`, `invalid-request`
 */
export async function decide(
  deps: DecisionDeps,
  request: { key: SessionKey; caller: Caller; input: DecisionInput; channel: string }
): Promise<DecisionReply> {
  const { key, caller, input, channel } = request
  const now = deps.now()
  const { record, answer } = await deps.store.update(key, (current) => {
    if (!current) throw sessionNotFound(key.sessionId)
    if (!mayAnswer(caller, current, deps.open)) {
      throw new ServiceError(
        'decision-not-allowed',
        "Only the session's own person or an admin may answer its requests."
      )
    }
    const found = recordOf(current, input.request_id)
    if (!found) {
      throw new ServiceError('decision-not-found', `No request '${input.request_id}'.`)
    }
    if (found.answer?.outcome === 'expired' || (!found.answer && found.request.expires_at <= now)) {
      throw new ServiceError('decision-expired', 'The request expired: the agent asked locally.')
    }
    if (found.answer) {
      throw new ServiceError(
        'decision-already-made',
        found.answer.outcome === 'answered_elsewhere'
          ? 'The request was answered at the agent’s own prompt.'
          : `The request was answered already (${found.answer.outcome}).`
      )
    }
    const made: DecisionAnswer = {
      ...answerOf(found.request, input),
      by: caller.user ?? (caller.via === 'open' ? 'open-access' : `${caller.role}-key`),
      channel,
      at: now,
    }
    const observed = current.observed!
    const waiting = observed.waiting?.request?.id === found.request.id ? null : observed.waiting
    const session: Session = {
      ...current,
      observed: {
        ...observed,
        waiting,
        decisions: withAnswer(observed.decisions, found.request.id, made),
      },
      version: current.version + 1,
      updated_at: now,
    }
    return {
      value: { record: found, answer: made },
      write: { session, source: 'decision' },
    }
  })
  deps.onDecided?.(record, answer)
  await recordAudit(deps, {
    tenant: key.tenant,
    user: answer.by,
    via: caller.via,
    action: 'session.decide',
    target: key.sessionId,
    detail: {
      request_id: record.request.id,
      kind: record.request.kind,
      tool: record.request.tool,
      outcome: answer.outcome,
      channel,
    },
  })
  return { request_id: record.request.id, outcome: answer.outcome, by: answer.by, at: answer.at }
}

/**
 * Ends a request whose hold ran out (`expired`), unless it was answered meanwhile: the answer
 * that won, or the expiry, is returned. Its wait stays (the agent asks at its own prompt now)
 * without the request.
 * @param deps - store and clock
 * @param key - the session
 * @param requestId - the request
 */
export async function expireRequest(
  deps: Pick<DecisionDeps, 'store' | 'now'>,
  key: SessionKey,
  requestId: string
): Promise<DecisionRecord | null> {
  return deps.store.update(key, (current) => {
    const found = recordOf(current, requestId)
    if (!current || !found || found.answer) return { value: found }
    const answer: DecisionAnswer = {
      outcome: 'expired',
      by: null,
      channel: 'service',
      at: deps.now(),
    }
    const observed = current.observed!
    const shown = observed.waiting
    const waiting =
      shown?.request?.id === requestId
        ? { reason: shown.reason, message: shown.message, at: shown.at }
        : shown
    const session: Session = {
      ...current,
      observed: {
        ...observed,
        waiting,
        decisions: withAnswer(observed.decisions, requestId, answer),
      },
      version: current.version + 1,
      updated_at: answer.at,
    }
    return { value: { ...found, answer }, write: { session, source: 'ingest' } }
  })
}
