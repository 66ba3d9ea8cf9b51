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
import { DELIVERY_LOG_LIMIT, WebhookQuotaError } from '../alerts/types.js'
import type { AlertStore, DeliveryRecord, OutboxEvent, WebhookRecord } from '../alerts/types.js'
import { guarded } from './errors.js'
import type { AlertCommand } from './scripts.js'
import type { KeyLayout } from './keys.js'

/** Log entries looked at past the excess when trimming (pending ones are skipped). */
const LOG_TRIM_LOOK = 100
/**
 * How long the id of a delivery trimmed from the log still keeps it from being added again: far
 * longer than a dispatch repeated by a second instance or after an event's lease (10 s) takes.
 */
const SEEN_MS = 3_600_000

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
  const run = <T>(command: AlertCommand, keyList: string[], args: (string | number)[]) =>
    guarded(() => client[command](keyList.length, ...keyList, ...args.map(String)) as Promise<T>)
  const claimed = new Map<string, Claimed>()

  const addDelivery = (d: DeliveryRecord) =>
    run<number>(
      'atAlertAddDelivery',
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
        SEEN_MS,
        LOG_TRIM_LOOK,
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
        'atAlertCreateWebhook',
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
        'atAlertDeleteWebhook',
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
          'atAlertScanStale',
          [k(tenant, 'scan'), keys.index(tenant), k(tenant, 'stale')],
          [staleBefore]
        )
      }
      return found
    },
    async claimEvents(owner, at, leaseMs, limit) {
      const events: OutboxEvent[] = []
      const leaseEnd = at + leaseMs
      const dirty = await run<string[]>(
        'atAlertClaimDirty',
        [keys.alertsDirty],
        [at, leaseEnd, limit]
      )
      for (const member of dirty) {
        const [tenant, sessionId] = JSON.parse(member) as [string, string]
        const list = keys.outbox({ tenant, sessionId })
        const raws = await guarded(() => client.lrange(list, 0, -1))
        if (raws.length === 0) {
          // drained (or a write that never happened): forget it unless a writer listed it again
          await run('atAlertReleaseDirty', [keys.alertsDirty], [member, leaseEnd])
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
          'atAlertDropWaiting',
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
        await run('atAlertReleaseDirty', [keys.alertsDirty], [member, leaseEnd])
      }
    },
    async claimDeliveries(owner, at, leaseMs, limit, roomOf) {
      const out: DeliveryRecord[] = []
      for (const tenant of await guarded(() => client.smembers(keys.alertsTenants))) {
        const room = Math.min(roomOf(tenant), limit - out.length)
        if (room <= 0) continue
        const records = await run<string[]>(
          'atAlertClaimDeliveries',
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
        'atAlertFinishAttempt',
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
        'atAlertDropDelivery',
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
