/**
 * @module http/routes/events
 * Server-Sent Events for monitors: one session's versions, or every session of a tenant, one
 * operation per file. Fed by the store's change feed, so on Redis a subscriber on any instance
 * hears every write; within an instance one fan-out per stream topic serialises each change once
 * (http/streams/hub).
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../../context.js'
import type { AppDeps } from '../../deps.js'
import type { Metrics } from '../../metrics.js'
import { registerOperations } from '../../operation.js'
import { sessionEvents } from './session.js'
import { eventRoutesDeps } from './shared.js'
import { tenantEvents } from './tenant.js'

export { NOT_YET_RETRY_MS } from './session.js'

/**
 * Registers the event stream routes (in the OpenAPI document's order).
 * @param app - the app
 * @param deps - the app's dependencies
 * @param metrics - the app's metrics
 */
export function registerEventRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, metrics: Metrics) {
  registerOperations(app, eventRoutesDeps(deps, metrics), [sessionEvents, tenantEvents])
}
