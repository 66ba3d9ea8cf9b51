/**
 * @module http/routes/webhooks/delete
 * `DELETE /v1/webhooks/{id}`: a webhook, its log and its pending deliveries (never sent).
 */
import { deleteWebhook as remove } from '../../../service/webhooks.js'
import { operation } from '../../operation.js'
import { audit } from '../../people/actor.js'
import { emptyResponse } from '../../typed-response.js'
import { webhookRoute, type WebhookRoutesDeps } from './shared.js'

export const deleteWebhookRoute = webhookRoute({
  method: 'delete',
  path: '/v1/webhooks/{id}',
  summary: 'Delete a webhook (admin); its pending deliveries are not sent',
  operationId: 'deleteWebhook',
  responses: { 204: { description: 'Deleted' } },
})

/** The operation `DELETE /v1/webhooks/{id}`: its route and its handler. */
export const deleteWebhook = operation(deleteWebhookRoute, async (c, deps: WebhookRoutesDeps) => {
  await remove(deps.service, c.get('tenant'), c.req.valid('param').id)
  await audit(c, deps.app, 'webhook.delete', c.req.valid('param').id)
  return emptyResponse(c, 204)
})
