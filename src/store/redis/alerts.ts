/**
 * @module store/redis/alerts
 * The Redis store's alert records, fit for Cluster: every key of a tenant's alerts carries the
 * tenant's hash tag (`keys.alerts`), so each operation is one script in one slot. Two fleet-wide
 * keys tie the tenants together: the set of tenants with webhooks, and the sorted set of
 * sessions whose outbox may hold events (`alertsDirty`, by due time).
 *
 * The outbox of a session is a list beside the session (its slot), appended by the write script
 * (`lua/write-session.lua`), so an event is stored with its change. The writer lists the session
 * as dirty before the write (so a crash after it is found) and after it (so a drain that raced
 * it keeps it listed). A drain leases a dirty session (its score moves to the lease's end), turns
 * each event into deliveries, removes the event, and forgets the session only if its score is
 * still its own lease and its outbox is empty.
 *
 * Dispatch runs at least once: delivery ids derive from the event and the webhook
 * (`newDeliveryId` in the worker), and a delivery is added only if its id is new, so a repeated
 * dispatch (a lease that ran out, two instances on one stale list) adds nothing twice.
 * `stale` events go to the tenant's own list: the scan script moves the tenant's mark and lists
 * what turned stale in one step, so each stall is found once for the fleet.
 *
 * The sessions-by-state gauge counts every tenant, with webhooks or not: the tenants' listing
 * indexes are found by SCAN on each master (the fleet keeps no list of every tenant; a count
 * runs at most every 10 s), and each member's brief is read in batches, as listings do.
 */
import type { Cluster, Redis } from 'ioredis'
import { sessionState } from '../../core/session.js'
import type { Transition } from '../../core/transitions.js'
import { briefColumns, parseBrief } from '../brief.js'
import {
  DELIVERY_LOG_LIMIT,
  WebhookQuotaError,
  type AlertStore,
  type DeliveryRecord,
  type OutboxEvent,
  type WebhookRecord,
} from '../alerts/types.js'
import { guarded } from './errors.js'
import type { KeyLayout } from './keys.js'

// KEYS: webhooks; ARGV: cap, id, record
const CREATE_WEBHOOK = `
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1`

// KEYS: webhooks, deliveries, due, log, marks, leases, seen; ARGV: id
const DELETE_WEBHOOK = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('DEL', KEYS[7])
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('HDEL', KEYS[6], id)
end
redis.call('DEL', KEYS[4])
local prefix = ARGV[1] .. '\\0'
for _, mark in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  if string.sub(mark, 1, #prefix) == prefix then redis.call('SREM', KEYS[5], mark) end
end
return 1`

/** Log entries looked at past the excess when trimming (pending ones are skipped). */
const LOG_TRIM_LOOK = 100
/**
 * How long the id of a delivery trimmed from the log still keeps it from being added again: far
 * longer than a dispatch repeated by a second instance or after an event's lease (10 s) takes.
 */
const SEEN_MS = 3_600_000

// KEYS: deliveries, due, log, seen; ARGV: id, record, due ('' none), created_at, log limit, now
// A delivery is added once: not if its id is in the log or was trimmed from it within the last
// SEEN_MS (`seen`: a dispatch repeated after the first one's delivery left the log, e.g. two
// instances that drained one outbox while a write listed it again, sends nothing twice).
// The log's oldest beyond the limit leave it, but never a pending one (in `due`): it leaves once
// settled, so a receiver that was down while more than the log's length piled up loses none.
// At most LOG_TRIM_LOOK past the excess are looked at per add (a long backlog is not walked).
const ADD_DELIVERY = `
if redis.call('ZSCORE', KEYS[4], ARGV[1]) then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[5])
if over > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. (tonumber(ARGV[6]) - ${SEEN_MS}))
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, over + ${LOG_TRIM_LOOK} - 1)) do
    if over <= 0 then break end
    if not redis.call('ZSCORE', KEYS[2], id) then
      redis.call('HDEL', KEYS[1], id)
      redis.call('ZREM', KEYS[3], id)
      redis.call('ZADD', KEYS[4], ARGV[6], id)
      over = over - 1
    end
  end
  redis.call('PEXPIRE', KEYS[4], ${SEEN_MS})
end
return 1`

// KEYS: deliveries, due, leases; ARGV: now, lease end, limit, owner
const CLAIM_DELIVERIES = `
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))) do
  local record = redis.call('HGET', KEYS[1], id)
  if record then
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    redis.call('HSET', KEYS[3], id, ARGV[4])
    table.insert(out, record)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return out`

// KEYS: deliveries, due, leases; ARGV: id, owner, record, next due ('' for none)
const FINISH_ATTEMPT = `
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[3], ARGV[1])
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) else redis.call('ZREM', KEYS[2], ARGV[1]) end
return 1`

// KEYS: deliveries, due, leases, log; ARGV: id
const DROP_DELIVERY = `
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1`

// KEYS: scan mark, listing index, stale list; ARGV: staleBefore
const SCAN_STALE = `
local mark = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
if not mark then return 0 end
local found = redis.call('ZRANGEBYSCORE', KEYS[2], mark, '(' .. ARGV[1], 'WITHSCORES')
for i = 1, #found, 2 do
  redis.call('RPUSH', KEYS[3], cjson.encode({kind = 'stale', session_id = found[i], at = tonumber(found[i + 1]),
    id = 'stale:' .. found[i] .. ':' .. found[i + 1]}))
end
return #found / 2`

// KEYS: dirty; ARGV: now, lease end, limit
const CLAIM_DIRTY = `
local out = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(out) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return out`

// KEYS: dirty; ARGV: member, lease end
const RELEASE_DIRTY = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 1`

// KEYS: deliveries, marks; ARGV: session id
const DROP_WAITING = `
for _, record in ipairs(redis.call('HVALS', KEYS[1])) do
  local d = cjson.decode(record)
  if d.session_id == ARGV[1] and d.type == 'session.waiting' and d.status == 'pending' and d.attempts == 0 then
    redis.call('HDEL', KEYS[1], d.id)
    redis.call('ZREM', KEYS[2], d.id)
  end
end
return 1`

/** Where a claimed event lives until it is settled. */
interface Claimed {
  raw: string
  /** The list it is in: a session's outbox or the tenant's stale list. */
  list: string
}

/**
 * The sessions-by-state count's reads, each far below the command timeout (1 s by default):
 * SCAN looks at this many keys per call (a fraction of a millisecond of Redis time)…
 */
const SCAN_COUNT = 1000
/** …ZSCAN about this many index members… */
const INDEX_PAGE = 1000
/** …and this many briefs (a few hundred bytes each, as listings read them) go in one round. */
const BRIEF_BATCH = 100

type Client = Redis | Cluster

/**
 * The Redis alert store.
 * @param client - the store's connection
 * @param keys - its key layout
 * @param now - its clock
 */
export function createRedisAlerts(client: Client, keys: KeyLayout, now: () => number) {
  const k = (tenant: string, name: string) => keys.alerts(tenant, name)
  const run = <T>(script: string, keyList: string[], args: (string | number)[]) =>
    guarded(
      () => client.eval(script, keyList.length, ...keyList, ...args.map(String)) as Promise<T>
    )
  const claimed = new Map<string, Claimed>()

  const addDelivery = (d: DeliveryRecord) =>
    run<number>(
      ADD_DELIVERY,
      [
        k(d.tenant, 'deliveries'),
        k(d.tenant, 'due'),
        k(d.tenant, `log:${d.webhook_id}`),
        k(d.tenant, `seen:${d.webhook_id}`),
      ],
      [
        d.id,
        JSON.stringify(d),
        d.status === 'pending' ? (d.next_attempt_at ?? '') : '',
        d.created_at,
        DELIVERY_LOG_LIMIT,
        now(),
      ]
    )

  const eventsOf = (list: string, tenant: string, sessionId: string | null, raws: string[]) =>
    raws.flatMap((raw): OutboxEvent[] => {
      try {
        const parsed = JSON.parse(raw) as Transition & { id: string; session_id?: string }
        const event: OutboxEvent = {
          id: parsed.id,
          tenant,
          session_id: sessionId ?? parsed.session_id ?? '',
          owner: '',
          kind: parsed.kind,
          at: parsed.at,
          ...(parsed.since === undefined ? {} : { since: parsed.since }),
        }
        claimed.set(event.id, { raw, list })
        return [event]
      } catch {
        return []
      }
    })

  /** Every tenant with a listing index: SCAN of each master (each Cluster node holds a part). */
  const indexedTenants = async (): Promise<string[]> => {
    const [head, tail] = keys.index('\u0000').split('\u0000')
    const tenants = new Set<string>()
    const nodes: Redis[] =
      'nodes' in client && client.isCluster ? client.nodes('master') : [client as Redis]
    for (const node of nodes) {
      let cursor = '0'
      do {
        const [next, found] = await guarded(() =>
          node.scan(cursor, 'MATCH', `${head}*${tail}`, 'COUNT', SCAN_COUNT, 'TYPE', 'zset')
        )
        cursor = next
        for (const key of found) tenants.add(key.slice(head.length, key.length - tail.length))
      } while (cursor !== '0')
    }
    return [...tenants]
  }

  /**
   * `[brief, exp]` of a tenant's sessions: one pipeline on standalone Redis (one write, one
   * read), one command each on Cluster (the sessions sit in many slots).
   */
  const readBriefs = async (tenant: string, ids: string[]): Promise<(string | null)[][]> => {
    if ('isCluster' in client && client.isCluster) {
      return Promise.all(
        ids.map((sessionId) =>
          guarded(() => client.hmget(keys.session({ tenant, sessionId }), 'b', 'exp'))
        )
      )
    }
    const pipeline = client.pipeline()
    for (const sessionId of ids) pipeline.hmget(keys.session({ tenant, sessionId }), 'b', 'exp')
    const replies = (await guarded(() => pipeline.exec())) ?? []
    return replies.map(([error, reply]) => {
      if (error) throw error
      return reply as (string | null)[]
    })
  }

  /**
   * A tenant's index members, a page at a time, each once: ZSCAN (not ranks, which shift as
   * writes move members) returns every member present throughout at least once.
   */
  async function* indexPages(tenant: string): AsyncGenerator<string[]> {
    const seen = new Set<string>()
    let cursor = '0'
    do {
      const [next, flat] = await guarded(() =>
        client.zscan(keys.index(tenant), cursor, 'COUNT', INDEX_PAGE)
      )
      cursor = next
      const ids: string[] = []
      for (let i = 0; i < flat.length; i += 2) {
        if (!seen.has(flat[i])) ids.push(flat[i])
        seen.add(flat[i])
      }
      if (ids.length > 0) yield ids
    } while (cursor !== '0')
  }

  const store: AlertStore = {
    async createWebhook(record, cap) {
      await guarded(() => client.sadd(keys.alertsTenants, record.tenant))
      const made = await run<number>(
        CREATE_WEBHOOK,
        [k(record.tenant, 'webhooks')],
        [cap, record.id, JSON.stringify(record)]
      )
      if (made !== 1) throw new WebhookQuotaError(cap)
    },
    async listWebhooks(tenant) {
      const all = await guarded(() => client.hvals(k(tenant, 'webhooks')))
      return all
        .map((data) => JSON.parse(data) as WebhookRecord)
        .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
    },
    async getWebhook(tenant, id) {
      const data = await guarded(() => client.hget(k(tenant, 'webhooks'), id))
      return data === null ? null : (JSON.parse(data) as WebhookRecord)
    },
    async setSecrets(tenant, id, secrets) {
      // a rotation is rare and an admin's: a read and a write (a concurrent delete may leave
      // the record written back; the next delete removes it)
      const record = await store.getWebhook(tenant, id)
      if (!record) return false
      await guarded(() =>
        client.hset(k(tenant, 'webhooks'), id, JSON.stringify({ ...record, secrets }))
      )
      return true
    },
    async deleteWebhook(tenant, id) {
      const removed = await run<number>(
        DELETE_WEBHOOK,
        [
          k(tenant, 'webhooks'),
          k(tenant, 'deliveries'),
          k(tenant, 'due'),
          k(tenant, `log:${id}`),
          k(tenant, 'marks'),
          k(tenant, 'leases'),
          k(tenant, `seen:${id}`),
        ],
        [id]
      )
      return removed === 1
    },
    async listDeliveries(tenant, webhookId, limit) {
      const ids = await guarded(() => client.zrevrange(k(tenant, `log:${webhookId}`), 0, limit - 1))
      if (ids.length === 0) return []
      const records = await guarded(() => client.hmget(k(tenant, 'deliveries'), ...ids))
      return records
        .filter((r): r is string => r !== null)
        .map((r) => JSON.parse(r) as DeliveryRecord)
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
    },
    async addDelivery(delivery) {
      await addDelivery(delivery)
    },
    async scanStale(staleBefore) {
      let found = 0
      for (const tenant of await guarded(() => client.smembers(keys.alertsTenants))) {
        found += await run<number>(
          SCAN_STALE,
          [k(tenant, 'scan'), keys.index(tenant), k(tenant, 'stale')],
          [staleBefore]
        )
      }
      return found
    },
    async claimEvents(owner, at, leaseMs, limit) {
      const events: OutboxEvent[] = []
      const leaseEnd = at + leaseMs
      const dirty = await run<string[]>(CLAIM_DIRTY, [keys.alertsDirty], [at, leaseEnd, limit])
      for (const member of dirty) {
        const [tenant, sessionId] = JSON.parse(member) as [string, string]
        const list = keys.outbox({ tenant, sessionId })
        const raws = await guarded(() => client.lrange(list, 0, -1))
        if (raws.length === 0) {
          // drained (or a write that never happened): forget it unless a writer listed it again
          await run(RELEASE_DIRTY, [keys.alertsDirty], [member, leaseEnd])
          continue
        }
        // the lease's end goes back in the score after the drain (`settleEvent` releases)
        for (const event of eventsOf(list, tenant, sessionId, raws)) {
          events.push({ ...event, owner: `${owner} ${member} ${leaseEnd}` })
        }
      }
      // the tenants' stale lists: no lease (a stall dispatched twice adds nothing twice)
      for (const tenant of await guarded(() => client.smembers(keys.alertsTenants))) {
        if (events.length >= limit) break
        const list = k(tenant, 'stale')
        const raws = await guarded(() => client.lrange(list, 0, limit - 1))
        for (const event of eventsOf(list, tenant, null, raws)) events.push({ ...event, owner })
      }
      return events
    },
    async settleEvent(event, dispatch) {
      const key = { tenant: event.tenant, sessionId: event.session_id }
      if (dispatch.dropWaiting) {
        await run(
          DROP_WAITING,
          [k(event.tenant, 'deliveries'), k(event.tenant, 'due')],
          [event.session_id]
        )
      }
      if (dispatch.clearMarks.length > 0) {
        await guarded(() =>
          client.srem(
            k(event.tenant, 'marks'),
            ...dispatch.clearMarks.map((id) => `${id}\u0000${key.sessionId}`)
          )
        )
      }
      for (const delivery of dispatch.deliveries) await addDelivery(delivery)
      const where = claimed.get(event.id)
      if (!where) return
      claimed.delete(event.id)
      await guarded(() => client.lrem(where.list, 1, where.raw))
      const [, member, leaseEnd] = event.owner.split(' ')
      if (member && (await guarded(() => client.llen(where.list))) === 0) {
        await run(RELEASE_DIRTY, [keys.alertsDirty], [member, leaseEnd])
      }
    },
    async claimDeliveries(owner, at, leaseMs, limit, roomOf) {
      const out: DeliveryRecord[] = []
      for (const tenant of await guarded(() => client.smembers(keys.alertsTenants))) {
        const room = Math.min(roomOf(tenant), limit - out.length)
        if (room <= 0) continue
        const records = await run<string[]>(
          CLAIM_DELIVERIES,
          [k(tenant, 'deliveries'), k(tenant, 'due'), k(tenant, 'leases')],
          [at, at + leaseMs, room, owner]
        )
        for (const r of records) out.push(JSON.parse(r) as DeliveryRecord)
        if (out.length >= limit) break
      }
      return out
    },
    async finishAttempt(delivery, owner, outcome) {
      const record = { ...delivery, ...outcome }
      await run(
        FINISH_ATTEMPT,
        [k(delivery.tenant, 'deliveries'), k(delivery.tenant, 'due'), k(delivery.tenant, 'leases')],
        [
          delivery.id,
          owner,
          JSON.stringify(record),
          outcome.status === 'pending' ? (outcome.next_attempt_at ?? '') : '',
        ]
      )
    },
    async dropDelivery(delivery) {
      await run(
        DROP_DELIVERY,
        [
          k(delivery.tenant, 'deliveries'),
          k(delivery.tenant, 'due'),
          k(delivery.tenant, 'leases'),
          k(delivery.tenant, `log:${delivery.webhook_id}`),
        ],
        [delivery.id]
      )
    },
    async setMark(tenant, webhookId, sessionId) {
      await guarded(() => client.sadd(k(tenant, 'marks'), `${webhookId}\u0000${sessionId}`))
    },
    async marksOf(tenant, sessionId) {
      const all = await guarded(() => client.smembers(k(tenant, 'marks')))
      return all
        .map((m) => m.split('\u0000'))
        .filter(([, s]) => s === sessionId)
        .map(([webhookId]) => webhookId)
    },
    async countStates(staleBefore) {
      // every tenant's listing index (found by SCAN: the fleet keeps no list of every tenant),
      // each member's brief (never its record) read in batches
      const counts: Record<string, number> = {}
      const at = now()
      for (const tenant of await indexedTenants()) {
        for await (const ids of indexPages(tenant)) {
          for (let i = 0; i < ids.length; i += BRIEF_BATCH) {
            const page = ids.slice(i, i + BRIEF_BATCH)
            const briefs = await readBriefs(tenant, page)
            for (const [brief, exp] of briefs) {
              const parsed = parseBrief(brief)
              if (!parsed || Number(exp) <= at) continue
              const state = sessionState(briefColumns(parsed), parsed.updated_at, staleBefore)
              counts[state] = (counts[state] ?? 0) + 1
            }
          }
        }
      }
      return counts
    },
  }
  return store
}
