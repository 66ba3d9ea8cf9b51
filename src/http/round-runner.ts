/**
 * @module http/round-runner
 * The quota-bound store update under its old signature (the app's dependencies), for the ingest
 * route until its orchestration moves to src/service; the use cases live in service/rounds.
 */
import type { SessionKey } from '../core/session.js'
import type { IdempotentReply, Updater } from '../store/types.js'
import { updateWithinQuota as update } from '../service/rounds.js'
import { limitsOf, type AppDeps } from './deps.js'

/**
 * `store.update` under the tenant's session cap: service/rounds `updateWithinQuota`.
 * @deprecated call service/rounds `updateWithinQuota` with the service's dependencies
 */
export function updateWithinQuota<T>(
  deps: AppDeps,
  key: SessionKey,
  fn: Updater<T>,
  idempotency?: IdempotentReply<T>
): Promise<T> {
  return update({ store: deps.store, limits: limitsOf(deps) }, key, fn, idempotency)
}
