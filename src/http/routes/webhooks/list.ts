/**
 * @module http/routes/webhooks/list
 * `GET /v1/webhooks`: the tenant's webhooks, without secrets.
 */
import { createRoute } from '@hono/zod-openapi'
import { listWebhooks as list } from '../../../service/webhooks.js'
import { operation } from '../../operation.js'
import { problemResponses } from '../../problem.js'
import { jsonReply } from '../../route-config.js'
import { jsonText, jsonResponse } from '../../typed-response.js'
import { WebhookList } from './schemas.js'
import type { WebhookRoutesDeps } from './shared.js'

export const listWebhooksRoute = createRoute({
  method: 'get',
  path: '/v1/webhooks',
  tags: ['webhooks'],
  summary: "The tenant's webhooks (admin), oldest first, without secrets",
  operationId: 'listWebhooks',
  responses: {
    200: jsonReply('The webhooks', WebhookList),
    ...problemResponses('unauthorized', 'forbidden'),
  },
})

/** The operation `GET /v1/webhooks`: its route and its handler. */
export const listWebhooks = operation(listWebhooksRoute, async (c, deps: WebhookRoutesDeps) => {
  const webhooks = await list(deps.service, c.get('tenant'))
  return jsonResponse(c, jsonText({ webhooks }), 200)
})
