/**
 * @module http/routes/sessions
 * Reading, editing, ending and listing sessions: one operation per file, each handler typed by
 * its route; the changes are the use cases of service/sessions.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../../context.js'
import { serviceDepsOf, type AppDeps } from '../../deps.js'
import { deleteSession, deleteSessionRoute } from './delete.js'
import { endSession, endSessionRoute } from './end.js'
import { getSession, getSessionRoute } from './get.js'
import { getHistory, getHistoryRoute } from './history.js'
import { listSessions, listSessionsRoute } from './list.js'
import { putTodos, putTodosRoute } from './put-todos.js'
import { renderSession, renderSessionRoute } from './render.js'
import type { SessionRoutesDeps } from './shared.js'

/**
 * Registers the session routes (in the OpenAPI document's order).
 * @param app - the app
 * @param deps - the app's dependencies
 */
export function registerSessionRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  const routes: SessionRoutesDeps = { app: deps, service: serviceDepsOf(deps) }
  app.openapi(getSessionRoute, getSession(routes))
  app.openapi(renderSessionRoute, renderSession(routes))
  app.openapi(putTodosRoute, putTodos(routes))
  app.openapi(deleteSessionRoute, deleteSession(routes))
  app.openapi(endSessionRoute, endSession(routes))
  app.openapi(listSessionsRoute, listSessions(routes))
  app.openapi(getHistoryRoute, getHistory(routes))
}
