/**
 * @module service/error-map
 * The one mapping of the layers' own errors to the catalog: the store and the dialects throw
 * plain classes (a store never knows the service or HTTP), and everything above them (the HTTP
 * error handler, MCP) sees a `ServiceError` through `toServiceError`.
 */
import { DialectConflictError } from '../dialects/round.js'
import {
  ConflictRetryError,
  IdempotencyClaimLostError,
  QuotaExceededError,
  StoreUnavailableError,
} from '../store/types.js'
import { ServiceError } from './errors.js'

const RETRY_SOON = { headers: { 'Retry-After': '1' } }

/**
 * The catalog's error of a failure: a `ServiceError` as it is; a dialect conflict, the store's
 * refusals and failures (unavailable, the session quota, a lost Idempotency-Key claim, contention)
 * as their codes; null for anything else (a bug, or an adapter's own error).
 * @param error - what was thrown
 */
export function toServiceError(error: unknown): ServiceError | null {
  if (error instanceof ServiceError) return error
  if (error instanceof DialectConflictError) {
    return new ServiceError('dialect-conflict', error.message)
  }
  if (error instanceof StoreUnavailableError) {
    const detail = error.writeOnly
      ? 'The session store cannot write right now (full, read-only or out of memory); nothing was changed. Retry shortly.'
      : 'The session store is unreachable; retry shortly.'
    return new ServiceError('store-unavailable', detail, RETRY_SOON)
  }
  if (error instanceof QuotaExceededError) {
    return new ServiceError(
      'session-quota-exceeded',
      `Limit exceeded: a tenant may hold at most ${error.cap} live sessions (MAX_SESSIONS_PER_TENANT); delete old ones (an ended session counts until it is deleted or expires, SESSION_TTL_SECONDS after its last change).`
    )
  }
  if (error instanceof IdempotencyClaimLostError) {
    return new ServiceError(
      'idempotency-claim-lost',
      'The request outlived its Idempotency-Key claim before it could commit; nothing was changed. Retry with the same key.',
      RETRY_SOON
    )
  }
  if (error instanceof ConflictRetryError) {
    return new ServiceError('contention', error.message, RETRY_SOON)
  }
  return null
}
