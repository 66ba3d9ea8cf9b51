/**
 * @module http/routes/webhooks/create
 * `POST /v1/webhooks`: a new webhook; its secret is in this reply only.
 */
import { createRoute } from '@hono/zod-openapi'
import { createWebhook as create } from '../../../service/webhooks.js'
import { operation } from '../../operation.js'
import { audit } from '../../people/actor.js'
import { problemResponses } from '../../problem.js'
import { jsonReply } from '../../route-config.js'
import { jsonText, jsonResponse } from '../../typed-response.js'
import { WebhookCreate, WebhookCreated } from './schemas.js'
import type { WebhookRoutesDeps } from './shared.js'

export const createWebhookRoute = createRoute({
  method: 'post',
  path: '/v1/webhooks',
  tags: ['webhooks'],
  summary: 'Create a webhook (admin): alerts of sessions that wait, stall, finish or end',
  operationId: 'createWebhook',
  request: { body: { required: true, content: { 'application/json': { schema: WebhookCreate } } } },
  responses: {
    201: jsonReply('Created; `secret` is shown only here', WebhookCreated),
    ...problemResponses(
      'invalid-webhook',
      'invalid-request',
      'malformed-json',
      'body-too-deep',
      'unauthorized',
      'forbidden',
      'webhook-quota-exceeded',
      'body-too-large',
      'webhook-target-refused'
    ),
  },
})

/** The operation `POST /v1/webhooks`: its route and its handler. */
export const createWebhook = operation(createWebhookRoute, async (c, deps: WebhookRoutesDeps) => {
  const created = await create(deps.service, c.get('tenant'), c.req.valid('json'))
  await audit(c, deps.app, 'webhook.create', created.id, {
    events: created.events,
    format: created.format,
  })
  return jsonResponse(c, jsonText(created), 201)
})
