/**
 * @module store/redis/people
 * The Redis store's personal tokens and audit trail, fit for Cluster:
 * - a token is a string key by the sha256 of its secret, `<prefix>:{tok:<hash>}` (the JSON record,
 *   expiring with the token), so any instance finds it in one GET; a tenant's tokens are also a
 *   hash `<prefix>:{<tenant>}:pp:tokens` (id → record) for listings and revokes. A revoke deletes
 *   the lookup key first: from then on no instance accepts the token.
 * - a tenant's audit trail is a sorted set `<prefix>:{<tenant>}:pp:audit` (score: the time;
 *   member: `<id> \0 <expiry> \0 <entry JSON>`, so equal times order by id), swept of expired
 *   entries on every append, the key itself expiring with its newest entry.
 */
import type { Cluster, Redis } from 'ioredis'
import { isAfterAuditCursor, matchesAudit, type AuditEntry } from '../../core/people.js'
import {
  AUDIT_SCAN_LIMIT,
  type AuditPage,
  type PeopleStore,
  type TokenRecord,
} from '../people/types.js'
import { guarded } from './errors.js'

/** Members one listing reads per round trip. */
const AUDIT_BATCH = 200

/** An audit member: its entry and expiry. */
function parseMember(member: string): { entry: AuditEntry; expiresAt: number } | null {
  const first = member.indexOf('\u0000')
  const second = member.indexOf('\u0000', first + 1)
  if (first < 0 || second < 0) return null
  return {
    expiresAt: Number(member.slice(first + 1, second)),
    entry: JSON.parse(member.slice(second + 1)) as AuditEntry,
  }
}

/**
 * The Redis people store.
 * @param client - the store's connection
 * @param prefix - the store's key prefix
 * @param now - the store's clock
 */
export function createRedisPeople(
  client: Redis | Cluster,
  prefix: string,
  now: () => number
): PeopleStore {
  const tokenKey = (hash: string) => `${prefix}:{tok:${hash}}`
  const tenantTokens = (tenant: string) => `${prefix}:{${tenant}}:pp:tokens`
  const auditKey = (tenant: string) => `${prefix}:{${tenant}}:pp:audit`
  const live = (record: TokenRecord) => record.expires_at === null || record.expires_at > now()

  /** One batch of a listing: members at or below `maxScore`, after `offset` of them. */
  const batch = (tenant: string, maxScore: number, offset: number) =>
    guarded(() =>
      client.zrevrangebyscore(
        auditKey(tenant),
        Number.isFinite(maxScore) ? maxScore : '+inf',
        '-inf',
        'LIMIT',
        offset,
        AUDIT_BATCH
      )
    )

  return {
    async createToken(record) {
      const json = JSON.stringify(record)
      await guarded(() => client.hset(tenantTokens(record.tenant), record.id, json))
      await guarded(() =>
        record.expires_at === null
          ? client.set(tokenKey(record.hash), json)
          : client.set(tokenKey(record.hash), json, 'PXAT', record.expires_at)
      )
    },
    async findToken(hash) {
      const json = await guarded(() => client.get(tokenKey(hash)))
      if (json === null) return null
      const record = JSON.parse(json) as TokenRecord
      return live(record) ? record : null
    },
    async listTokens(tenant, user) {
      const all = await guarded(() => client.hgetall(tenantTokens(tenant)))
      const records = Object.values(all).map((json) => JSON.parse(json) as TokenRecord)
      const expired = records.filter((record) => !live(record)).map((record) => record.id)
      if (expired.length > 0) {
        await guarded(() => client.hdel(tenantTokens(tenant), ...expired))
      }
      return records
        .filter((record) => live(record) && (user === undefined || record.user === user))
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
    },
    async revokeToken(tenant, id) {
      const json = await guarded(() => client.hget(tenantTokens(tenant), id))
      if (json === null) return null
      const record = JSON.parse(json) as TokenRecord
      // the lookup key first: from this reply on, no instance accepts the token
      await guarded(() => client.del(tokenKey(record.hash)))
      await guarded(() => client.hdel(tenantTokens(tenant), id))
      return live(record) ? record : null
    },
    async appendAudit(entry, expiresAt) {
      const key = auditKey(entry.tenant)
      const member = `${entry.id}\u0000${expiresAt}\u0000${JSON.stringify(entry)}`
      // an entry's lifetime is the same for all (AUDIT_TTL_DAYS): entries older than this
      // one's lifetime are expired
      const lifetime = expiresAt - entry.at
      await guarded(() =>
        client
          .multi()
          .zadd(key, entry.at, member)
          .zremrangebyscore(key, '-inf', `(${now() - lifetime}`)
          // by the store's clock (the key outlives its newest entry's lifetime, never less)
          .pexpire(key, Math.max(1, expiresAt - now()), 'GT')
          .pexpire(key, Math.max(1, expiresAt - now()), 'NX')
          .exec()
      )
    },
    async listAudit(tenant, query): Promise<AuditPage> {
      const entries: AuditEntry[] = []
      const cursor = query.cursor
      const maxScore = cursor ? cursor.at : Number.POSITIVE_INFINITY
      let offset = 0
      let scanned = 0
      let last: AuditEntry | undefined
      for (;;) {
        const members = await batch(tenant, maxScore, offset)
        offset += members.length
        for (const [index, member] of members.entries()) {
          const parsed = parseMember(member)
          if (!parsed || parsed.expiresAt <= now()) continue
          const { entry } = parsed
          if (cursor && !isAfterAuditCursor(entry, cursor)) continue
          if (scanned++ === AUDIT_SCAN_LIMIT)
            return { entries, next: { at: last!.at, id: last!.id } }
          last = entry
          if (!matchesAudit(entry, query)) continue
          entries.push(entry)
          if (entries.length === query.limit) {
            const more = index < members.length - 1 || members.length === AUDIT_BATCH
            return { entries, next: more ? { at: entry.at, id: entry.id } : null }
          }
        }
        // the score window stays; the offset moves on
        if (members.length < AUDIT_BATCH) return { entries, next: null }
      }
    },
  }
}
