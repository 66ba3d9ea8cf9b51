/**
 * @module http/routes/sessions
 * Reading, editing, ending and listing sessions: one operation per file, each handler typed by
 * its route; the changes are the use cases of service/sessions.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../../context.js'
import { serviceDepsOf, type AppDeps } from '../../deps.js'
import { registerOperations } from '../../operation.js'
import { getDecisions, postDecision } from './decisions.js'
import { deleteSession } from './delete.js'
import { endSession } from './end.js'
import { getSession } from './get.js'
import { getHistory } from './history.js'
import { listSessions } from './list.js'
import { putTodos } from './put-todos.js'
import { renderSession } from './render.js'
import type { SessionRoutesDeps } from './shared.js'

/**
 * Registers the session routes (in the OpenAPI document's order).
 * @param app - the app
 * @param deps - the app's dependencies
 */
export function registerSessionRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  const routes: SessionRoutesDeps = { app: deps, service: serviceDepsOf(deps) }
  registerOperations(app, routes, [
    getSession,
    renderSession,
    putTodos,
    deleteSession,
    endSession,
    listSessions,
    getHistory,
    getDecisions,
    postDecision,
  ])
}
