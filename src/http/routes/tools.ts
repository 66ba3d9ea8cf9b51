/**
 * @module http/routes/tools
 * The dialects and their tool definitions in each provider format.
 */
import { createRoute, type OpenAPIHono, type z } from '@hono/zod-openapi'
import { flavourNames, flavourOf } from '../../dialects/flavour.js'
import { DIALECTS, getDialect } from '../../dialects/registry.js'
import { formatTool, isStrictFormat, STRICT_FORMATS } from '../../tools/formats.js'
import type { AppEnv } from '../context.js'
import { ProblemError, problemResponses } from '../problem.js'
import {
  DialectParams,
  DialectQuery,
  DialectReply,
  DialectsReply,
  ToolsQuery,
  ToolsReply,
} from '../schemas.js'

const etagHeader = {
  ETag: { schema: { type: 'string' as const }, description: 'a hash of the body' },
}

const listDialects = createRoute({
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

const getDialectRoute = createRoute({
  method: 'get',
  path: '/v1/dialects/{name}',
  operationId: 'getDialect',
  tags: ['tools'],
  summary: 'One dialect, with the system-prompt guidance its native gives beside the tool',
  request: { params: DialectParams, query: DialectQuery },
  responses: {
    200: {
      description: 'The dialect, in the flavour asked for (default: its first)',
      headers: etagHeader,
      content: { 'application/json': { schema: DialectReply } },
    },
    304: { description: 'Not modified (If-None-Match)' },
    ...problemResponses(400, 401, 404),
  },
})

const listTools = createRoute({
  method: 'get',
  path: '/v1/tools',
  operationId: 'listTools',
  tags: ['tools'],
  summary: "A dialect's tool definitions in a provider's format",
  request: { query: ToolsQuery },
  responses: {
    200: {
      description: 'Tool definitions, shaped as the `format` provider takes them',
      headers: etagHeader,
      content: { 'application/json': { schema: ToolsReply } },
    },
    304: { description: 'Not modified (If-None-Match)' },
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
  app.openapi(getDialectRoute, (c) => {
    const { name } = c.req.valid('param')
    const { flavour } = c.req.valid('query')
    const registered = getDialect(name)
    if (!registered) throw new ProblemError(404, 'dialect-not-found', `No dialect '${name}'.`)
    const dialect = flavourOf(registered, flavour)
    const flavours = flavourNames(registered) as z.infer<typeof DialectReply>['flavours']
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
  app.openapi(listTools, (c) => {
    const { dialect, format, strict: strictParam, flavour } = c.req.valid('query')
    const strict = strictParam === 'true'
    if (strict && !isStrictFormat(format)) {
      const detail = `strict=true applies to the formats ${STRICT_FORMATS.join(', ')}`
      throw new ProblemError(400, 'invalid-request', `${detail}; '${format}' has no strict mode.`, [
        { pointer: '/query/strict', detail },
      ])
    }
    const tools = flavourOf(DIALECTS.get(dialect)!, flavour).tools.map((tool) =>
      formatTool(tool, format, { strict })
    )
    // formatTool builds each format's shape; the schema documents it
    const reply = { dialect, format, tools } as z.infer<typeof ToolsReply>
    return c.json(reply, 200)
  })
}
