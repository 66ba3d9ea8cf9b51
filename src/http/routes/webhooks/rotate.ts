/**
 * @module http/routes/webhooks/rotate
 * `POST /v1/webhooks/{id}/rotate`: a new secret; the old one keeps signing for 24 h.
 */
import { rotateWebhook as rotate } from '../../../service/webhooks.js'
import { problemResponses } from '../../problem.js'
import { jsonReply } from '../../route-config.js'
import { jsonText, jsonResponse, type AppRouteHandler } from '../../typed-response.js'
import { WebhookSecretReply } from './schemas.js'
import { webhookRoute, type WebhookRoutesDeps } from './shared.js'

export const rotateWebhookRoute = webhookRoute({
  method: 'post',
  path: '/v1/webhooks/{id}/rotate',
  summary:
    'Rotate the secret (admin): for 24 h each delivery carries both signatures, space-separated',
  responses: {
    200: jsonReply('The new secret, shown only here', WebhookSecretReply),
    ...problemResponses(400, 401, 403, 404),
  },
})

/** The handler of `POST /v1/webhooks/{id}/rotate`. */
export const rotateWebhook =
  (deps: WebhookRoutesDeps): AppRouteHandler<typeof rotateWebhookRoute> =>
  async (c) => {
    const reply = await rotate(deps.service, c.get('tenant'), c.req.valid('param').id)
    return jsonResponse(c, jsonText(reply), 200)
  }
