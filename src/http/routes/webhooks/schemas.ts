/**
 * @module http/routes/webhooks/schemas
 * The webhook operations' schemas: the one source of their validation and their OpenAPI.
 */
import { z } from '@hono/zod-openapi'
import { EVENT_TYPES } from '../../../alerts/formats.js'
import { SESSION_STATES, SESSION_SOURCES } from '../../../core/session.js'

export const WebhookIdParam = z.object({
  id: z
    .string()
    .regex(/^wh_[0-9a-f]{32}$/, 'a webhook id (wh_ and 32 hex digits)')
    .openapi({ param: { name: 'id', in: 'path' }, example: 'wh_0f1e2d3c4b5a69788796a5b4c3d2e1f0' }),
})

const EventTypeName = z.enum([...EVENT_TYPES, '*']).openapi('WebhookEventType')

const LABEL_NAME = /^[a-z][a-z0-9_.-]{0,62}$/

export const WebhookFilter = z
  .strictObject({
    source: z.enum(SESSION_SOURCES).optional(),
    user: z.string().min(1).max(256).optional(),
    repo: z.string().min(1).max(512).optional(),
    state: z.enum(SESSION_STATES).optional(),
    labels: z
      .record(z.string().regex(LABEL_NAME, 'a label name'), z.string().max(256))
      .refine((labels) => Object.keys(labels).length <= 16, 'at most 16 labels')
      .optional(),
  })
  .openapi('WebhookFilter', {
    description:
      'Only sessions matching every field given (origin and labels as sessions carry them)',
  })

export const WebhookCreate = z
  .strictObject({
    url: z
      .string()
      .max(2048)
      .openapi({ description: 'http(s); not in loopback, private, link-local or metadata ranges' }),
    events: z
      .array(EventTypeName)
      .min(1)
      .max(EVENT_TYPES.length + 1),
    format: z.enum(['standard', 'slack']).optional(),
    delay_seconds: z.number().int().min(0).max(3600).optional().openapi({
      description: 'session.waiting is sent only if the session still waits this long',
    }),
    filter: WebhookFilter.optional(),
    description: z.string().max(500).nullable().optional(),
  })
  .openapi('WebhookCreate')

/** The filter as a webhook shows it. */
const WebhookFilterView = z.object({
  source: z.string().optional(),
  user: z.string().optional(),
  repo: z.string().optional(),
  state: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
})

/** A webhook's fields (the registered schemas below are two flat objects: generators read no allOf). */
const WEBHOOK_FIELDS = {
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  format: z.enum(['standard', 'slack']),
  delay_seconds: z.number().int(),
  filter: WebhookFilterView,
  description: z.string().nullable(),
  created_at: z.string(),
}

export const Webhook = z.object(WEBHOOK_FIELDS).openapi('Webhook')

export const WebhookCreated = z
  .object({
    ...WEBHOOK_FIELDS,
    secret: z.string().openapi({ description: 'whsec_…: shown only in this reply' }),
  })
  .openapi('WebhookCreated')

export const WebhookList = z.object({ webhooks: z.array(Webhook) }).openapi('WebhookList')

export const WebhookSecretReply = z
  .object({ secret: z.string().openapi({ description: 'the new secret, shown only here' }) })
  .openapi('WebhookSecret')

export const TestDeliveryReply = z.object({ delivery_id: z.string() }).openapi('TestDelivery')

export const Delivery = z
  .object({
    id: z.string().openapi({ description: 'the webhook-id header of its attempts' }),
    type: z.string(),
    session_id: z.string().nullable(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    last_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('WebhookDelivery')

export const DeliveryList = z.object({ deliveries: z.array(Delivery) }).openapi('WebhookDeliveries')

export const DeliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
})
