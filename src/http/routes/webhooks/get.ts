/**
 * @module http/routes/webhooks/get
 * `GET /v1/webhooks/{id}`: one webhook, without its secret.
 */
import { getWebhook as get } from '../../../service/webhooks.js'
import { operation } from '../../operation.js'
import { jsonReply } from '../../route-config.js'
import { jsonText, jsonResponse } from '../../typed-response.js'
import { Webhook } from './schemas.js'
import { webhookRoute, type WebhookRoutesDeps } from './shared.js'

export const getWebhookRoute = webhookRoute({
  method: 'get',
  path: '/v1/webhooks/{id}',
  summary: 'One webhook (admin), without its secret',
  operationId: 'getWebhook',
  responses: {
    200: jsonReply('The webhook', Webhook),
  },
})

/** The operation `GET /v1/webhooks/{id}`: its route and its handler. */
export const getWebhook = operation(getWebhookRoute, async (c, deps: WebhookRoutesDeps) => {
  const webhook = await get(deps.service, c.get('tenant'), c.req.valid('param').id)
  return jsonResponse(c, jsonText(webhook), 200)
})
