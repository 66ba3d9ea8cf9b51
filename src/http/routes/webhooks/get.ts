/**
 * @module http/routes/webhooks/get
 * `GET /v1/webhooks/{id}`: one webhook, without its secret.
 */
import { createRoute } from '@hono/zod-openapi'
import { getWebhook as get } from '../../../service/webhooks.js'
import { problemResponses } from '../../problem.js'
import { jsonText, jsonResponse, type AppRouteHandler } from '../../typed-response.js'
import { Webhook, WebhookIdParam } from './schemas.js'
import type { WebhookRoutesDeps } from './shared.js'

export const getWebhookRoute = createRoute({
  method: 'get',
  path: '/v1/webhooks/{id}',
  tags: ['webhooks'],
  summary: 'One webhook (admin), without its secret',
  request: { params: WebhookIdParam },
  responses: {
    200: { description: 'The webhook', content: { 'application/json': { schema: Webhook } } },
    ...problemResponses(400, 401, 403, 404),
  },
})

/** The handler of `GET /v1/webhooks/{id}`. */
export const getWebhook =
  (deps: WebhookRoutesDeps): AppRouteHandler<typeof getWebhookRoute> =>
  async (c) => {
    const webhook = await get(deps.service, c.get('tenant'), c.req.valid('param').id)
    return jsonResponse(c, jsonText(webhook), 200)
  }
