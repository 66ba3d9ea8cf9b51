/**
 * @module http/routes/webhooks/test
 * `POST /v1/webhooks/{id}/test`: a `webhook.test` delivery, sent now.
 */
import { testWebhook as test } from '../../../service/webhooks.js'
import { operation } from '../../operation.js'
import { jsonReply } from '../../route-config.js'
import { jsonText, jsonResponse } from '../../typed-response.js'
import { TestDeliveryReply } from './schemas.js'
import { webhookRoute, type WebhookRoutesDeps } from './shared.js'

export const testWebhookRoute = webhookRoute({
  method: 'post',
  path: '/v1/webhooks/{id}/test',
  summary: 'Send a webhook.test delivery now (admin)',
  operationId: 'testWebhook',
  responses: {
    202: jsonReply('Queued; its outcome is in the delivery log', TestDeliveryReply),
  },
})

/** The body of a `webhook.test` delivery in a format. */
const testBody =
  (publicUrl: string | null, webhookId: string) =>
  (_deliveryId: string, at: number, format: 'standard' | 'slack') =>
    format === 'slack'
      ? JSON.stringify({
          text: `agent-todos test delivery for webhook ${webhookId}${publicUrl ? ` <${publicUrl}|open>` : ''}`,
        })
      : JSON.stringify({
          type: 'webhook.test',
          timestamp: new Date(at).toISOString(),
          data: { webhook_id: webhookId, url: publicUrl },
        })

/** The operation `POST /v1/webhooks/{id}/test`: its route and its handler. */
export const testWebhook = operation(testWebhookRoute, async (c, deps: WebhookRoutesDeps) => {
  const id = c.req.valid('param').id
  const reply = await test(
    deps.service,
    c.get('tenant'),
    id,
    testBody(deps.app.webhooks?.publicUrl ?? null, id)
  )
  return jsonResponse(c, jsonText(reply), 202)
})
