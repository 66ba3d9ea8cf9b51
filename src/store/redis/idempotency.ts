/**
 * @module store/redis/idempotency
 * Idempotency-Key records: a claim while the request runs, then its stored reply.
 */
import type { Cluster, Redis } from 'ioredis'
import type { IdempotencyClaim, SessionStore } from '../types.js'
import { guarded } from './errors.js'
import type { KeyLayout } from './keys.js'

type IdempotencyMethods = Pick<
  SessionStore,
  'claimIdempotency' | 'completeIdempotency' | 'releaseIdempotency'
>

/**
 * The idempotency methods of a store.
 * @param client - the command connection
 * @param keys - the key layout
 * @param now - the store's clock
 */
export function createIdempotency(
  client: Redis | Cluster,
  keys: KeyLayout,
  now: () => number
): IdempotencyMethods {
  return {
    async claimIdempotency(scope, fingerprint, ttlMs): Promise<IdempotencyClaim> {
      const at = now()
      const reply = await guarded(() =>
        client.atIdemClaim(
          keys.idempotency(scope),
          String(at),
          fingerprint,
          String(at + ttlMs),
          String(ttlMs)
        )
      )
      if (reply === null) return { claimed: true }
      return { claimed: false, record: { fingerprint: reply[0], reply: reply[1] ?? null } }
    },

    async completeIdempotency(scope, fingerprint, reply, ttlMs) {
      await guarded(() =>
        client.atIdemComplete(
          keys.idempotency(scope),
          fingerprint,
          reply,
          String(now() + ttlMs),
          String(ttlMs)
        )
      )
    },

    async releaseIdempotency(scope) {
      await guarded(() => client.del(keys.idempotency(scope)))
    },
  }
}
