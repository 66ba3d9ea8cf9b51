/**
 * @module http/routes/tools
 * The dialects and their tool definitions in each provider format.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { DIALECTS } from '../../dialects/registry.js'
import { formatTool } from '../../tools/formats.js'
import type { AppEnv } from '../env.js'
import { problemResponses } from '../problem.js'
import { DialectsReply, ToolsQuery, ToolsReply } from '../schemas.js'

const listDialects = createRoute({
  method: 'get',
  path: '/v1/dialects',
  tags: ['tools'],
  summary: 'The dialects this service speaks',
  responses: {
    200: { description: 'Dialects', content: { 'application/json': { schema: DialectsReply } } },
    ...problemResponses(401),
  },
})

const listTools = createRoute({
  method: 'get',
  path: '/v1/tools',
  tags: ['tools'],
  summary: "A dialect's tool definitions in a provider's format",
  request: { query: ToolsQuery },
  responses: {
    200: {
      description: 'Tool definitions',
      content: { 'application/json': { schema: ToolsReply } },
    },
    ...problemResponses(400, 401),
  },
})

const dialectsReply = {
  dialects: [...DIALECTS.values()].map((d) => ({
    name: d.name,
    tools: d.tools.map((t) => t.name),
    description: d.description,
  })),
}

/** Registers the tools routes. */
export function registerToolRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listDialects, (c) => c.json(dialectsReply, 200))
  app.openapi(listTools, (c) => {
    const { dialect, format } = c.req.valid('query')
    const tools = DIALECTS.get(dialect)!.tools.map((tool) => formatTool(tool, format))
    return c.json({ dialect, format, tools }, 200)
  })
}
