/**
 * @module http/routes/events/tenant
 * `GET /v1/events`: every session of the caller's tenant as Server-Sent Events.
 */
import { createRoute } from '@hono/zod-openapi'
import { problemResponses } from '../../problem.js'
import { operation } from '../../operation.js'
import { dropper, eventStream, sseResponse, type EventRoutesDeps } from './shared.js'

export const tenantEventsRoute = createRoute({
  method: 'get',
  path: '/v1/events',
  tags: ['events'],
  summary: "Every session of the caller's tenant as Server-Sent Events",
  operationId: 'streamTenantEvents',
  responses: {
    200: {
      description: 'snapshot (the newest sessions), then an update per change',
      content: eventStream(
        'event: snapshot, data {"sessions": [SessionSummary]} (the newest 200 sessions, at most 2 MiB of them); event: update, id: the version, data: a SessionSummary (also sent, with the same id, when a session turns stale without a write); event: delete, data {"session_id"}. Heartbeat comments keep the stream open. A client that leaves more than MAX_STREAM_BACKLOG_BYTES unread is disconnected: reconnect (a fresh snapshot).'
      ),
    },
    ...problemResponses(
      'unauthorized',
      'too-many-streams',
      'rate-limited',
      'draining',
      'store-unavailable'
    ),
  },
})

/** The operation `GET /v1/events`: its route and its handler. */
export const tenantEvents = operation(tenantEventsRoute, (c, deps: EventRoutesDeps) => {
  deps.refuseWhileDraining()
  return sseResponse(
    c,
    deps.open(() => deps.hub.openTenant(c.get('tenant'), dropper(c)))
  )
})
