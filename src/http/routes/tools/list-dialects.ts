/**
 * @module http/routes/tools/list-dialects
 * `GET /v1/dialects`: the dialects this service speaks.
 */
import { createRoute } from '@hono/zod-openapi'
import { DIALECTS } from '../../../dialects/registry.js'
import { problemResponses } from '../../problem.js'
import { DialectsReply } from '../../schemas.js'
import type { AppRouteHandler } from '../../typed-response.js'
import { etagHeader } from './shared.js'

export const listDialectsRoute = createRoute({
  method: 'get',
  path: '/v1/dialects',
  operationId: 'listDialects',
  tags: ['tools'],
  summary: 'The dialects this service speaks',
  responses: {
    200: {
      description: 'Dialects',
      headers: etagHeader,
      content: { 'application/json': { schema: DialectsReply } },
    },
    304: { description: 'Not modified (If-None-Match)' },
    ...problemResponses(401),
  },
})

const dialectsReply = {
  dialects: [...DIALECTS.values()].map((d) => ({
    name: d.name,
    tools: d.tools.map((t) => t.name),
    description: d.description,
  })),
}

/** The handler of `GET /v1/dialects`. */
export const listDialects: AppRouteHandler<typeof listDialectsRoute> = (c) =>
  c.json(dialectsReply, 200)
