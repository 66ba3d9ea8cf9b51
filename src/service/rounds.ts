/**
 * @module service/rounds
 * Running a round: the agent loop's one call per model turn, shared by the rounds route and MCP.
 */
import { createHash } from 'node:crypto'
import { fillOrigin, type OriginUpdate } from '../core/origin.js'
import { computeProgress } from '../core/progress.js'
import type { Session, SessionKey } from '../core/session.js'
import { applyRound, type RoundOutcome, type RoundRequest } from '../dialects/round.js'
import type { IdempotentReply, Updater } from '../store/types.js'
import type { ServiceDeps } from './deps.js'
import { ServiceError } from './errors.js'

/**
 * How long a claim on an Idempotency-Key holds while its request runs: should the process die
 * mid-request, a retry may run again after this, instead of getting 409 for a day.
 */
const IN_FLIGHT_TTL_MS = 30_000

/**
 * `store.update` under the tenant's session cap (`MAX_SESSIONS_PER_TENANT`): the store counts
 * and creates in one atomic step, so concurrent creations at the limit cannot both pass.
 * @param deps - store and limits
 * @param key - the session to update
 * @param fn - the updater
 * @param idempotency - a claimed Idempotency-Key whose reply is stored with the change
 * @throws QuotaExceededError (`session-quota-exceeded`) when a creation is over the cap
 */
export function updateWithinQuota<T>(
  deps: Pick<ServiceDeps, 'store' | 'limits'>,
  key: SessionKey,
  fn: Updater<T>,
  idempotency?: IdempotentReply<T>
): Promise<T> {
  const cap = deps.limits.maxSessionsPerTenant
  return deps.store.update(key, fn, { maxSessionsPerTenant: cap || undefined, idempotency })
}

/** What a round runs with besides its request. */
export interface RoundOptions {
  /**
   * Runs on the current state before the round, inside the update; throw to refuse (MCP: the
   * called tool must be one of the session's dialect).
   */
  check?: (current: Session | null) => void
  /** A claimed Idempotency-Key whose reply is stored with the round. */
  idempotency?: IdempotentReply<RoundOutcome>
  /** What the request says of the session's origin and labels (filled once). */
  who?: OriginUpdate
}

/**
 * Applies a round to the stored session atomically and counts it.
 * @param deps - store, clock, limits, the round hook
 * @param key - tenant and session
 * @param request - the round
 * @param options - a check of the current state, a claimed Idempotency-Key, the origin
 * @throws ServiceError `agent-owns-list` for an observed session
 */
export async function runRound(
  deps: ServiceDeps,
  key: SessionKey,
  request: RoundRequest,
  options: RoundOptions = {}
): Promise<RoundOutcome> {
  const { check, idempotency, who } = options
  const limits = deps.limits
  const now = deps.now()
  const outcome = await updateWithinQuota(
    deps,
    key,
    (current, { versionFloor }) => {
      if (current?.observed) {
        // the agent runs its own todo tools: executing a call here would fork its list
        throw new ServiceError(
          'agent-owns-list',
          `Session '${key.sessionId}' is observed from ${current.observed.source}: the agent runs its own todo tools, so rounds are not executed here.`
        )
      }
      check?.(current)
      const applied = applyRound(current, key, request, now, limits, versionFloor)
      const result = { ...applied, session: fillOrigin(applied.session, who) }
      return { value: result, write: { session: result.session, source: 'round' } }
    },
    idempotency
  )
  deps.onRound?.(outcome)
  return outcome
}

/** A round's reply as the caller serialises it, and whether it was replayed. */
export interface RoundReplyText<Text extends string> {
  /** The reply's text: `render(outcome)`, or the one stored for the Idempotency-Key. */
  text: Text
  /** True when an earlier request with the same Idempotency-Key answered it. */
  replayed: boolean
}

const fingerprint = (body: unknown) =>
  createHash('sha256').update(JSON.stringify(body)).digest('hex')

/**
 * A reported round, under the tool-call cap and an optional Idempotency-Key: a retry with the
 * same key and body gets the stored reply and changes nothing (for `idempotencyTtlMs`).
 * @param deps - store, clock, limits, hooks
 * @param key - tenant and session
 * @param request - the round
 * @param idempotencyKey - the caller's key, if any
 * @param render - the reply's text for an outcome (stored with the round under a key, and
 *   replayed as that type)
 * @param who - what the request says of the session's origin and labels (filled once)
 * @throws ServiceError `too-many-tool-calls`, `idempotency-key-reused`,
 *   `idempotency-in-flight`, and those of `runRound`
 */
export async function reportRound<Text extends string>(
  deps: ServiceDeps,
  key: SessionKey,
  request: RoundRequest,
  idempotencyKey: string | undefined,
  render: (outcome: RoundOutcome) => Text,
  who?: OriginUpdate
): Promise<RoundReplyText<Text>> {
  const { maxToolCalls } = deps.limits
  if (request.tool_calls.length > maxToolCalls) {
    const detail = `at most ${maxToolCalls} tool calls per round (MAX_TOOL_CALLS); this round has ${request.tool_calls.length}`
    throw new ServiceError('too-many-tool-calls', `Limit exceeded: ${detail}.`, {
      errors: [{ pointer: '/tool_calls', detail }],
    })
  }
  if (idempotencyKey === undefined) {
    return {
      text: render(await runRound(deps, key, request, { who })),
      replayed: false,
    }
  }
  const scope = `${key.tenant}\u0000${key.sessionId}\u0000${idempotencyKey}`
  const print = fingerprint(request)
  const claim = await deps.store.claimIdempotency(scope, print, IN_FLIGHT_TTL_MS)
  if (!claim.claimed) {
    if (claim.record.fingerprint !== print) {
      throw new ServiceError(
        'idempotency-key-reused',
        'This Idempotency-Key was used with a different request body.'
      )
    }
    if (claim.record.reply === null) {
      throw new ServiceError(
        'idempotency-in-flight',
        'A request with this Idempotency-Key is still in flight; retry later.'
      )
    }
    // the text `render` made when the key's round committed
    return { text: claim.record.reply as Text, replayed: true }
  }
  // the reply is stored in the same atomic step as the round: a retry after a timeout or a
  // crash finds it, or finds that nothing committed
  let stored: Text | undefined
  try {
    const outcome = await runRound(deps, key, request, {
      idempotency: {
        scope,
        token: claim.token,
        ttlMs: deps.idempotencyTtlMs,
        reply: (value) => (stored = render(value)),
      },
      who,
    })
    return { text: stored ?? render(outcome), replayed: false }
  } catch (error) {
    // only when nothing committed: the release is a no-op once the reply is stored
    await deps.store.releaseIdempotency(scope, claim.token).catch(() => undefined)
    throw error
  }
}

/**
 * The reply to a round.
 * @param outcome - what the round did
 */
export function roundReply(outcome: RoundOutcome) {
  const { session } = outcome
  return {
    session_id: session.session_id,
    dialect: session.dialect,
    round: session.round,
    version: session.version,
    results: outcome.results,
    used_todo: outcome.used_todo,
    rounds_since_todo: session.rounds_since_todo,
    reminder: outcome.reminder,
    notice: outcome.notice,
    dropped: outcome.dropped,
    progress: computeProgress(session.items),
  }
}
