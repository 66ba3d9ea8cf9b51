/**
 * @module http/routes/tools
 * The dialects and their tool definitions in each provider format: one operation per file.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../../context.js'
import { registerOperations } from '../../operation.js'
import { getDialect } from './get-dialect.js'
import { listDialects } from './list-dialects.js'
import { listTools } from './list-tools.js'

/**
 * Registers the tools routes (in the OpenAPI document's order).
 * @param app - the app
 */
export function registerToolRoutes(app: OpenAPIHono<AppEnv>) {
  registerOperations(app, undefined, [listDialects, getDialect, listTools])
}
