/**
 * @module http/routes/webhooks/rotate
 * `POST /v1/webhooks/{id}/rotate`: a new secret; the old one keeps signing for 24 h.
 */
import { rotateWebhook as rotate } from '../../../service/webhooks.js'
import { operation } from '../../operation.js'
import { audit } from '../../people/actor.js'
import { jsonReply } from '../../route-config.js'
import { jsonText, jsonResponse } from '../../typed-response.js'
import { WebhookSecretReply } from './schemas.js'
import { webhookRoute, type WebhookRoutesDeps } from './shared.js'

export const rotateWebhookRoute = webhookRoute({
  method: 'post',
  path: '/v1/webhooks/{id}/rotate',
  summary:
    'Rotate the secret (admin): for 24 h each delivery carries both signatures, space-separated',
  operationId: 'rotateWebhookSecret',
  responses: {
    200: jsonReply('The new secret, shown only here', WebhookSecretReply),
  },
})

/** The operation `POST /v1/webhooks/{id}/rotate`: its route and its handler. */
export const rotateWebhook = operation(rotateWebhookRoute, async (c, deps: WebhookRoutesDeps) => {
  const reply = await rotate(deps.service, c.get('tenant'), c.req.valid('param').id)
  await audit(c, deps.app, 'webhook.rotate', c.req.valid('param').id)
  return jsonResponse(c, jsonText(reply), 200)
})
