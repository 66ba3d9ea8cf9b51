/**
 * @module http/routes/events/shared
 * What the two event streams share: one hub per app, the stream response, refusals.
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../context.js'
import { limitsOf, type AppDeps } from '../../deps.js'
import type { Metrics } from '../../metrics.js'
import { ServiceError } from '../../problem.js'
import { createEventHub, StreamCapError } from '../../streams/hub.js'
import type { SseStream } from '../../streams/sse.js'

export const eventStream = (description: string) => ({
  'text/event-stream': { schema: z.string().openapi({ description }) },
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
export const dropper = (c: Context<AppEnv>) => {
  const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing
  return outgoing ? () => outgoing.destroy() : undefined
}

/** The response of an open stream: the headers hono's streamSSE sets. */
export const sseResponse = (c: Context<AppEnv>, stream: SseStream) =>
  c.body(stream.body, 200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'Transfer-Encoding': 'chunked',
  })

/** What the event stream handlers are built from. */
export interface EventRoutesDeps {
  app: AppDeps
  hub: ReturnType<typeof createEventHub>
  /** Opens a stream; over the tenant's cap, the 429 `too-many-streams`. */
  open: (fn: () => SseStream) => SseStream
  /** The 503 `draining` once shutdown began. */
  refuseWhileDraining: () => void
}

/**
 * The hub of the app's event streams and the refusals around it.
 * @param deps - the app's dependencies
 * @param metrics - the app's metrics
 */
export function eventRoutesDeps(deps: AppDeps, metrics: Metrics): EventRoutesDeps {
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
  return {
    app: deps,
    hub,
    open: (fn) => {
      try {
        return fn()
      } catch (error) {
        if (error instanceof StreamCapError) throw tooManyStreams(error.cap)
        throw error
      }
    },
    refuseWhileDraining: () => {
      if (deps.isDraining() || deps.shutdownSignal?.aborted) throw draining()
    },
  }
}
