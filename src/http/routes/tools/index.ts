/**
 * @module http/routes/tools
 * The dialects and their tool definitions in each provider format: one operation per file.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../../context.js'
import { getDialect, getDialectRoute } from './get-dialect.js'
import { listDialects, listDialectsRoute } from './list-dialects.js'
import { listTools, listToolsRoute } from './list-tools.js'

/**
 * Registers the tools routes (in the OpenAPI document's order).
 * @param app - the app
 */
export function registerToolRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listDialectsRoute, listDialects)
  app.openapi(getDialectRoute, getDialect)
  app.openapi(listToolsRoute, listTools)
}
