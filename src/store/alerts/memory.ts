/**
 * @module store/alerts/memory
 * The memory store's alert records: maps, each operation one synchronous step.
 */
import { randomUUID } from 'node:crypto'
import { sessionState, type SessionKey } from '../../core/session.js'
import type { Transition } from '../../core/transitions.js'
import { briefColumns, type SessionBrief } from '../brief.js'
import { inTurns, shareOf } from './fair.js'
import {
  DELIVERY_LOG_LIMIT,
  DELIVERY_PENDING_LIMIT,
  OVERFLOW_ERROR,
  orderKeyOf,
  WebhookQuotaError,
} from './types.js'
import type { AlertStore, DeliveryRecord, OutboxEvent, WebhookRecord } from './types.js'

/** What the alert records read of the memory store's sessions. */
export interface MemorySessions {
  /** Live sessions: tenant and brief. */
  live(): Iterable<{ tenant: string; brief: SessionBrief }>
}

interface Leased<T> {
  value: T
  owner: string | null
  leaseUntil: number
}

/** A delivery as kept: its lease, when it was added, and the order it keeps (`orderKeyOf`). */
interface Kept extends Leased<DeliveryRecord> {
  seq: number
  order: string | null
}

/** The memory alert store and the outbox writer its session store calls in each write. */
export function createMemoryAlerts(sessions: MemorySessions) {
  const webhooks = new Map<string, WebhookRecord>()
  const outbox = new Map<string, Leased<OutboxEvent>>()
  const deliveries = new Map<string, Kept>()
  /** Per tenant and order: the pending deliveries' ids, oldest first; the first one may go. */
  const orders = new Map<string, string[]>()
  const marks = new Set<string>()
  const scanMarks = new Map<string, number>()
  const eventTurns = { last: null as string | null }
  const deliveryTurns = { last: null as string | null }
  let seq = 0
  let added = 0

  const whKey = (tenant: string, id: string) => `${tenant}\u0000${id}`
  const markKey = (tenant: string, webhookId: string, sessionId: string) =>
    `${tenant}\u0000${webhookId}\u0000${sessionId}`
  const tenantsWithWebhooks = () => new Set([...webhooks.values()].map((w) => w.tenant))

  const append = (key: SessionKey, transitions: readonly Transition[]) => {
    for (const transition of transitions) {
      const id = String(++seq).padStart(12, '0')
      outbox.set(id, {
        value: { ...transition, id, tenant: key.tenant, session_id: key.sessionId, owner: '' },
        owner: null,
        leaseUntil: 0,
      })
    }
  }

  const trim = (tenant: string, webhookId: string) => {
    const log = [...deliveries.values()]
      .filter((d) => d.value.tenant === tenant && d.value.webhook_id === webhookId)
      .sort((a, b) => b.value.created_at - a.value.created_at)
    // a pending delivery is never trimmed: it leaves the log once settled (a receiver that was
    // down while more than the log's length piled up loses none of them)
    for (const old of log.slice(DELIVERY_LOG_LIMIT)) {
      if (old.value.status !== 'pending') deliveries.delete(old.value.id)
    }
  }

  const orderOf = (d: Kept) => (d.order === null ? null : `${d.value.tenant}\u0000${d.order}`)
  /** Whether a pending delivery may go: no earlier one of its order is pending. */
  const first = (d: Kept) => {
    const key = orderOf(d)
    return key === null || orders.get(key)?.[0] === d.value.id
  }
  /** A delivery leaves the pending ones (settled, dropped, deleted): the next of its order goes. */
  const unqueue = (d: Kept) => {
    const key = orderOf(d)
    const queue = key === null ? undefined : orders.get(key)
    if (!queue) return
    const at = queue.indexOf(d.value.id)
    if (at >= 0) queue.splice(at, 1)
    if (queue.length === 0) orders.delete(key!)
  }
  /** Keeps a webhook's pending ones within the bound: the oldest no attempt holds gives way. */
  const bound = (tenant: string, webhookId: string, at: number): string[] => {
    const pending = [...deliveries.values()]
      .filter(
        (d) =>
          d.value.tenant === tenant &&
          d.value.webhook_id === webhookId &&
          d.value.status === 'pending'
      )
      .sort((a, b) => a.seq - b.seq)
    const failed: string[] = []
    for (const d of pending) {
      if (pending.length - failed.length <= DELIVERY_PENDING_LIMIT) break
      if (d.leaseUntil > at) continue
      Object.assign(d.value, {
        status: 'failed',
        last_error: OVERFLOW_ERROR,
        next_attempt_at: null,
      })
      unqueue(d)
      failed.push(d.value.type)
    }
    return failed
  }

  const add = (delivery: DeliveryRecord): string[] => {
    if (deliveries.has(delivery.id)) return []
    const kept: Kept = {
      value: { ...delivery },
      owner: null,
      leaseUntil: 0,
      seq: ++added,
      order: orderKeyOf(delivery),
    }
    deliveries.set(delivery.id, kept)
    const key = orderOf(kept)
    if (key !== null && delivery.status === 'pending') {
      orders.set(key, [...(orders.get(key) ?? []), delivery.id])
    }
    const failed = bound(delivery.tenant, delivery.webhook_id, delivery.created_at)
    trim(delivery.tenant, delivery.webhook_id)
    return failed
  }

  /* eslint-disable @typescript-eslint/require-await */
  const store: AlertStore = {
    async createWebhook(record, cap) {
      const count = [...webhooks.values()].filter((w) => w.tenant === record.tenant).length
      if (count >= cap) throw new WebhookQuotaError(cap)
      webhooks.set(whKey(record.tenant, record.id), structuredClone(record))
    },
    async listWebhooks(tenant) {
      return [...webhooks.values()]
        .filter((w) => w.tenant === tenant)
        .sort((a, b) => a.created_at - b.created_at)
        .map((w) => structuredClone(w))
    },
    async getWebhook(tenant, id) {
      const found = webhooks.get(whKey(tenant, id))
      return found ? structuredClone(found) : null
    },
    async setSecrets(tenant, id, secrets) {
      const found = webhooks.get(whKey(tenant, id))
      if (!found) return false
      found.secrets = structuredClone(secrets)
      return true
    },
    async deleteWebhook(tenant, id) {
      if (!webhooks.delete(whKey(tenant, id))) return false
      for (const [key, d] of deliveries) {
        if (d.value.tenant === tenant && d.value.webhook_id === id) {
          unqueue(d)
          deliveries.delete(key)
        }
      }
      for (const mark of marks)
        if (mark.startsWith(whKey(tenant, id) + '\u0000')) marks.delete(mark)
      return true
    },
    async listDeliveries(tenant, webhookId, limit) {
      return [...deliveries.values()]
        .map((d) => d.value)
        .filter((d) => d.tenant === tenant && d.webhook_id === webhookId)
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map((d) => ({ ...d }))
    },
    async addDelivery(delivery) {
      return add(delivery)
    },
    async scanStale(staleBefore, staleAfterMs) {
      let found = 0
      const tenants = tenantsWithWebhooks()
      const starts = new Map<string, number>()
      for (const w of webhooks.values()) {
        starts.set(w.tenant, Math.min(starts.get(w.tenant) ?? Infinity, w.created_at))
      }
      for (const { tenant, brief } of sessions.live()) {
        if (!tenants.has(tenant)) continue
        // this scan covers last changes in [the previous scan's staleBefore, this one's); a
        // tenant's first covers those whose moment (last change + staleAfterMs) comes after its
        // oldest webhook was created (a stall older than its webhooks is not news)
        const from = Math.max(
          scanMarks.get(tenant) ?? Number.NEGATIVE_INFINITY,
          starts.get(tenant)! - staleAfterMs
        )
        const state = sessionState(briefColumns(brief), brief.updated_at, staleBefore)
        if (state === 'stale' && brief.updated_at >= from) {
          append({ tenant, sessionId: brief.session_id }, [{ kind: 'stale', at: brief.updated_at }])
          found++
        }
      }
      for (const tenant of tenants) scanMarks.set(tenant, staleBefore)
      return found
    },
    async claimEvents(owner, at, leaseMs, limit) {
      // each tenant's free events in the order written, tenants in turns
      const byTenant = new Map<string, Leased<OutboxEvent>[]>()
      for (const row of outbox.values()) {
        if (row.leaseUntil > at) continue
        const list = byTenant.get(row.value.tenant) ?? []
        list.push(row)
        byTenant.set(row.value.tenant, list)
      }
      const share = shareOf(limit, byTenant.size)
      const claimed: OutboxEvent[] = []
      for (const tenant of inTurns(byTenant.keys(), eventTurns)) {
        for (const row of byTenant.get(tenant)!.slice(0, Math.min(share, limit - claimed.length))) {
          row.owner = owner
          row.leaseUntil = at + leaseMs
          claimed.push({ ...row.value, owner })
        }
      }
      return claimed
    },
    async settleEvent(event, dispatch) {
      if (outbox.get(event.id)?.owner !== event.owner || !outbox.delete(event.id)) return []
      if (dispatch.dropWaiting) {
        for (const [key, d] of deliveries) {
          const v = d.value
          if (
            v.tenant === event.tenant &&
            v.session_id === event.session_id &&
            v.type === 'session.waiting' &&
            v.status === 'pending' &&
            v.attempts === 0
          ) {
            unqueue(d)
            deliveries.delete(key)
          }
        }
      }
      for (const webhookId of dispatch.clearMarks) {
        marks.delete(markKey(event.tenant, webhookId, event.session_id))
      }
      return dispatch.deliveries.flatMap((delivery) => add(delivery))
    },
    async claimDeliveries(owner, at, leaseMs, limit, roomOf) {
      // each tenant's own due ones (the first of their order), soonest first; tenants in turns
      const byTenant = new Map<string, Kept[]>()
      for (const d of deliveries.values()) {
        const v = d.value
        if (v.status !== 'pending' || (v.next_attempt_at ?? Infinity) > at || d.leaseUntil > at) {
          continue
        }
        if (!first(d)) continue
        const list = byTenant.get(v.tenant) ?? []
        list.push(d)
        byTenant.set(v.tenant, list)
      }
      const claimed: DeliveryRecord[] = []
      for (const tenant of inTurns(byTenant.keys(), deliveryTurns)) {
        const room = Math.min(roomOf(tenant), limit - claimed.length)
        if (room <= 0) continue
        const due = byTenant
          .get(tenant)!
          .sort((a, b) => a.value.next_attempt_at! - b.value.next_attempt_at! || a.seq - b.seq)
        for (const d of due.slice(0, room)) {
          d.owner = owner
          d.leaseUntil = at + leaseMs
          claimed.push({ ...d.value })
        }
      }
      return claimed
    },
    async finishAttempt(delivery, owner, outcome) {
      const row = deliveries.get(delivery.id)
      if (!row || row.owner !== owner) return
      Object.assign(row.value, outcome)
      row.owner = null
      row.leaseUntil = 0
      if (outcome.status !== 'pending') unqueue(row)
    },
    async dropDelivery(delivery) {
      const row = deliveries.get(delivery.id)
      if (row) unqueue(row)
      deliveries.delete(delivery.id)
    },
    async setMark(tenant, webhookId, sessionId) {
      marks.add(markKey(tenant, webhookId, sessionId))
    },
    async marksOf(tenant, sessionId) {
      const out: string[] = []
      for (const mark of marks) {
        const [t, webhookId, s] = mark.split('\u0000')
        if (t === tenant && s === sessionId) out.push(webhookId)
      }
      return out
    },
    async countStates(staleBefore) {
      const counts: Record<string, number> = {}
      for (const { brief } of sessions.live()) {
        const state = sessionState(briefColumns(brief), brief.updated_at, staleBefore)
        counts[state] = (counts[state] ?? 0) + 1
      }
      return counts
    },
  }
  /* eslint-enable @typescript-eslint/require-await */
  return { store, append, newId: () => randomUUID() }
}
