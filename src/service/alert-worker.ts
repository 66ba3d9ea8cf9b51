/**
 * @module service/alert-worker
 * The delivery worker, off the request path (started and stopped by `server.ts`). Each tick:
 * - the stale scan (every few seconds): the store turns sessions whose last change passed
 *   `STALE_AFTER_SECONDS` into `stale` outbox events, once for the fleet;
 * - dispatch: leased outbox events (tenants in turns) become deliveries, one per matching
 *   webhook, in one store step;
 * - delivery: leased due deliveries are sent (SSRF-checked and pinned at every attempt,
 *   `alerts/send`), each tenant at most `perTenant` at a time and claimed in turns, so one
 *   tenant's hanging receiver or backlog cannot hold another's; a failure is retried on
 *   `WEBHOOK_RETRY_SCHEDULE`, then `failed`. A session's deliveries to a webhook go in order
 *   (the store holds a later one while an earlier one is pending, `orderKeyOf`).
 * Leases make a crash harmless: what a killed instance held is claimed again when its lease runs
 * out (a delivery may then repeat, with the same `webhook-id`).
 */
import { createHash, randomBytes } from 'node:crypto'
import { slackBody, standardBody, type AlertPayload, type EventType } from '../alerts/formats.js'
import { nextAttemptAt } from '../alerts/retry-schedule.js'
import { attemptDelivery } from '../alerts/send.js'
import { signatureHeader } from '../alerts/signature.js'
import type { Resolver } from '../alerts/target.js'
import type {
  AlertStore,
  DeliveryRecord,
  Dispatch,
  OutboxEvent,
  WebhookRecord,
} from '../store/alerts/types.js'
import type { SessionBrief } from '../store/brief.js'
import type { SessionStore } from '../store/types.js'
import { sessionSummary } from './views.js'
import { lastAnswered } from '../core/decisions.js'
import type { DecisionRequest, Session, SessionKey } from '../core/session.js'
import { signingSecrets } from './webhooks.js'

/** A session summary as an alert carries it (the listing's: origin, labels, state, progress…). */
export type AlertSummary = AlertPayload['session']

/** The delivery outcomes the metrics count. */
export type DeliveryResult = 'delivered' | 'retry' | 'failed' | 'dropped'

/** What the worker runs with (`createAlertWorker`). */
export interface AlertWorkerOptions {
  store: SessionStore
  now: () => number
  staleAfterMs: number
  /** `WEBHOOK_TIMEOUT_MS`. */
  timeoutMs: number
  /** `WEBHOOK_RETRY_SCHEDULE`, seconds. */
  retrySchedule: readonly number[]
  /** `WEBHOOK_ALLOW_PRIVATE`. */
  allowPrivate: boolean
  /** `PUBLIC_URL`, for the dashboard link; null without one. */
  publicUrl: string | null
  /** Slack interactivity is on (`SLACK_SIGNING_SECRET`): slack waiting alerts carry buttons. */
  slackButtons?: boolean
  resolver?: Resolver
  /** How often the worker looks for work (default 500 ms; a wake runs a tick sooner). */
  pollMs?: number
  /**
   * A session change wakes the worker this long after it (default 50 ms; changes meanwhile share
   * the wake), so a transition's outbox row is dispatched without waiting for the poll.
   */
  changeWakeMs?: number
  /** How often the stale scan runs (default 5 s: a stall is told within 15 s). */
  staleScanMs?: number
  /** Attempts of one tenant in flight at most (default 4). */
  perTenant?: number
  /** Attempts in flight at most (default 64). */
  maxInFlight?: number
  onDelivery?: (type: string, result: DeliveryResult) => void
  onError?: (error: unknown, what: string) => void
}

/** The worker's surface: `server.ts` starts it and stops it; a store step that made work wakes it. */
export interface AlertWorker {
  /** Starts polling (every `pollMs`) and listening for session changes; nothing without alerts. */
  start(): void
  /** Runs a tick soon (something became due). */
  wake(): void
  /** Stops taking work and waits (at most `graceMs`) for attempts in flight. */
  stop(graceMs?: number): Promise<void>
}

const matchesFilter = (webhook: WebhookRecord, summary: AlertSummary): boolean => {
  const { filter } = webhook
  const origin = (summary.origin ?? {}) as Record<string, unknown>
  const labels = (summary as { labels?: Record<string, string> }).labels ?? {}
  if (filter.source !== undefined && summary.source !== filter.source) return false
  if (filter.state !== undefined && summary.state !== filter.state) return false
  if (filter.user !== undefined && origin.user !== filter.user) return false
  if (filter.repo !== undefined && origin.repo !== filter.repo) return false
  for (const [name, value] of Object.entries(filter.labels ?? {})) {
    if (labels[name] !== value) return false
  }
  return true
}

/**
 * The id of an event's delivery to a webhook: derived, so a dispatch that runs twice (a lease
 * that ran out) adds the same delivery, which the store keeps once.
 */
const deliveryIdOf = (event: OutboxEvent, webhook: WebhookRecord) =>
  'msg_' +
  createHash('sha256')
    .update(
      [event.tenant, event.session_id, event.id, event.kind, event.at, webhook.id].join('\u0000')
    )
    .digest('base64url')
    .slice(0, 24)

const subscribes = (webhook: WebhookRecord, type: string) =>
  webhook.events.includes('*') || webhook.events.includes(type)

/**
 * The body of a delivery in its webhook's format.
 * @param format - the webhook's format
 * @param payload - the event
 */
export const bodyOf = (format: WebhookRecord['format'], payload: AlertPayload) =>
  format === 'slack' ? slackBody(payload) : standardBody(payload)

/** What the worker runs with: its options with their defaults, and its lease owner. */
interface WorkerSetup {
  options: AlertWorkerOptions
  /** This instance's lease owner. */
  owner: string
  pollMs: number
  staleScanMs: number
  perTenant: number
  maxInFlight: number
  changeWakeMs: number
  /** What a killed instance held is taken over after this: a dispatch is a few store steps. */
  eventLeaseMs: number
  /**
   * An attempt ends by its timeout (DNS, then the request, each bounded by it); the lease
   * outlives both with a margin for the store's writes.
   */
  deliveryLeaseMs: number
}

/**
 * What the worker's loop holds between ticks: one per worker, handed to each step explicitly.
 * Attempts end (and `stop` runs) while a tick awaits, so the steps read it live.
 */
interface WorkerState {
  /** Attempts in flight per tenant. */
  inFlight: Map<string, number>
  /** Attempts in flight. */
  attempts: Set<Promise<void>>
  /** When the stale scan last ran. */
  lastScan: number
  /** A tick runs. */
  running: boolean
  /** Not started, or stopped. */
  stopped: boolean
  /** A wake came while a tick ran: run another. */
  again: boolean
  timer?: NodeJS.Timeout
  changeWake?: NodeJS.Timeout
  unsubscribe?: () => void
}

/** One tick's reach: the setup, the live state, the alert store, and how to run a tick soon. */
interface Loop {
  setup: WorkerSetup
  state: WorkerState
  store: AlertStore
  wake: () => void
}

/** Resolves the options' defaults; a fresh lease owner. */
function setupOf(options: AlertWorkerOptions): WorkerSetup {
  return {
    options,
    owner: randomBytes(8).toString('hex'),
    pollMs: options.pollMs ?? 500,
    staleScanMs: options.staleScanMs ?? 5000,
    perTenant: options.perTenant ?? 4,
    maxInFlight: options.maxInFlight ?? 64,
    changeWakeMs: options.changeWakeMs ?? 50,
    eventLeaseMs: 10_000,
    deliveryLeaseMs: 2 * options.timeoutMs + 5000,
  }
}

const staleBeforeOf = (options: AlertWorkerOptions) => options.now() - options.staleAfterMs

/** The dashboard link (`PUBLIC_URL`) for a session, or null. */
const linkOf = (publicUrl: string | null, sessionId: string | null) =>
  publicUrl === null
    ? null
    : `${publicUrl.replace(/\/+$/, '')}/${sessionId ? `#session=${encodeURIComponent(sessionId)}` : ''}`

/** Where a session's requests are answered (`PUBLIC_URL`), or null. */
const decideUrlOf = (publicUrl: string | null, sessionId: string) =>
  publicUrl === null
    ? null
    : `${publicUrl.replace(/\/+$/, '')}/v1/sessions/${encodeURIComponent(sessionId)}/decisions`

/** Counts the pending deliveries that gave way at a webhook's bound (`failed` in the log). */
const countOverflowed = (options: AlertWorkerOptions, overflowed: string[]) => {
  for (const type of overflowed) options.onDelivery?.(type, 'failed')
}

/** What an event tells a webhook, and about which session. */
interface EventPayload {
  options: AlertWorkerOptions
  event: OutboxEvent
  type: EventType
  brief: SessionBrief
  summary: AlertSummary
  decision: AlertPayload['decision']
}

/** The payload of an event's delivery (the same for every webhook it goes to). */
function payloadOf({ options, event, type, brief, summary, decision }: EventPayload): AlertPayload {
  const waiting = event.kind === 'waiting'
  return {
    type,
    at: event.at,
    session: summary,
    waiting:
      waiting && brief.waiting
        ? {
            reason: brief.waiting.reason,
            message: brief.waiting.message,
            since: new Date(brief.waiting.at).toISOString(),
            ...requestOf(brief.waiting.request, decideUrlOf(options.publicUrl, event.session_id)),
          }
        : undefined,
    decision,
    ...(waiting && options.slackButtons && brief.waiting?.request
      ? {
          slackDecision: {
            tenant: event.tenant,
            session_id: event.session_id,
            request_id: brief.waiting.request.id,
            tool: brief.waiting.request.tool,
          },
        }
      : {}),
    ended:
      event.kind === 'ended' && brief.ended
        ? {
            outcome: brief.ended.outcome,
            detail: brief.ended.detail,
            at: new Date(brief.ended.at).toISOString(),
            unfinished: brief.ended.unfinished,
          }
        : undefined,
    url: linkOf(options.publicUrl, event.session_id),
  }
}

/** An event's delivery to one webhook, due now (a wait's after the webhook's delay). */
function deliveryOf(
  event: OutboxEvent,
  webhook: WebhookRecord,
  payload: AlertPayload,
  now: number
): DeliveryRecord {
  const waiting = event.kind === 'waiting'
  return {
    id: deliveryIdOf(event, webhook),
    tenant: event.tenant,
    webhook_id: webhook.id,
    type: payload.type,
    session_id: event.session_id,
    status: 'pending',
    attempts: 0,
    last_status: null,
    last_error: null,
    next_attempt_at: waiting
      ? Math.max(now, (event.since ?? event.at) + webhook.delay_seconds * 1000)
      : now,
    created_at: now,
    body: bodyOf(webhook.format, payload),
    waiting_since: waiting ? (event.since ?? event.at) : null,
  }
}

/** Turns one leased outbox event into its deliveries. */
async function dispatch(options: AlertWorkerOptions, store: AlertStore, event: OutboxEvent) {
  const type = `session.${event.kind}` as EventType
  const key = { tenant: event.tenant, sessionId: event.session_id }
  const none: Dispatch = { deliveries: [], dropWaiting: false, clearMarks: [] }
  const webhooks = await store.listWebhooks(event.tenant)
  const brief = webhooks.length > 0 ? await options.store.brief(key) : null
  if (!brief) return countOverflowed(options, await store.settleEvent(event, none))
  const summary: AlertSummary = sessionSummary(brief, staleBeforeOf(options))
  let targets = webhooks.filter((w) => subscribes(w, type))
  const plan: Dispatch = { ...none }
  if (event.kind === 'stale') {
    // still the stall the scan found: no change since, still unfinished and not waiting; told
    // to the webhooks created before its moment (the last change + STALE_AFTER_SECONDS)
    if (brief.updated_at !== event.at || summary.state !== 'stale') targets = []
    targets = targets.filter((w) => w.created_at <= event.at + options.staleAfterMs)
  } else if (event.kind === 'resumed') {
    const marked = await store.marksOf(event.tenant, event.session_id)
    targets = targets.filter((w) => marked.includes(w.id))
    plan.clearMarks = marked
    plan.dropWaiting = true
  }
  const now = options.now()
  const decision = event.kind === 'decided' ? await decisionOf(options.store, key) : undefined
  if (event.kind === 'decided' && !decision) targets = []
  plan.deliveries = targets
    .filter((w) => matchesFilter(w, summary))
    .map((w) => {
      const payload = payloadOf({ options, event, type, brief, summary, decision })
      return deliveryOf(event, w, payload, now)
    })
  countOverflowed(options, await store.settleEvent(event, plan))
}

/** One attempt of one leased delivery. */
async function deliver(setup: WorkerSetup, store: AlertStore, delivery: DeliveryRecord) {
  const { options, owner } = setup
  const webhook = await store.getWebhook(delivery.tenant, delivery.webhook_id)
  if (!webhook) return store.dropDelivery(delivery)
  if (delivery.session_id !== null && delivery.type === 'session.waiting') {
    const brief = await options.store.brief({
      tenant: delivery.tenant,
      sessionId: delivery.session_id,
    })
    // a wait that ended before its delay sends nothing
    if (!brief?.waiting || brief.waiting.at < (delivery.waiting_since ?? 0)) {
      options.onDelivery?.(delivery.type, 'dropped')
      return store.dropDelivery(delivery)
    }
  }
  if (
    delivery.session_id !== null &&
    (delivery.type === 'session.waiting' || delivery.type === 'session.stale')
  ) {
    // before the attempt: a change from now on owes this webhook a `session.resumed`
    await store.setMark(delivery.tenant, webhook.id, delivery.session_id)
  }
  const at = options.now()
  const timestamp = Math.floor(at / 1000)
  const result = await attemptDelivery({
    url: webhook.url,
    body: delivery.body,
    timeoutMs: options.timeoutMs,
    allowPrivate: options.allowPrivate,
    resolver: options.resolver,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'agent-todos-webhooks',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(
        signingSecrets(webhook, at),
        delivery.id,
        timestamp,
        delivery.body
      ),
    },
  })
  const made = delivery.attempts + 1
  const next =
    result.ok || result.refused ? null : nextAttemptAt(made, options.now(), options.retrySchedule)
  const status = result.ok ? 'delivered' : next === null ? 'failed' : 'pending'
  // no part of the receiver's reply is kept (send.ts never reads it)
  const error = result.error
  await store.finishAttempt(delivery, owner, {
    status,
    attempts: made,
    last_status: result.status,
    last_error: error,
    next_attempt_at: next,
  })
  options.onDelivery?.(delivery.type, status === 'pending' ? 'retry' : status)
}

/** Starts one attempt, counted in flight (for its tenant) until it ends; then a tick runs soon. */
function startAttempt({ setup, state, store, wake }: Loop, delivery: DeliveryRecord) {
  const { inFlight, attempts } = state
  inFlight.set(delivery.tenant, (inFlight.get(delivery.tenant) ?? 0) + 1)
  const attempt = deliver(setup, store, delivery)
    .catch((error) => setup.options.onError?.(error, 'delivery'))
    .finally(() => {
      const left = (inFlight.get(delivery.tenant) ?? 1) - 1
      if (left > 0) inFlight.set(delivery.tenant, left)
      else inFlight.delete(delivery.tenant)
      attempts.delete(attempt)
      wake()
    })
  attempts.add(attempt)
}

/** One tick: the stale scan when due, the leased events dispatched, due deliveries started. */
async function tick(loop: Loop) {
  const { setup, state, store } = loop
  const { options, owner } = setup
  const now = options.now()
  if (now - state.lastScan >= setup.staleScanMs) {
    state.lastScan = now
    await store.scanStale(staleBeforeOf(options), options.staleAfterMs)
  }
  // a session whose event failed to dispatch: its later ones wait for it (its lease runs out
  // and it is dispatched again, then they are), so its deliveries keep their order
  const held = new Set<string>()
  for (const event of await store.claimEvents(owner, now, setup.eventLeaseMs, 100)) {
    const session = `${event.tenant}\u0000${event.session_id}`
    if (held.has(session)) continue
    try {
      await dispatch(options, store, event)
    } catch (error) {
      held.add(session)
      options.onError?.(error, 'dispatch')
    }
  }
  const free = setup.maxInFlight - state.attempts.size
  if (free <= 0 || state.stopped) return
  const roomOf = (tenant: string) => setup.perTenant - (state.inFlight.get(tenant) ?? 0)
  const due = await store.claimDeliveries(owner, options.now(), setup.deliveryLeaseMs, free, roomOf)
  for (const delivery of due) startAttempt(loop, delivery)
}

/**
 * Creates the worker: `start` polls and listens for session changes, `wake` runs a tick soon,
 * `stop` waits for the attempts in flight. A tick is `tick`: dispatch (`dispatch`), then
 * attempts (`startAttempt`, `deliver`).
 * @param options - store, clock, delivery settings and the summary function
 */
export function createAlertWorker(options: AlertWorkerOptions): AlertWorker {
  const alerts: AlertStore | undefined = options.store.alerts
  const setup = setupOf(options)
  const state: WorkerState = {
    inFlight: new Map(),
    attempts: new Set(),
    lastScan: 0,
    running: false,
    stopped: true,
    again: false,
  }

  const run = async () => {
    if (state.running || state.stopped || !alerts) {
      state.again = state.running
      return
    }
    state.running = true
    const loop: Loop = { setup, state, store: alerts, wake }
    try {
      do {
        state.again = false
        await tick(loop)
      } while (state.again && !state.stopped)
    } catch (error) {
      options.onError?.(error, 'tick')
    } finally {
      state.running = false
    }
  }

  function wake() {
    if (state.stopped) return
    if (state.running) {
      state.again = true
      return
    }
    setImmediate(() => void run())
  }

  function start() {
    if (!alerts || !state.stopped) return
    state.stopped = false
    state.timer = setInterval(() => void run(), setup.pollMs)
    state.timer.unref()
    state.unsubscribe = options.store.subscribe(() => {
      if (state.changeWake || state.stopped) return
      state.changeWake = setTimeout(() => {
        state.changeWake = undefined
        wake()
      }, setup.changeWakeMs)
      state.changeWake.unref()
    })
    wake()
  }

  async function stop(graceMs = 5000) {
    state.stopped = true
    if (state.timer) clearInterval(state.timer)
    if (state.changeWake) clearTimeout(state.changeWake)
    state.unsubscribe?.()
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref())
    await Promise.race([Promise.allSettled([...state.attempts]).then(() => undefined), grace])
    while (state.running) await new Promise((resolve) => setTimeout(resolve, 10))
  }

  return { start, wake, stop }
}

/**
 * A `session.waiting` body's pending request (without what only the service reads) and where to
 * answer it; nothing when the wait has none.
 * @param request - the wait's request
 * @param url - the decisions URL, or null
 */
function requestOf(request: DecisionRequest | undefined, url: string | null) {
  if (!request) return {}
  const { match: _match, at: _at, ...shown } = request
  return {
    request: { ...shown, expires_at: new Date(shown.expires_at).toISOString() },
    decide_url: url,
  }
}

/** The last person's answer of a session (`session.decided`), or undefined. */
async function decisionOf(store: SessionStore, key: SessionKey) {
  const record = lastAnswered((await store.get(key)) ?? ({} as Session))
  const answer = record?.answer
  if (!answer || !['allowed', 'denied', 'answered'].includes(answer.outcome)) return undefined
  return {
    request_id: record.request.id,
    outcome: answer.outcome,
    by: answer.by,
    channel: answer.channel,
  }
}
