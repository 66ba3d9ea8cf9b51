/**
 * @module http/routes/webhooks/delete
 * `DELETE /v1/webhooks/{id}`: a webhook, its log and its pending deliveries (never sent).
 */
import { deleteWebhook as remove } from '../../../service/webhooks.js'
import { problemResponses } from '../../problem.js'
import { emptyResponse, type AppRouteHandler } from '../../typed-response.js'
import { webhookRoute, type WebhookRoutesDeps } from './shared.js'

export const deleteWebhookRoute = webhookRoute({
  method: 'delete',
  path: '/v1/webhooks/{id}',
  summary: 'Delete a webhook (admin); its pending deliveries are not sent',
  responses: { 204: { description: 'Deleted' }, ...problemResponses(400, 401, 403, 404) },
})

/** The handler of `DELETE /v1/webhooks/{id}`. */
export const deleteWebhook =
  (deps: WebhookRoutesDeps): AppRouteHandler<typeof deleteWebhookRoute> =>
  async (c) => {
    await remove(deps.service, c.get('tenant'), c.req.valid('param').id)
    return emptyResponse(c, 204)
  }
