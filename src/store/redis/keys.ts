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
  /**
   * The session hash: `v`, `exp`, `data`, `t`, and the brief listings read, `b`, with the token
   * of the write that stored it, `bt`; or, for the TTL after a delete, a tombstone with `v` and
   * `tomb` (its expiry) only.
   */
  session(key: SessionKey): string
  /** The history list. */
  history(key: SessionKey): string
  /** The tenant's listing index: member session id, score updated_at. */
  index(tenant: string): string
  /** Cluster: the seats of the tenant's creations in flight (quota), by deadline. */
  seats(tenant: string): string
  /**
   * An Idempotency-Key's record. A scope `tenant \0 session \0 key` (the rounds route's) puts it
   * under the session's hash tag, so the write script can store the reply with the change.
   */
  idempotency(scope: string): string
  /** The probe `checkWritable` writes. */
  probe(instance: string): string
  /** A shared rate-limit counter. */
  counter(key: string): string
  /** The session's alert outbox (a list, written by the write script: same slot as the session). */
  outbox(key: SessionKey): string
  /** Sessions whose outbox may hold events (a sorted set by due time, the fleet's one key). */
  alertsDirty: string
  /** Tenants with webhooks (a set, the fleet's one key). */
  alertsTenants: string
  /**
   * One of a tenant's alert keys (`webhooks`, `deliveries`, `due`, `marks`, `scan`, `stale`,
   * `log:<webhook>`): all under the tenant's hash tag, so one script reaches them on Cluster.
   */
  alerts(tenant: string, name: string): string
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
    seats: (tenant) => `${prefix}:{${tenant}}:seats`,
    idempotency(scope) {
      // a digest of the client-chosen key keeps the key tidy
      const digest = createHash('sha256').update(scope).digest('hex')
      const [tenant, sessionId, idempotencyKey] = scope.split('\u0000')
      if (idempotencyKey === undefined) return `${prefix}:{idem:${digest}}:i`
      return `${sessionTag({ tenant, sessionId })}:i:${digest}`
    },
    probe: (instance) => `${prefix}:probe:${instance}`,
    // keys as in earlier versions, so rate-limit windows survive an upgrade
    counter: (key) => `${prefix}:rl:{${key}}`,
    outbox: (key) => `${sessionTag(key)}:ob`,
    alertsDirty: `${prefix}:alerts:dirty`,
    alertsTenants: `${prefix}:alerts:tenants`,
    alerts: (tenant, name) => `${prefix}:{${tenant}}:al:${name}`,
  }
}

/**
 * The hash tag part of a key (`{…}`), which decides its Cluster slot.
 * @param key - a key of the layout
 */
export const hashTagOf = (key: string) => /\{[^}]*\}/.exec(key)?.[0] ?? key

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
