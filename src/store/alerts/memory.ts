/**
 * @module store/alerts/memory
 * The memory store's alert records: maps, each operation one synchronous step.
 */
import { randomUUID } from 'node:crypto'
import { sessionState, type SessionKey } from '../../core/session.js'
import type { Transition } from '../../core/transitions.js'
import { briefColumns, type SessionBrief } from '../brief.js'
import { DELIVERY_LOG_LIMIT, WebhookQuotaError } from './types.js'
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

/** The memory alert store and the outbox writer its session store calls in each write. */
export function createMemoryAlerts(sessions: MemorySessions) {
  const webhooks = new Map<string, WebhookRecord>()
  const outbox = new Map<string, Leased<OutboxEvent>>()
  const deliveries = new Map<string, Leased<DeliveryRecord>>()
  const marks = new Set<string>()
  const scanMarks = new Map<string, number>()
  let seq = 0

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

  const add = (delivery: DeliveryRecord) => {
    if (deliveries.has(delivery.id)) return
    deliveries.set(delivery.id, { value: { ...delivery }, owner: null, leaseUntil: 0 })
    trim(delivery.tenant, delivery.webhook_id)
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
        if (d.value.tenant === tenant && d.value.webhook_id === id) deliveries.delete(key)
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
      add(delivery)
    },
    async scanStale(staleBefore) {
      let found = 0
      const tenants = tenantsWithWebhooks()
      for (const { tenant, brief } of sessions.live()) {
        if (!tenants.has(tenant)) continue
        // this scan covers last changes in [the previous scan's staleBefore, this one's); a
        // tenant's first scan only sets its mark (a stall older than its webhooks is not news)
        const from = scanMarks.get(tenant) ?? staleBefore
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
      const claimed: OutboxEvent[] = []
      for (const row of outbox.values()) {
        if (claimed.length >= limit) break
        if (row.leaseUntil > at) continue
        row.owner = owner
        row.leaseUntil = at + leaseMs
        claimed.push({ ...row.value, owner })
      }
      return claimed
    },
    async settleEvent(event, dispatch) {
      if (outbox.get(event.id)?.owner !== event.owner || !outbox.delete(event.id)) return
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
            deliveries.delete(key)
          }
        }
      }
      for (const webhookId of dispatch.clearMarks) {
        marks.delete(markKey(event.tenant, webhookId, event.session_id))
      }
      for (const delivery of dispatch.deliveries) add(delivery)
    },
    async claimDeliveries(owner, at, leaseMs, limit, roomOf) {
      const due = [...deliveries.values()]
        .filter(
          (d) =>
            d.value.status === 'pending' &&
            (d.value.next_attempt_at ?? Infinity) <= at &&
            d.leaseUntil <= at
        )
        .sort((a, b) => a.value.next_attempt_at! - b.value.next_attempt_at!)
      const taken = new Map<string, number>()
      const claimed: DeliveryRecord[] = []
      for (const d of due) {
        if (claimed.length >= limit) break
        const count = taken.get(d.value.tenant) ?? 0
        if (count >= roomOf(d.value.tenant)) continue
        taken.set(d.value.tenant, count + 1)
        d.owner = owner
        d.leaseUntil = at + leaseMs
        claimed.push({ ...d.value })
      }
      return claimed
    },
    async finishAttempt(delivery, owner, outcome) {
      const row = deliveries.get(delivery.id)
      if (!row || row.owner !== owner) return
      Object.assign(row.value, outcome)
      row.owner = null
      row.leaseUntil = 0
    },
    async dropDelivery(delivery) {
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
