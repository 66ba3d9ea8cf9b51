/**
 * @module http/routes/events
 * Server-Sent Events for monitors: one session's versions, or every session of a tenant.
 * Fed by the store's change feed, so on Redis a subscriber on any instance hears every write.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import { streamSSE, type SSEStreamingApi } from 'hono/streaming'
import type { SessionKey } from '../../core/session.js'
import type { ChangeEvent } from '../../store/types.js'
import type { AppDeps } from '../deps.js'
import type { AppEnv } from '../env.js'
import type { Metrics } from '../metrics.js'
import { ProblemError, problemResponses, sessionNotFound } from '../problem.js'
import { SessionIdParam } from '../schemas.js'
import { historicalView, sessionSummary, sessionView } from '../views.js'

const eventStream = {
  'text/event-stream': {
    schema: z.string().openapi({
      description:
        'event: snapshot | update | delete; id: the version; data: the session view as JSON. Heartbeat comments keep the stream open.',
    }),
  },
}

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
    200: { description: 'snapshot, then one update per version', content: eventStream },
    ...problemResponses(400, 401, 404, 503),
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
      content: eventStream,
    },
    ...problemResponses(401, 503),
  },
})

const TENANT_SNAPSHOT_LIMIT = 200

const draining = () =>
  new ProblemError(
    503,
    'draining',
    'This instance is shutting down; reconnect to another.',
    undefined,
    {
      'Retry-After': '1',
    }
  )

/** Runs async steps one after another, so events leave in order. */
function serialQueue() {
  let tail: Promise<void> = Promise.resolve()
  return (step: () => Promise<void>) => {
    tail = tail.then(step).catch(() => undefined)
    return tail
  }
}

/**
 * Keeps a stream open until the client goes, the service shuts down, or `done` resolves; sends
 * heartbeat comments meanwhile.
 */
async function holdOpen(
  stream: SSEStreamingApi,
  deps: AppDeps,
  metrics: Metrics,
  label: string,
  done: Promise<void>,
  cleanup: () => void
) {
  metrics.sseClients.inc({ stream: label })
  const heartbeat = setInterval(() => {
    stream.write(': heartbeat\n\n').catch(() => undefined)
  }, deps.sseHeartbeatMs)
  let onShutdown: () => void = () => {}
  const shutdown = new Promise<void>((resolve) => {
    onShutdown = () => resolve()
    if (deps.shutdownSignal?.aborted) resolve()
    deps.shutdownSignal?.addEventListener('abort', onShutdown, { once: true })
  })
  const aborted = new Promise<void>((resolve) => stream.onAbort(resolve))
  try {
    await Promise.race([done, shutdown, aborted])
  } finally {
    clearInterval(heartbeat)
    deps.shutdownSignal?.removeEventListener('abort', onShutdown)
    cleanup()
    metrics.sseClients.dec({ stream: label })
  }
}

/** Registers the event stream routes. */
export function registerEventRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, metrics: Metrics) {
  app.openapi(sessionEvents, async (c) => {
    const key: SessionKey = { tenant: c.get('tenant'), sessionId: c.req.valid('param').session_id }
    const header = c.req.valid('header')['last-event-id']
    const lastEventId = header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined
    if (deps.isDraining()) throw draining()
    if (!(await deps.store.get(key))) {
      throw sessionNotFound(key.sessionId)
    }
    return streamSSE(c, async (stream) => {
      const enqueue = serialQueue()
      let sent = 0
      let finish: () => void = () => {}
      const done = new Promise<void>((resolve) => (finish = resolve))

      /** Sends every version after `sent`, from history, then the current view. */
      const catchUp = async (initial: boolean) => {
        const session = await deps.store.get(key)
        if (!session) {
          await stream.writeSSE({
            event: 'delete',
            data: JSON.stringify({ session_id: key.sessionId }),
          })
          finish()
          return
        }
        if (initial && (lastEventId === undefined || lastEventId > session.version)) {
          await stream.writeSSE({
            event: 'snapshot',
            id: String(session.version),
            data: JSON.stringify(sessionView(session)),
          })
          sent = session.version
          return
        }
        if (session.version <= sent) return
        const missed = (await deps.store.history(key, deps.historyLimit)).filter(
          (entry) => entry.version > sent && entry.version < session.version
        )
        if (missed.length && missed[0].version !== sent + 1) {
          // the gap is older than the kept history: start over from the current state
          await stream.writeSSE({
            event: 'snapshot',
            id: String(session.version),
            data: JSON.stringify(sessionView(session)),
          })
        } else {
          for (const entry of missed) {
            await stream.writeSSE({
              event: 'update',
              id: String(entry.version),
              data: JSON.stringify(historicalView(session, entry)),
            })
          }
          await stream.writeSSE({
            event: 'update',
            id: String(session.version),
            data: JSON.stringify(sessionView(session)),
          })
        }
        sent = session.version
      }

      const unsubscribe = deps.store.subscribe((event: ChangeEvent) => {
        if (event.tenant !== key.tenant || event.session_id !== key.sessionId) return
        if (event.source === 'delete' || event.version > sent) void enqueue(() => catchUp(false))
      })
      if (lastEventId !== undefined) sent = lastEventId
      await enqueue(() => catchUp(true))
      await holdOpen(stream, deps, metrics, 'session', done, unsubscribe)
    }) as never
  })

  app.openapi(tenantEvents, async (c) => {
    const tenant = c.get('tenant')
    if (deps.isDraining()) throw draining()
    return streamSSE(c, async (stream) => {
      const enqueue = serialQueue()
      const sent = new Map<string, number>()
      const send = async (event: ChangeEvent) => {
        if (event.source === 'delete') {
          sent.delete(event.session_id)
          await stream.writeSSE({
            event: 'delete',
            data: JSON.stringify({ session_id: event.session_id }),
          })
          return
        }
        const session = await deps.store.get({ tenant, sessionId: event.session_id })
        if (!session || session.version <= (sent.get(event.session_id) ?? 0)) return
        sent.set(event.session_id, session.version)
        await stream.writeSSE({
          event: 'update',
          id: String(session.version),
          data: JSON.stringify(sessionView(session)),
        })
      }
      const unsubscribe = deps.store.subscribe((event) => {
        if (event.tenant === tenant) void enqueue(() => send(event))
      })
      await enqueue(async () => {
        const staleBefore = deps.now() - deps.staleAfterMs
        const page = await deps.store.list(tenant, {
          state: 'all',
          limit: TENANT_SNAPSHOT_LIMIT,
          staleBefore,
        })
        for (const session of page.sessions) sent.set(session.session_id, session.version)
        await stream.writeSSE({
          event: 'snapshot',
          data: JSON.stringify({
            sessions: page.sessions.map((s) => sessionSummary(s, staleBefore)),
          }),
        })
      })
      await holdOpen(stream, deps, metrics, 'tenant', new Promise<void>(() => {}), unsubscribe)
    }) as never
  })
}
