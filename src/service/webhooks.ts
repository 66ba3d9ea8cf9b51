/**
 * @module service/webhooks
 * Managing a tenant's webhooks (docs/alerts.md): create, list, read, delete, test, rotate the
 * secret, read the delivery log. Secrets leave the service only in the replies of create and
 * rotate; every other view is `webhookView`, which has none.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { newSecret } from '../alerts/signature.js'
import { checkedAddress, TargetRefusedError, urlProblem, type Resolver } from '../alerts/target.js'
import {
  DELIVERY_LOG_LIMIT,
  WebhookQuotaError,
  type AlertStore,
  type DeliveryRecord,
  type WebhookFilter,
  type WebhookRecord,
  type WebhookSecret,
} from '../store/alerts/types.js'
import { ServiceError } from './errors.js'

/** How long a rotated-out secret still signs. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000

/** What the webhook use cases run on. */
export interface WebhookDeps {
  alerts: AlertStore | undefined
  now: () => number
  /** `WEBHOOK_ALLOW_PRIVATE`. */
  allowPrivate: boolean
  /** `MAX_WEBHOOKS_PER_TENANT`. */
  maxPerTenant: number
  /** How names resolve (tests pass their own). */
  resolver?: Resolver
  /** Tells the delivery worker that something is due now (a test delivery). */
  wake?: () => void
}

/** A new webhook as the request gives it (validated by its schema). */
export interface WebhookInput {
  url: string
  events: string[]
  format?: 'standard' | 'slack'
  delay_seconds?: number
  filter?: WebhookFilter
  description?: string | null
}

/** A webhook as every reply shows it: no secret. */
export type WebhookView = Omit<WebhookRecord, 'tenant' | 'secrets' | 'created_at'> & {
  created_at: string
}

/** A delivery as the log shows it. */
export interface DeliveryView {
  id: string
  type: string
  session_id: string | null
  status: DeliveryRecord['status']
  attempts: number
  last_status: number | null
  last_error: string | null
  next_attempt_at: string | null
  created_at: string
}

const iso = (ms: number) => new Date(ms).toISOString()

/** The view of a stored webhook (never its secrets). */
export const webhookView = (record: WebhookRecord): WebhookView => ({
  id: record.id,
  url: record.url,
  events: record.events,
  format: record.format,
  delay_seconds: record.delay_seconds,
  filter: record.filter,
  description: record.description,
  created_at: iso(record.created_at),
})

/** The view of a delivery. */
export const deliveryView = (d: DeliveryRecord): DeliveryView => ({
  id: d.id,
  type: d.type,
  session_id: d.session_id,
  status: d.status,
  attempts: d.attempts,
  last_status: d.last_status,
  last_error: d.last_error,
  next_attempt_at: d.next_attempt_at === null ? null : iso(d.next_attempt_at),
  created_at: iso(d.created_at),
})

const alertsOf = (deps: WebhookDeps): AlertStore => {
  if (!deps.alerts) {
    throw new ServiceError('webhooks-unsupported', 'This store keeps no webhooks.')
  }
  return deps.alerts
}

const webhookNotFound = (id: string) => new ServiceError('webhook-not-found', `No webhook '${id}'.`)

/** The tenant's webhook `id` with the store that holds it; another tenant's id is not found. */
async function storedWebhook(deps: WebhookDeps, tenant: string, id: string) {
  const alerts = alertsOf(deps)
  const record = await alerts.getWebhook(tenant, id)
  if (!record) throw webhookNotFound(id)
  return { alerts, record }
}

/** A delivery id, which is also its `webhook-id`. */
export const newDeliveryId = () => `msg_${randomBytes(16).toString('base64url')}`

/**
 * Refuses a URL that is not http(s), or whose host is (or resolves to) a loopback, private,
 * link-local or metadata address unless private targets are allowed.
 */
async function checkTarget(deps: WebhookDeps, url: string) {
  const problem = urlProblem(url)
  if (problem) {
    throw new ServiceError('invalid-webhook', `url ${problem}.`, {
      errors: [{ pointer: '/url', detail: problem }],
    })
  }
  try {
    await checkedAddress(new URL(url), { allowPrivate: deps.allowPrivate, resolver: deps.resolver })
  } catch (error) {
    const detail =
      error instanceof TargetRefusedError
        ? error.message
        : `the host does not resolve (${(error as Error).message})`
    throw new ServiceError('webhook-target-refused', `url: ${detail}.`, {
      errors: [{ pointer: '/url', detail }],
    })
  }
}

/**
 * Creates a webhook; its secret is in this reply only.
 * @throws ServiceError invalid-webhook, webhook-target-refused, webhook-quota-exceeded
 */
export async function createWebhook(
  deps: WebhookDeps,
  tenant: string,
  input: WebhookInput
): Promise<WebhookView & { secret: string }> {
  const alerts = alertsOf(deps)
  await checkTarget(deps, input.url)
  const secret = newSecret()
  const record: WebhookRecord = {
    id: `wh_${randomUUID().replaceAll('-', '')}`,
    tenant,
    url: input.url,
    events: [...new Set(input.events)],
    format: input.format ?? 'standard',
    delay_seconds: input.delay_seconds ?? 0,
    filter: input.filter ?? {},
    description: input.description ?? null,
    secrets: [{ secret, expires_at: null }],
    created_at: deps.now(),
  }
  try {
    await alerts.createWebhook(record, deps.maxPerTenant)
  } catch (error) {
    if (error instanceof WebhookQuotaError) {
      throw new ServiceError(
        'webhook-quota-exceeded',
        `The tenant holds ${error.cap} webhooks already (MAX_WEBHOOKS_PER_TENANT); delete one first.`
      )
    }
    throw error
  }
  return { ...webhookView(record), secret }
}

/** The tenant's webhooks, oldest first. */
export async function listWebhooks(deps: WebhookDeps, tenant: string): Promise<WebhookView[]> {
  return (await alertsOf(deps).listWebhooks(tenant)).map(webhookView)
}

/** One webhook of the tenant; another tenant's id is not found. */
export async function getWebhook(deps: WebhookDeps, tenant: string, id: string) {
  return webhookView((await storedWebhook(deps, tenant, id)).record)
}

/** Deletes a webhook with its log and pending deliveries (they are not sent). */
export async function deleteWebhook(deps: WebhookDeps, tenant: string, id: string) {
  if (!(await alertsOf(deps).deleteWebhook(tenant, id))) throw webhookNotFound(id)
}

/** Queues a `webhook.test` delivery now. */
export async function testWebhook(
  deps: WebhookDeps,
  tenant: string,
  id: string,
  body: (deliveryId: string, at: number, format: WebhookRecord['format']) => string
): Promise<{ delivery_id: string }> {
  const { alerts, record } = await storedWebhook(deps, tenant, id)
  const now = deps.now()
  const deliveryId = newDeliveryId()
  await alerts.addDelivery({
    id: deliveryId,
    tenant,
    webhook_id: id,
    type: 'webhook.test',
    session_id: null,
    status: 'pending',
    attempts: 0,
    last_status: null,
    last_error: null,
    next_attempt_at: now,
    created_at: now,
    body: body(deliveryId, now, record.format),
    waiting_since: null,
  })
  deps.wake?.()
  return { delivery_id: deliveryId }
}

/**
 * A new secret; the previous one keeps signing for 24 h (each delivery then carries both
 * signatures).
 */
export async function rotateWebhook(
  deps: WebhookDeps,
  tenant: string,
  id: string
): Promise<{ secret: string }> {
  const { alerts, record } = await storedWebhook(deps, tenant, id)
  const now = deps.now()
  const secret = newSecret()
  const kept: WebhookSecret[] = record.secrets
    .filter((s) => s.expires_at === null || s.expires_at > now)
    .map((s) => ({ secret: s.secret, expires_at: s.expires_at ?? now + ROTATION_OVERLAP_MS }))
  // a new secret and at most the two before it: a header carries at most three signatures
  const secrets = [{ secret, expires_at: null }, ...kept.slice(0, 2)]
  if (!(await alerts.setSecrets(tenant, id, secrets))) throw webhookNotFound(id)
  return { secret }
}

/** A webhook's deliveries, newest first. */
export async function listDeliveries(
  deps: WebhookDeps,
  tenant: string,
  id: string,
  limit = DELIVERY_LOG_LIMIT
): Promise<DeliveryView[]> {
  const { alerts } = await storedWebhook(deps, tenant, id)
  return (await alerts.listDeliveries(tenant, id, limit)).map(deliveryView)
}

/** The secrets that sign an attempt now: the current one and rotated-out ones not expired. */
export const signingSecrets = (record: WebhookRecord, now: number): string[] =>
  record.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => s.secret)
