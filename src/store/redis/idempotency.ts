/**
 * @module store/redis/idempotency
 * Idempotency-Key records: a claim under a token while the request runs, then the reply, which
 * the write script stores with the change it answers (update.ts). The record shares the session's
 * slot (keys.ts), so one script can do both.
 */
import { randomUUID } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import {
  IdempotencyClaimLostError,
  type IdempotencyClaim,
  type IdempotentReply,
  type SessionStore,
} from '../types.js'
import { guarded } from './errors.js'
import type { KeyLayout } from './keys.js'

export interface Idempotency {
  claimIdempotency: SessionStore['claimIdempotency']
  releaseIdempotency: SessionStore['releaseIdempotency']
  /**
   * Stores the reply of an update that wrote nothing, while the claim holds.
   * @throws IdempotencyClaimLostError when it no longer holds
   */
  storeReply: <T>(claim: IdempotentReply<T>, value: T) => Promise<void>
}

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
): Idempotency {
  return {
    async claimIdempotency(scope, fingerprint, ttlMs): Promise<IdempotencyClaim> {
      const at = now()
      const token = randomUUID()
      const reply = await guarded(() =>
        client.atIdemClaim(
          keys.idempotency(scope),
          String(at),
          fingerprint,
          token,
          String(at + ttlMs),
          String(ttlMs)
        )
      )
      if (reply === null) return { claimed: true, token }
      return { claimed: false, record: { fingerprint: reply[0], reply: reply[1] ?? null } }
    },

    async releaseIdempotency(scope, token) {
      await guarded(() => client.atIdemRelease(keys.idempotency(scope), token))
    },

    async storeReply(claim, value) {
      const at = now()
      const stored = await guarded(() =>
        client.atIdemReply(
          keys.idempotency(claim.scope),
          String(at),
          claim.token,
          claim.reply(value),
          String(at + claim.ttlMs),
          String(claim.ttlMs)
        )
      )
      if (stored !== 1) throw new IdempotencyClaimLostError()
    },
  }
}
