/**
 * @module http/routes/tools/list-tools
 * `GET /v1/tools`: a dialect's tool definitions in a provider's format.
 */
import type { z } from '@hono/zod-openapi'
import { flavourOf } from '../../../dialects/flavour.js'
import { DIALECTS } from '../../../dialects/registry.js'
import { formatTool, isStrictFormat, STRICT_FORMATS } from '../../../tools/formats.js'
import { problemResponses, ServiceError } from '../../problem.js'
import { ToolsQuery, ToolsReply } from '../../schemas.js'
import { operation } from '../../operation.js'
import { toolsRoute } from './shared.js'

export const listToolsRoute = toolsRoute({
  path: '/v1/tools',
  operationId: 'listTools',
  summary: "A dialect's tool definitions in a provider's format",
  request: { query: ToolsQuery },
  description: 'Tool definitions, shaped as the `format` provider takes them',
  schema: ToolsReply,
  problems: problemResponses('invalid-request', 'unauthorized'),
})

/** The operation `GET /v1/tools`: its route and its handler. */
export const listTools = operation(listToolsRoute, (c) => {
  const { dialect, format, strict: strictParam, flavour } = c.req.valid('query')
  const strict = strictParam === 'true'
  if (strict && !isStrictFormat(format)) {
    const detail = `strict=true applies to the formats ${STRICT_FORMATS.join(', ')}`
    throw new ServiceError('invalid-request', `${detail}; '${format}' has no strict mode.`, {
      errors: [{ pointer: '/query/strict', detail }],
    })
  }
  const tools = flavourOf(DIALECTS.get(dialect)!, flavour).tools.map((tool) =>
    formatTool(tool, format, { strict })
  )
  // formatTool builds each format's shape; the schema documents it
  const reply = { dialect, format, tools } as z.infer<typeof ToolsReply>
  return c.json(reply, 200)
})
