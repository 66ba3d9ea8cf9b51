/**
 * @module http/routes/tools/list-dialects
 * `GET /v1/dialects`: the dialects this service speaks.
 */
import { DIALECTS } from '../../../dialects/registry.js'
import { problemResponses } from '../../problem.js'
import { DialectsReply } from '../../schemas.js'
import { operation } from '../../operation.js'
import { toolsRoute } from './shared.js'

export const listDialectsRoute = toolsRoute({
  path: '/v1/dialects',
  operationId: 'listDialects',
  summary: 'The dialects this service speaks',
  description: 'Dialects',
  schema: DialectsReply,
  problems: problemResponses('unauthorized'),
})

const dialectsReply = {
  dialects: [...DIALECTS.values()].map((d) => ({
    name: d.name,
    tools: d.tools.map((t) => t.name),
    description: d.description,
  })),
}

/** The operation `GET /v1/dialects`: its route and its handler. */
export const listDialects = operation(listDialectsRoute, (c) => c.json(dialectsReply, 200))
