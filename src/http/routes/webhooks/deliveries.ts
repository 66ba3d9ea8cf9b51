/**
 * @module http/routes/webhooks/deliveries
 * `GET /v1/webhooks/{id}/deliveries`: the webhook's delivery log, newest first.
 */
import { listDeliveries as list } from '../../../service/webhooks.js'
import { operation } from '../../operation.js'
import { jsonReply } from '../../route-config.js'
import { jsonText, jsonResponse } from '../../typed-response.js'
import { DeliveriesQuery, DeliveryList } from './schemas.js'
import { webhookRoute, type WebhookRoutesDeps } from './shared.js'

export const listDeliveriesRoute = webhookRoute({
  method: 'get',
  path: '/v1/webhooks/{id}/deliveries',
  summary: "The webhook's deliveries (admin), newest first (the newest 100 are kept)",
  operationId: 'listWebhookDeliveries',
  request: { query: DeliveriesQuery },
  responses: {
    200: jsonReply('The delivery log', DeliveryList),
  },
})

/** The operation `GET /v1/webhooks/{id}/deliveries`: its route and its handler. */
export const listDeliveries = operation(listDeliveriesRoute, async (c, deps: WebhookRoutesDeps) => {
  const deliveries = await list(
    deps.service,
    c.get('tenant'),
    c.req.valid('param').id,
    c.req.valid('query').limit
  )
  return jsonResponse(c, jsonText({ deliveries }), 200)
})
