/**
 * @module http/routes/events
 * Server-Sent Events for monitors: one session's versions, or every session of a tenant.
 * Fed by the store's change feed, so on Redis a subscriber on any instance hears every write;
 * within an instance one fan-out per stream topic serialises each change once (http/event-hub).
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { SessionKey } from '../../core/session.js'
import { limitsOf, type AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import { createEventHub, StreamCapError } from '../streams/hub.js'
import type { Metrics } from '../metrics.js'
import { problemResponses, ServiceError, sessionNotFound } from '../problem.js'
import { SessionIdParam } from '../schemas.js'
import type { SseStream } from '../streams/sse.js'

const eventStream = (description: string) => ({
  'text/event-stream': { schema: z.string().openapi({ description }) },
})

const sessionEvents = createRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}/events',
  tags: ['events'],
  summary: "A session's changes as Server-Sent Events (resumable with Last-Event-ID)",
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
    ...problemResponses(400, 401, 404, 429, 503),
  },
})

const tenantEvents = createRoute({
  method: 'get',
  path: '/v1/events',
  tags: ['events'],
  summary: "Every session of the caller's tenant as Server-Sent Events",
  responses: {
    200: {
      description: 'snapshot (the newest sessions), then an update per change',
      content: eventStream(
        'event: snapshot, data {"sessions": [SessionSummary]} (the newest 200 sessions, at most 2 MiB of them); event: update, id: the version, data: a SessionSummary (also sent, with the same id, when a session turns stale without a write); event: delete, data {"session_id"}. Heartbeat comments keep the stream open. A client that leaves more than MAX_STREAM_BACKLOG_BYTES unread is disconnected: reconnect (a fresh snapshot).'
      ),
    },
    ...problemResponses(401, 429, 503),
  },
})

const draining = () =>
  new ServiceError('draining', 'This instance is shutting down; reconnect to another.', {
    headers: { 'Retry-After': '1' },
  })

const tooManyStreams = (cap: number) =>
  new ServiceError(
    'too-many-streams',
    `Limit exceeded: a tenant may hold at most ${cap} open event streams on one instance (MAX_STREAMS_PER_TENANT); close one, or retry later.`,
    { headers: { 'Retry-After': '5' } }
  )

/**
 * Closes the client's connection, where the app runs in @hono/node-server (its bindings carry
 * the Node response); undefined under `app.request()`.
 */
const dropper = (c: Context<AppEnv>) => {
  const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing
  return outgoing ? () => outgoing.destroy() : undefined
}

/** The response of an open stream: the headers hono's streamSSE sets. */
const sseResponse = (c: Context<AppEnv>, stream: SseStream) =>
  c.body(stream.body, 200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'Transfer-Encoding': 'chunked',
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

/** Registers the event stream routes. */
export function registerEventRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, metrics: Metrics) {
  const limits = limitsOf(deps)
  const hub = createEventHub({
    store: deps.store,
    logger: deps.logger,
    metrics,
    now: deps.now,
    staleAfterMs: deps.staleAfterMs,
    historyLimit: deps.historyLimit,
    heartbeatMs: deps.sseHeartbeatMs,
    flushMs: deps.sseFlushMs,
    fanoutBytesPerSecond: deps.sseFanoutBytesPerSecond,
    maxStreamsPerTenant: limits.maxStreamsPerTenant,
    maxBacklogBytes: limits.maxStreamBacklogBytes,
    shutdownSignal: deps.shutdownSignal,
  })
  const open = (fn: () => SseStream) => {
    try {
      return fn()
    } catch (error) {
      if (error instanceof StreamCapError) throw tooManyStreams(error.cap)
      throw error
    }
  }
  const refuseWhileDraining = () => {
    if (deps.isDraining() || deps.shutdownSignal?.aborted) throw draining()
  }

  app.openapi(sessionEvents, async (c) => {
    const key: SessionKey = { tenant: c.get('tenant'), sessionId: c.req.valid('param').session_id }
    const header = c.req.valid('header')['last-event-id']
    const lastEventId = header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined
    refuseWhileDraining()
    if (!(await deps.store.get(key))) {
      // an EventSource gives up for good on a 404: it is told to come back instead, since a
      // monitor is often opened before the agent's first round
      if (acceptsEventStream(c)) return notYet(c, key.sessionId)
      throw sessionNotFound(key.sessionId)
    }
    return sseResponse(
      c,
      open(() => hub.openSession(key, lastEventId, dropper(c)))
    )
  })

  app.openapi(tenantEvents, (c) => {
    refuseWhileDraining()
    return sseResponse(
      c,
      open(() => hub.openTenant(c.get('tenant'), dropper(c)))
    )
  })
}
