/**
 * @module store/alerts/types
 * What a store keeps for alerts (docs/alerts.md): a tenant's webhooks, the outbox of session
 * transitions (written by the session write that caused them, `core/transitions`), and the
 * deliveries made of them. Every claim is a lease: an instance that dies mid-delivery lets it go
 * when the lease runs out, and another (or the restarted one) delivers it, with the same id.
 */
import type { Transition } from '../../core/transitions.js'

/** One of a webhook's signing secrets; a rotated-out one signs until `expires_at`. */
export interface WebhookSecret {
  secret: string
  /** Epoch ms; null for the current secret. */
  expires_at: number | null
}

/** A webhook's filter: a session must match every field given. */
export interface WebhookFilter {
  source?: string
  user?: string
  repo?: string
  state?: string
  labels?: Record<string, string>
}

/** A webhook as stored. */
export interface WebhookRecord {
  id: string
  tenant: string
  url: string
  events: string[]
  format: 'standard' | 'slack'
  delay_seconds: number
  filter: WebhookFilter
  description: string | null
  secrets: WebhookSecret[]
  /** Epoch ms. */
  created_at: number
}

/** A transition waiting in the outbox to become deliveries. */
export interface OutboxEvent extends Transition {
  /** The outbox row's id. */
  id: string
  tenant: string
  session_id: string
  /** Who leased it: only that owner settles it (a lease that ran out was taken over). */
  owner: string
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** One event for one webhook: its log line and what is sent. */
export interface DeliveryRecord {
  /** `webhook-id`: the same on every attempt. */
  id: string
  tenant: string
  webhook_id: string
  type: string
  session_id: string | null
  status: DeliveryStatus
  attempts: number
  last_status: number | null
  last_error: string | null
  /** Epoch ms; null once delivered or failed. */
  next_attempt_at: number | null
  created_at: number
  /** The body, built when the event became this delivery. */
  body: string
  /** `session.waiting`: the wait this delivery tells of (`waiting.at`); sent only if it goes on. */
  waiting_since: number | null
}

/** What one attempt changed of a delivery. */
export interface AttemptOutcome {
  status: DeliveryStatus
  attempts: number
  last_status: number | null
  last_error: string | null
  next_attempt_at: number | null
}

/** What dispatching one outbox event does, in one atomic step. */
export interface Dispatch {
  /** New deliveries. */
  deliveries: DeliveryRecord[]
  /** Webhooks whose pending `session.waiting` of this session are dropped (the wait ended). */
  dropWaiting: boolean
  /** (webhook) marks of this session that are cleared: their `session.resumed` is made. */
  clearMarks: string[]
}

/** Refused: the tenant holds `MAX_WEBHOOKS_PER_TENANT` webhooks already. */
export class WebhookQuotaError extends Error {
  constructor(readonly cap: number) {
    super(`the tenant holds ${cap} webhooks already`)
    this.name = 'WebhookQuotaError'
  }
}

/**
 * How many deliveries a webhook's log keeps (the newest; a pending one stays until it is settled,
 * whatever its age); the README's Limits table says it.
 */
export const DELIVERY_LOG_LIMIT = 100

/**
 * How many pending deliveries a webhook holds at most. One more (a receiver down while a tenant's
 * agents keep changing) makes the oldest pending one that no attempt holds `failed`, with
 * {@link OVERFLOW_ERROR} as its `last_error` (and counted as `failed` in the metrics): the newest
 * state is kept, and what gave way is visible in the log.
 */
export const DELIVERY_PENDING_LIMIT = 1000

/** The `last_error` of a pending delivery that gave way to a newer one at the bound. */
export const OVERFLOW_ERROR = `dropped: ${DELIVERY_PENDING_LIMIT} newer deliveries were pending for this webhook`

/**
 * The order a delivery keeps (docs/alerts.md: a session's events reach a webhook in the order
 * they happened): `webhook \0 session` for an event of a session, whose delivery waits while an
 * earlier one of that session to that webhook is pending (its retries included); null for one
 * that keeps no order: `webhook.test`, and a `session.waiting` held for its webhook's
 * `delay_seconds` (a timer of its own: sent when the delay is over if the session still waits).
 * @param delivery - a delivery as it is added
 */
export const orderKeyOf = (
  delivery: Pick<
    DeliveryRecord,
    'webhook_id' | 'session_id' | 'type' | 'next_attempt_at' | 'created_at'
  >
): string | null =>
  delivery.session_id === null ||
  (delivery.type === 'session.waiting' &&
    (delivery.next_attempt_at ?? delivery.created_at) > delivery.created_at)
    ? null
    : `${delivery.webhook_id}\u0000${delivery.session_id}`

export interface AlertStore {
  /** Stores a new webhook unless the tenant holds `cap` already (one atomic step). */
  createWebhook(record: WebhookRecord, cap: number): Promise<void>
  listWebhooks(tenant: string): Promise<WebhookRecord[]>
  getWebhook(tenant: string, id: string): Promise<WebhookRecord | null>
  /** Replaces a webhook's secrets; false when there is no such webhook. */
  setSecrets(tenant: string, id: string, secrets: WebhookSecret[]): Promise<boolean>
  /** Deletes a webhook, its log and its pending deliveries; false when there was none. */
  deleteWebhook(tenant: string, id: string): Promise<boolean>
  /** A webhook's deliveries, newest first. */
  listDeliveries(tenant: string, webhookId: string, limit: number): Promise<DeliveryRecord[]>
  /**
   * Adds a delivery (`webhook.test`), trimming the webhook's log and keeping its pending ones
   * within {@link DELIVERY_PENDING_LIMIT}; answers the types of those that gave way (`failed`).
   */
  addDelivery(delivery: DeliveryRecord): Promise<string[]>
  /**
   * Puts `stale` events in the outbox for sessions of tenants with webhooks whose last change
   * fell between the tenant's scan mark and `staleBefore`, and moves the mark, in one step: each
   * stall is found once for the fleet. A tenant's mark starts at its oldest webhook's
   * `created_at - staleAfterMs` (and never before it), so every session whose moment (last
   * change + `staleAfterMs`) comes after a webhook was created is found, whatever the scan's
   * pace.
   */
  scanStale(staleBefore: number, staleAfterMs: number): Promise<number>
  /**
   * Leases up to `limit` outbox events for `leaseMs`, tenants in turns (each tenant a share, the
   * first tenant after the last call's): one tenant's backlog never hides another's events. A
   * tenant's events come in the order they were written.
   */
  claimEvents(owner: string, now: number, leaseMs: number, limit: number): Promise<OutboxEvent[]>
  /**
   * Turns a leased event into its deliveries and removes it, in one step; answers the types of
   * the pending deliveries that gave way at {@link DELIVERY_PENDING_LIMIT}.
   */
  settleEvent(event: OutboxEvent, dispatch: Dispatch): Promise<string[]>
  /**
   * Leases due pending deliveries for `leaseMs`: at most `limit`, and of each tenant at most
   * `roomOf(tenant)` (its concurrency bound less what it has in flight), tenants in turns (the
   * first one after the last call's), each tenant's own due ones only: however many one tenant
   * holds, another's are claimed at once. A delivery waits while an earlier one of its order
   * ({@link orderKeyOf}) is pending: it is not due until that one is delivered, failed or dropped.
   */
  claimDeliveries(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
    roomOf: (tenant: string) => number
  ): Promise<DeliveryRecord[]>
  /**
   * Records an attempt of a delivery this owner leased; a delivery deleted meanwhile stays so. A
   * delivery that ends (`delivered`, `failed`) lets the next of its order go.
   */
  finishAttempt(delivery: DeliveryRecord, owner: string, outcome: AttemptOutcome): Promise<void>
  /** Drops a leased delivery that must not be sent (a wait that ended); the next of its order goes. */
  dropDelivery(delivery: DeliveryRecord): Promise<void>
  /** Marks that a webhook told of a session's wait or stall (its `resumed` is due on a change). */
  setMark(tenant: string, webhookId: string, sessionId: string): Promise<void>
  /** The webhooks with a mark on a session. */
  marksOf(tenant: string, sessionId: string): Promise<string[]>
  /** Sessions by state across the store (`agent_todos_sessions`). */
  countStates(staleBefore: number): Promise<Record<string, number>>
}

/** The transitions a session store writes into the outbox, given by the store to the alert store. */
export type OutboxRows = Transition[]
