/**
 * @module http/routes/events/session
 * `GET /v1/sessions/{session_id}/events`: one session's versions as Server-Sent Events.
 */
import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { SessionKey } from '../../../core/session.js'
import { findSession } from '../../../service/reads.js'
import type { AppEnv } from '../../context.js'
import { problemResponses, sessionNotFound } from '../../problem.js'
import { SessionIdParam } from '../../schemas.js'
import { operation } from '../../operation.js'
import { dropper, eventStream, sseResponse, type EventRoutesDeps } from './shared.js'

export const sessionEventsRoute = createRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}/events',
  tags: ['events'],
  summary: "A session's changes as Server-Sent Events (resumable with Last-Event-ID)",
  operationId: 'streamSessionEvents',
  request: {
    params: SessionIdParam,
    headers: z.object({ 'last-event-id': z.string().max(32).optional() }),
  },
  responses: {
    200: {
      description: 'snapshot, then one update per version',
      content: eventStream(
        'event: snapshot | update | delete; id: the version; data: the SessionView as JSON (a replayed version carries source and replayed: true; an update with the same id re-sends a view whose state changed without a write, e.g. to stale). Heartbeat comments keep the stream open. A client that leaves more than MAX_STREAM_BACKLOG_BYTES unread is disconnected: reconnect with Last-Event-ID. For a session that does not exist yet, a request with Accept: text/event-stream (an EventSource) gets a stream that ends at once with retry: 3000, so it reconnects until the session exists; other requests get 404.'
      ),
    },
    ...problemResponses(
      'invalid-session-id',
      'invalid-request',
      'unauthorized',
      'session-not-found',
      'too-many-streams',
      'rate-limited',
      'draining',
      'store-unavailable'
    ),
  },
})

/** How long an EventSource waits before it asks again for a session that does not exist yet. */
export const NOT_YET_RETRY_MS = 3000

/** Whether the client asked for an event stream (an EventSource always does). */
const acceptsEventStream = (c: Context<AppEnv>) =>
  /\btext\/event-stream\b/i.test(c.req.header('accept') ?? '')

/**
 * A stream that ends at once with a `retry:` hint: the EventSource reconnects after it, so a
 * monitor opened before a session's first write finds the session once it exists.
 */
const notYet = (c: Context<AppEnv>, sessionId: string) =>
  c.body(
    `retry: ${NOT_YET_RETRY_MS}\n: no session '${sessionId}' yet; retry in ${NOT_YET_RETRY_MS} ms\n\n`,
    200,
    { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' }
  )

/** The operation `GET /v1/sessions/{session_id}/events`: its route and its handler. */
export const sessionEvents = operation(sessionEventsRoute, async (c, deps: EventRoutesDeps) => {
  const key: SessionKey = { tenant: c.get('tenant'), sessionId: c.req.valid('param').session_id }
  const header = c.req.valid('header')['last-event-id']
  const lastEventId = header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined
  deps.refuseWhileDraining()
  if (!(await findSession(deps.app, key))) {
    // an EventSource gives up for good on a 404: it is told to come back instead, since a
    // monitor is often opened before the agent's first round
    if (acceptsEventStream(c)) return notYet(c, key.sessionId)
    throw sessionNotFound(key.sessionId)
  }
  return sseResponse(
    c,
    deps.open(() => deps.hub.openSession(key, lastEventId, dropper(c)))
  )
})
