/**
 * @module http/routes/webhooks/delete
 * `DELETE /v1/webhooks/{id}`: a webhook, its log and its pending deliveries (never sent).
 */
import { createRoute } from '@hono/zod-openapi'
import { deleteWebhook as remove } from '../../../service/webhooks.js'
import { problemResponses } from '../../problem.js'
import { emptyResponse, type AppRouteHandler } from '../../typed-response.js'
import { WebhookIdParam } from './schemas.js'
import type { WebhookRoutesDeps } from './shared.js'

export const deleteWebhookRoute = createRoute({
  method: 'delete',
  path: '/v1/webhooks/{id}',
  tags: ['webhooks'],
  summary: 'Delete a webhook (admin); its pending deliveries are not sent',
  request: { params: WebhookIdParam },
  responses: { 204: { description: 'Deleted' }, ...problemResponses(400, 401, 403, 404) },
})

/** The handler of `DELETE /v1/webhooks/{id}`. */
export const deleteWebhook =
  (deps: WebhookRoutesDeps): AppRouteHandler<typeof deleteWebhookRoute> =>
  async (c) => {
    await remove(deps.service, c.get('tenant'), c.req.valid('param').id)
    return emptyResponse(c, 204)
  }
