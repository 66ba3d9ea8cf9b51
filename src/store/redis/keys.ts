/**
 * @module store/redis/keys
 * The key layout (docs/redis.md): every key of one session carries the hash tag
 * `{tenant:session}` and shares its slot; a tenant's keys carry `{tenant}`.
 */
import { createHash } from 'node:crypto'
import type { Session, SessionKey } from '../../core/session.js'

const KEY_PREFIX_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/

/** The keys of one store, under its prefix. */
export interface KeyLayout {
  /** The change channel. */
  channel: string
  /** The session hash: `v`, `exp`, `data`, `t`. */
  session(key: SessionKey): string
  /** The history list. */
  history(key: SessionKey): string
  /** The tenant's listing index: member session id, score updated_at. */
  index(tenant: string): string
  /** An idempotency record. */
  idempotency(scope: string): string
  /** A shared rate-limit counter. */
  counter(key: string): string
}

/**
 * The key layout under a prefix.
 * @param prefix - first segment of every key and of the change channel
 * @throws Error when the prefix has characters outside letters, digits and `. _ : -`
 */
export function keyLayout(prefix: string): KeyLayout {
  if (!KEY_PREFIX_PATTERN.test(prefix)) {
    throw new Error(`Redis key prefix '${prefix}' must match ${KEY_PREFIX_PATTERN}`)
  }
  const sessionTag = (key: SessionKey) => `${prefix}:{${key.tenant}:${key.sessionId}}`
  return {
    channel: `${prefix}:changes`,
    session: (key) => `${sessionTag(key)}:s`,
    history: (key) => `${sessionTag(key)}:h`,
    index: (tenant) => `${prefix}:{${tenant}}:sessions`,
    // the scope is opaque (tenant, session and a client-chosen key): a digest keeps the key tidy
    idempotency: (scope) => `${prefix}:idem:${createHash('sha256').update(scope).digest('hex')}`,
    // keys as in earlier versions, so rate-limit windows survive an upgrade
    counter: (key) => `${prefix}:rl:{${key}}`,
  }
}

/**
 * The session in an `HMGET … exp data` reply, or null when absent or expired by the store's clock.
 * @param reply - `[exp, data]`
 * @param now - the store's clock
 */
export function liveRecord(reply: (string | null)[], now: number): Session | null {
  const [exp, data] = reply
  if (exp === null || data === null || Number(exp) <= now) return null
  return JSON.parse(data) as Session
}
