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
 *
 * Tenants take turns: the fleet's dirty set (written by session writes) is sorted into each
 * tenant's own (`{tenant}:al:dirty`, the tenants listed in `<dirty>:tenants`) before a claim,
 * and a claim takes a share of each tenant's dirty sessions, stale list and due deliveries, the
 * first tenant after the last claim's: one tenant's backlog never hides another's work. A
 * session's deliveries to a webhook keep their order and a webhook's pending ones are bounded
 * (`lua/alerts-add-delivery.lua`).
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
import { inTurns, shareOf } from '../alerts/fair.js'
import {
  DELIVERY_LOG_LIMIT,
  DELIVERY_PENDING_LIMIT,
  OVERFLOW_ERROR,
  orderKeyOf,
  WebhookQuotaError,
} from '../alerts/types.js'
import type { AlertStore, DeliveryRecord, OutboxEvent, WebhookRecord } from '../alerts/types.js'
import { guarded } from './errors.js'
import type { AlertCommand } from './scripts.js'
import type { KeyLayout } from './keys.js'

/** Log entries looked at past the excess when trimming (pending ones are skipped). */
const LOG_TRIM_LOOK = 100
/** Entries of the fleet's dirty set sorted into the tenants' own per claim. */
const SORT_BATCH = 1000
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
  const eventTurns = { last: null as string | null }
  const staleTurns = { last: null as string | null }
  const deliveryTurns = { last: null as string | null }
  const dirtyTenants = `${keys.alertsDirty}:tenants`
  /** The keys of a tenant's delivery order and bound (`lua/alerts-add-delivery.lua`), in order. */
  const orderKeys = (tenant: string) =>
    ['queue', 'ordm', 'held', 'pending', 'pm'].map((name) => k(tenant, name))

  const addDelivery = (d: DeliveryRecord) =>
    run<string[]>(
      'atAlertAddDelivery',
      [
        k(d.tenant, 'deliveries'),
        k(d.tenant, 'due'),
        k(d.tenant, `log:${d.webhook_id}`),
        k(d.tenant, `seen:${d.webhook_id}`),
        k(d.tenant, 'leases'),
        k(d.tenant, 'seq'),
        ...orderKeys(d.tenant),
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
        (d.status === 'pending' ? orderKeyOf(d) : null) ?? '',
        d.webhook_id,
        DELIVERY_PENDING_LIMIT,
        OVERFLOW_ERROR,
      ]
    )

  /**
   * Sorts the fleet's due dirty sessions into their tenants' own sets: each is added to its
   * tenant's first, then left the fleet's set only if no write listed it again meanwhile.
   */
  const sortDirty = async (at: number) => {
    const flat = await guarded(() =>
      client.zrangebyscore(keys.alertsDirty, '-inf', at, 'WITHSCORES', 'LIMIT', 0, SORT_BATCH)
    )
    const byTenant = new Map<string, string[]>()
    for (let i = 0; i < flat.length; i += 2) {
      let tenant: string | undefined
      try {
        tenant = (JSON.parse(flat[i]) as [string, string])[0]
      } catch {
        tenant = undefined
      }
      if (typeof tenant !== 'string') continue
      const pairs = byTenant.get(tenant) ?? []
      pairs.push(flat[i + 1], flat[i])
      byTenant.set(tenant, pairs)
    }
    for (const [tenant, pairs] of byTenant) {
      await guarded(() => client.zadd(k(tenant, 'dirty'), ...pairs))
    }
    if (byTenant.size > 0) await guarded(() => client.sadd(dirtyTenants, ...byTenant.keys()))
    await Promise.all(
      Array.from({ length: flat.length / 2 }, (_, i) =>
        run('atAlertReleaseDirty', [keys.alertsDirty], [flat[2 * i], flat[2 * i + 1]])
      )
    )
  }

  /** Leases a share of a tenant's dirty sessions; a tenant with none left leaves the list. */
  const claimDirty = async (tenant: string, at: number, leaseEnd: number, share: number) => {
    const members = await run<string[]>(
      'atAlertClaimDirty',
      [k(tenant, 'dirty')],
      [at, leaseEnd, share]
    )
    if (members.length === 0 && (await guarded(() => client.zcard(k(tenant, 'dirty')))) === 0) {
      await guarded(() => client.srem(dirtyTenants, tenant))
      // sorted in meanwhile (added to the tenant's set before the list): listed again
      if ((await guarded(() => client.zcard(k(tenant, 'dirty')))) > 0) {
        await guarded(() => client.sadd(dirtyTenants, tenant))
      }
    }
    return members
  }

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
          ...orderKeys(tenant),
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
      return addDelivery(delivery)
    },
    async scanStale(staleBefore, staleAfterMs) {
      let found = 0
      for (const tenant of await guarded(() => client.smembers(keys.alertsTenants))) {
        const hooks = await store.listWebhooks(tenant)
        if (hooks.length === 0) continue
        // the mark never starts before the moment of the oldest webhook's creation
        const start = Math.min(...hooks.map((w) => w.created_at)) - staleAfterMs
        found += await run<number>(
          'atAlertScanStale',
          [k(tenant, 'scan'), keys.index(tenant), k(tenant, 'stale')],
          [staleBefore, start]
        )
      }
      return found
    },
    async claimEvents(owner, at, leaseMs, limit) {
      const events: OutboxEvent[] = []
      const leaseEnd = at + leaseMs
      await sortDirty(at)
      const tenants = inTurns(await guarded(() => client.smembers(dirtyTenants)), eventTurns)
      const share = shareOf(limit, tenants.length)
      for (const tenant of tenants) {
        if (events.length >= limit) break
        for (const member of await claimDirty(tenant, at, leaseEnd, share)) {
          const sessionId = (JSON.parse(member) as [string, string])[1]
          const list = keys.outbox({ tenant, sessionId })
          const raws = await guarded(() => client.lrange(list, 0, -1))
          if (raws.length === 0) {
            // drained (or a write that never happened): forget it unless a writer listed it again
            await run('atAlertReleaseDirty', [k(tenant, 'dirty')], [member, leaseEnd])
            continue
          }
          // the lease's end goes back in the score after the drain (`settleEvent` releases)
          for (const event of eventsOf(list, tenant, sessionId, raws)) {
            events.push({ ...event, owner: `${owner} ${leaseEnd} ${member}` })
          }
        }
      }
      // the tenants' stale lists, a share each: no lease (a stall dispatched twice adds nothing
      // twice)
      const withHooks = inTurns(
        await guarded(() => client.smembers(keys.alertsTenants)),
        staleTurns
      )
      const staleShare = shareOf(limit, withHooks.length)
      for (const tenant of withHooks) {
        const list = k(tenant, 'stale')
        const raws = await guarded(() => client.lrange(list, 0, staleShare - 1))
        for (const event of eventsOf(list, tenant, null, raws)) events.push({ ...event, owner })
      }
      return events
    },
    async settleEvent(event, dispatch) {
      const key = { tenant: event.tenant, sessionId: event.session_id }
      if (dispatch.dropWaiting) {
        await run(
          'atAlertDropWaiting',
          [k(event.tenant, 'deliveries'), k(event.tenant, 'due'), ...orderKeys(event.tenant)],
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
      const failed: string[] = []
      for (const delivery of dispatch.deliveries) failed.push(...(await addDelivery(delivery)))
      const where = claimed.get(event.id)
      if (!where) return failed
      claimed.delete(event.id)
      await guarded(() => client.lrem(where.list, 1, where.raw))
      // `owner leaseEnd member` (the member, JSON, may hold spaces)
      const [, leaseEnd, ...rest] = event.owner.split(' ')
      const member = rest.join(' ')
      if (member && (await guarded(() => client.llen(where.list))) === 0) {
        await run('atAlertReleaseDirty', [k(event.tenant, 'dirty')], [member, leaseEnd])
      }
      return failed
    },
    async claimDeliveries(owner, at, leaseMs, limit, roomOf) {
      const out: DeliveryRecord[] = []
      const tenants = await guarded(() => client.smembers(keys.alertsTenants))
      for (const tenant of inTurns(tenants, deliveryTurns)) {
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
        [
          k(delivery.tenant, 'deliveries'),
          k(delivery.tenant, 'due'),
          k(delivery.tenant, 'leases'),
          ...orderKeys(delivery.tenant),
        ],
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
          ...orderKeys(delivery.tenant),
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
