/**
 * @module http/round-runner
 * One round, stored: the code path shared by the rounds route and the MCP endpoint.
 */
import type { Session, SessionKey } from '../core/session.js'
import type { IdempotentReply, Updater } from '../store/types.js'
import { applyRound, type RoundOutcome, type RoundRequest } from '../dialects/round.js'
import { limitsOf, type AppDeps } from './deps.js'
import { countRound } from './metrics.js'
import { ServiceError } from '../service/errors.js'

/**
 * `store.update` under the tenant's session cap (`MAX_SESSIONS_PER_TENANT`): the store counts
 * and creates in one atomic step, so concurrent creations at the limit cannot both pass.
 * @param deps - store and limits
 * @param key - the session to update
 * @param fn - the updater
 * @param idempotency - a claimed Idempotency-Key whose reply is stored with the change
 * @throws QuotaExceededError (403 `session-quota-exceeded`) when a creation is over the cap
 */
export function updateWithinQuota<T>(
  deps: AppDeps,
  key: SessionKey,
  fn: Updater<T>,
  idempotency?: IdempotentReply<T>
): Promise<T> {
  const cap = limitsOf(deps).maxSessionsPerTenant
  return deps.store.update(key, fn, { maxSessionsPerTenant: cap || undefined, idempotency })
}

/**
 * Applies a round to the stored session atomically and counts it.
 * @param deps - store, clock, limits, metrics
 * @param key - tenant and session
 * @param request - the round
 * @param check - runs on the current state before the round, inside the update; throw to refuse
 * @param idempotency - a claimed Idempotency-Key whose reply is stored with the round
 */
export async function runRound(
  deps: AppDeps,
  key: SessionKey,
  request: RoundRequest,
  check?: (current: Session | null) => void,
  idempotency?: IdempotentReply<RoundOutcome>
): Promise<RoundOutcome> {
  const limits = limitsOf(deps)
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
      const result = applyRound(current, key, request, now, limits, versionFloor)
      return { value: result, write: { session: result.session, source: 'round' } }
    },
    idempotency
  )
  if (deps.metrics) countRound(deps.metrics, outcome)
  return outcome
}
