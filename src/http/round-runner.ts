/**
 * @module http/round-runner
 * One round, stored: the code path shared by the rounds route and the MCP endpoint.
 */
import type { Session, SessionKey } from '../core/session.js'
import type { Updater } from '../store/types.js'
import { applyRound, type RoundOutcome, type RoundRequest } from '../dialects/round.js'
import { limitsOf, type AppDeps } from './deps.js'
import { countRound } from './metrics.js'
import { ProblemError } from './problem.js'

/** Thrown inside an update that would create a session while the quota is still unchecked. */
class QuotaCheckDue extends Error {}

/**
 * `store.update`, refusing to create a session beyond the tenant's cap
 * (`MAX_SESSIONS_PER_TENANT`). Only an update that would create a session pays for the check: it
 * is abandoned before writing, the tenant's sessions are counted, and the update runs again. A
 * soft cap: two creations racing at the limit may both pass.
 * @param deps - store and limits
 * @param key - the session to update
 * @param fn - the updater; its own refusals (thrown) come first
 * @throws ProblemError 403 `session-quota-exceeded`
 */
export async function updateWithinQuota<T>(
  deps: AppDeps,
  key: SessionKey,
  fn: Updater<T>
): Promise<T> {
  const cap = limitsOf(deps).maxSessionsPerTenant
  if (!cap) return deps.store.update(key, fn)
  try {
    return await deps.store.update(key, (current) => {
      const decision = fn(current)
      if (!current && decision.write) throw new QuotaCheckDue()
      return decision
    })
  } catch (error) {
    if (!(error instanceof QuotaCheckDue)) throw error
  }
  if ((await deps.store.countSessions(key.tenant)) >= cap) {
    throw new ProblemError(
      403,
      'session-quota-exceeded',
      `Limit exceeded: a tenant may hold at most ${cap} live sessions (MAX_SESSIONS_PER_TENANT); delete or end old ones.`
    )
  }
  return deps.store.update(key, fn)
}

/**
 * Applies a round to the stored session atomically and counts it.
 * @param deps - store, clock, limits, metrics
 * @param key - tenant and session
 * @param request - the round
 * @param check - runs on the current state before the round, inside the update; throw to refuse
 */
export async function runRound(
  deps: AppDeps,
  key: SessionKey,
  request: RoundRequest,
  check?: (current: Session | null) => void
): Promise<RoundOutcome> {
  const limits = limitsOf(deps)
  const now = deps.now()
  const outcome = await updateWithinQuota(deps, key, (current) => {
    check?.(current)
    const result = applyRound(current, key, request, now, limits)
    return { value: result, write: { session: result.session, source: 'round' } }
  })
  if (deps.metrics) countRound(deps.metrics, outcome)
  return outcome
}
