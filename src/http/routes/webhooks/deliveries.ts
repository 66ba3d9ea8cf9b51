/**
 * @module http/routes/webhooks/deliveries
 * `GET /v1/webhooks/{id}/deliveries`: the webhook's delivery log, newest first.
 */
import { createRoute } from '@hono/zod-openapi'
import { listDeliveries as list } from '../../../service/webhooks.js'
import { problemResponses } from '../../problem.js'
import { jsonText, jsonResponse, type AppRouteHandler } from '../../typed-response.js'
import { DeliveriesQuery, DeliveryList, WebhookIdParam } from './schemas.js'
import type { WebhookRoutesDeps } from './shared.js'

export const listDeliveriesRoute = createRoute({
  method: 'get',
  path: '/v1/webhooks/{id}/deliveries',
  tags: ['webhooks'],
  summary: "The webhook's deliveries (admin), newest first (the newest 100 are kept)",
  request: { params: WebhookIdParam, query: DeliveriesQuery },
  responses: {
    200: {
      description: 'The delivery log',
      content: { 'application/json': { schema: DeliveryList } },
    },
    ...problemResponses(400, 401, 403, 404),
  },
})

/** The handler of `GET /v1/webhooks/{id}/deliveries`. */
export const listDeliveries =
  (deps: WebhookRoutesDeps): AppRouteHandler<typeof listDeliveriesRoute> =>
  async (c) => {
    const deliveries = await list(
      deps.service,
      c.get('tenant'),
      c.req.valid('param').id,
      c.req.valid('query').limit
    )
    return jsonResponse(c, jsonText({ deliveries }), 200)
  }
