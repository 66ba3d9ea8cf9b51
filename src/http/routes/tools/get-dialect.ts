/**
 * @module http/routes/tools/get-dialect
 * `GET /v1/dialects/{name}`: one dialect, with the guidance its native gives beside the tool.
 */
import type { z } from '@hono/zod-openapi'
import { flavourNames, flavourOf } from '../../../dialects/flavour.js'
import { getDialect as registered } from '../../../dialects/registry.js'
import { problemResponses, ServiceError } from '../../problem.js'
import { DialectParams, DialectQuery, DialectReply } from '../../schemas.js'
import { operation } from '../../operation.js'
import { toolsRoute } from './shared.js'

export const getDialectRoute = toolsRoute({
  path: '/v1/dialects/{name}',
  operationId: 'getDialect',
  summary: 'One dialect, with the system-prompt guidance its native gives beside the tool',
  request: { params: DialectParams, query: DialectQuery },
  description: 'The dialect, in the flavour asked for (default: its first)',
  schema: DialectReply,
  problems: problemResponses(
    'invalid-session-id',
    'invalid-request',
    'unauthorized',
    'dialect-not-found'
  ),
})

/** The operation `GET /v1/dialects/{name}`: its route and its handler. */
export const getDialect = operation(getDialectRoute, (c) => {
  const { name } = c.req.valid('param')
  const { flavour } = c.req.valid('query')
  const found = registered(name)
  if (!found) throw new ServiceError('dialect-not-found', `No dialect '${name}'.`)
  const dialect = flavourOf(found, flavour)
  const flavours = flavourNames(found) as z.infer<typeof DialectReply>['flavours']
  const reply: z.infer<typeof DialectReply> = {
    name: dialect.name,
    flavour: flavours.length === 0 ? null : (flavour ?? flavours[0]),
    flavours,
    tools: dialect.tools.map((t) => t.name),
    description: dialect.description,
    system_prompt: dialect.systemPrompt ?? null,
  }
  return c.json(reply, 200)
})
