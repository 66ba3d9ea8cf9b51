/**
 * @module http/round-runner
 * One round, stored: the code path shared by the rounds route and the MCP endpoint.
 */
import type { Session, SessionKey } from '../core/session.js'
import { applyRound, type RoundOutcome, type RoundRequest } from '../dialects/round.js'
import { limitsOf, type AppDeps } from './deps.js'
import { countRound } from './metrics.js'
import { ProblemError } from './problem.js'

/**
 * Refuses to create a session beyond the tenant's cap (`MAX_SESSIONS_PER_TENANT`). A soft cap:
 * two creations racing at the limit may both pass.
 * @param deps - store and limits
 * @param key - the session about to be written
 */
export async function assertSessionQuota(deps: AppDeps, key: SessionKey): Promise<void> {
  const cap = limitsOf(deps).maxSessionsPerTenant
  if (!cap || (await deps.store.get(key))) return
  if ((await deps.store.countSessions(key.tenant)) >= cap) {
    throw new ProblemError(
      403,
      'session-quota-exceeded',
      `Limit exceeded: a tenant may hold at most ${cap} live sessions (MAX_SESSIONS_PER_TENANT); delete or end old ones.`
    )
  }
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
  await assertSessionQuota(deps, key)
  const limits = limitsOf(deps)
  const now = deps.now()
  const outcome = await deps.store.update(key, (current) => {
    check?.(current)
    const result = applyRound(current, key, request, now, limits)
    return { value: result, write: { session: result.session, source: 'round' } }
  })
  if (deps.metrics) countRound(deps.metrics, outcome)
  return outcome
}
