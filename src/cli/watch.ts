/**
 * @module cli/watch
 * `agent-todos watch [session]`: a live view of one session or of the tenant, fed by the same
 * Server-Sent Events the dashboard reads.
 */
import { readSse, type SseEvent } from './sse.js'
import {
  renderSessionFrame,
  renderTenantFrame,
  type SessionSummary,
  type SessionView,
} from './render.js'

export interface WatchOptions {
  /** Service base URL, e.g. http://127.0.0.1:8080. */
  url: string
  key?: string
  /** One session; the whole tenant when absent. */
  session?: string
  /** Print one frame and exit. */
  once: boolean
  /** The tenant view shows only what needs a person (waiting, stale, ended with work left). */
  needsYou?: boolean
  out: NodeJS.WriteStream | NodeJS.WritableStream
  color: boolean
  /** Aborted on Ctrl-C: the watch ends with exit code 0. */
  signal?: AbortSignal
  /** Waits before a reconnection; a timer unless a test passes its own clock. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
}

/** A failure the CLI reports as one line and an exit code. */
export class WatchError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /**
     * The service may answer later (unreachable, restarting, 5xx, too many streams): a live
     * watch that was connected once waits and reconnects. `retryAfterMs` is the service's hint.
     */
    readonly retry: { afterMs: number } | null = null
  ) {
    super(message)
    this.name = 'WatchError'
  }
}

const CONNECT_TIMEOUT_MS = 10_000
/** Heartbeats come every 15 s; this much silence means the connection is dead. */
const IDLE_TIMEOUT_MS = 45_000
const MAX_DELAY_MS = 15_000
const RENDER_INTERVAL_MS = 100

const causeCode = (error: unknown): string | undefined => {
  const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } })?.cause
  return cause?.code ?? cause?.errors?.[0]?.code
}

/**
 * Opens an event stream, turning every way it can fail into a WatchError with a clear message.
 */
async function connect(
  options: WatchOptions,
  path: string,
  lastEventId: string | null,
  signal: AbortSignal
): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'text/event-stream' }
  if (options.key) headers.Authorization = `Bearer ${options.key}`
  if (lastEventId !== null) headers['Last-Event-ID'] = lastEventId
  const timeout = AbortSignal.timeout(CONNECT_TIMEOUT_MS)
  let res: Response
  try {
    res = await fetch(new URL(path, options.url), {
      headers,
      signal: AbortSignal.any([signal, timeout]),
    })
  } catch (error) {
    if (signal.aborted) throw error
    const reason = timeout.aborted
      ? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`
      : (causeCode(error) ?? String(error))
    throw new WatchError(
      `cannot reach the agent-todos service at ${options.url} (${reason}). Is it running? Set --url or AGENT_TODOS_URL.`,
      1,
      { afterMs: 0 }
    )
  }
  if (res.ok && /^text\/event-stream/.test(res.headers.get('content-type') ?? '')) return res
  let detail = ''
  try {
    const body = (await res.json()) as { detail?: string }
    detail = body.detail ?? ''
  } catch {
    // not a problem document
  }
  if (res.status === 401) {
    throw new WatchError(
      options.key
        ? 'the service refused the key (401 Unauthorized). Check --key or AGENT_TODOS_KEY.'
        : 'the service requires a key (401 Unauthorized). Pass --key or set AGENT_TODOS_KEY.'
    )
  }
  if (res.status === 404 && options.session) {
    throw new WatchError(`no session '${options.session}' on ${options.url} for this key (404).`)
  }
  if (res.ok) {
    throw new WatchError(
      `${options.url} answered, but not with an event stream: is it an agent-todos service?`
    )
  }
  // shutting down, restarting, overloaded, or at the stream cap: the same as a lost connection
  const transient = res.status === 429 || res.status >= 500
  const hint = Number(res.headers.get('retry-after'))
  throw new WatchError(
    `${options.url}${path} answered ${res.status}${detail ? `: ${detail}` : ''}`,
    1,
    transient ? { afterMs: Number.isFinite(hint) && hint > 0 ? hint * 1000 : 0 } : null
  )
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })

/**
 * Runs the watch until `--once` printed its frame, the signal aborts, or a fatal error.
 * @param options - target, key, output
 * @returns the exit code
 * @throws WatchError when the service is unreachable at first, refuses the key, or has no such session
 */
export async function watch(options: WatchOptions): Promise<number> {
  const out = options.out as NodeJS.WriteStream
  const tty = !options.once && out.isTTY === true
  const outer = options.signal ?? new AbortController().signal
  const path = options.session
    ? `/v1/sessions/${encodeURIComponent(options.session)}/events`
    : '/v1/events'

  const sessions = new Map<string, SessionSummary>()
  let view: SessionView | null = null
  let status = 'connecting'
  let deleted = false
  let lastEventId: string | null = null

  const frame = () => {
    const now = Date.now()
    const size = { width: (tty && out.columns) || 100, height: tty ? out.rows || 40 : Infinity }
    const clock = new Date(now).toTimeString().slice(0, 8)
    const target = options.session
      ? `session ${options.session}`
      : options.needsYou
        ? 'needs you'
        : 'all sessions'
    const header = `agent-todos watch · ${target} · ${options.url} · ${status} · ${clock}`
    const renderOptions = { ...size, color: options.color, now, needsYou: options.needsYou }
    if (options.session) {
      if (deleted) return `${header}\n\nThe session was deleted.\n`
      return view ? renderSessionFrame(view, header, renderOptions) : `${header}\n`
    }
    return renderTenantFrame([...sessions.values()], header, renderOptions)
  }

  let renderTimer: NodeJS.Timeout | undefined
  let lastRender = 0
  const render = () => {
    renderTimer = undefined
    lastRender = Date.now()
    const text = frame()
    // home, clear, draw: the frame replaces the previous one in place
    out.write(tty ? `\x1b[H\x1b[2J${text}` : `${text}\n`)
  }
  const scheduleRender = () => {
    if (options.once || renderTimer) return
    renderTimer = setTimeout(render, Math.max(0, RENDER_INTERVAL_MS - (Date.now() - lastRender)))
  }

  // the server sends each session's state; a view or summary of an older version is ignored
  const apply = (message: SseEvent) => {
    if (message.id !== null) lastEventId = message.id
    const data = JSON.parse(message.data) as Record<string, unknown>
    if (options.session) {
      if (message.event === 'delete') deleted = true
      else if (message.event === 'snapshot' || message.event === 'update') {
        const next = data as unknown as SessionView
        if (message.event === 'snapshot' || !view || view.version <= next.version) view = next
      }
      return
    }
    if (message.event === 'snapshot') {
      sessions.clear()
      for (const summary of data.sessions as SessionSummary[])
        sessions.set(summary.session_id, summary)
    } else if (message.event === 'update') {
      const summary = data as unknown as SessionSummary
      const known = sessions.get(summary.session_id)
      if (!known || known.version <= summary.version) sessions.set(summary.session_id, summary)
    } else if (message.event === 'delete') {
      sessions.delete(data.session_id as string)
    }
  }

  if (options.once) {
    const controller = new AbortController()
    const abort = () => controller.abort()
    outer.addEventListener('abort', abort, { once: true })
    try {
      const res = await connect(options, path, null, controller.signal)
      // a session that does not exist yet: the service ends the stream at once, asking to retry
      let retryAsked = false
      for await (const message of readSse(res.body!, { onRetry: () => (retryAsked = true) })) {
        apply(message)
        if (message.event === 'snapshot' || message.event === 'delete') break
      }
      if (!view && sessions.size === 0 && options.session && !deleted) {
        throw new WatchError(
          retryAsked
            ? `no session '${options.session}' on ${options.url} for this key (not yet).`
            : 'the stream ended before its first snapshot.'
        )
      }
      status = 'snapshot'
      out.write(frame())
      return 0
    } finally {
      outer.removeEventListener('abort', abort)
      controller.abort()
    }
  }

  if (tty) out.write('\x1b[?25l')
  const tick = setInterval(scheduleRender, 1000)
  let delay = 1000
  /** The reconnection time the server asked for with `retry:`, if any. */
  let serverRetry = 0
  let connected = false
  try {
    while (!outer.aborted && !deleted) {
      const controller = new AbortController()
      const abort = () => controller.abort()
      outer.addEventListener('abort', abort, { once: true })
      let idle: NodeJS.Timeout | undefined
      const armIdle = () => {
        clearTimeout(idle)
        idle = setTimeout(() => controller.abort(), IDLE_TIMEOUT_MS)
      }
      let wait = 0
      try {
        const res = await connect(
          options,
          path,
          options.session ? lastEventId : null,
          controller.signal
        )
        connected = true
        delay = 1000
        status = 'live'
        armIdle()
        scheduleRender()
        const events = readSse(res.body!, {
          onActivity: armIdle,
          onRetry: (ms) => (serverRetry = ms),
        })
        for await (const message of events) {
          apply(message)
          scheduleRender()
        }
      } catch (error) {
        if (outer.aborted) break
        // the first connection must work; after it, a restart (503 while it drains, then no
        // answer until it is back), a 5xx, the stream cap or a network blip all mean: wait, retry
        if (!(error instanceof WatchError)) {
          // the stream broke mid-read (reset, idle timeout): reconnect
        } else if (!connected || !error.retry) {
          throw error
        } else {
          wait = error.retry.afterMs
        }
      } finally {
        clearTimeout(idle)
        outer.removeEventListener('abort', abort)
        controller.abort()
      }
      if (outer.aborted || deleted) break
      const pause = Math.max(delay, serverRetry, wait)
      status = `reconnecting in ${Math.round(pause / 1000)} s`
      scheduleRender()
      await (options.sleep ?? sleep)(pause, outer)
      delay = Math.min(delay * 2, MAX_DELAY_MS)
      status = 'reconnecting'
    }
    if (deleted) render()
    return 0
  } finally {
    clearInterval(tick)
    clearTimeout(renderTimer)
    if (tty) out.write('\x1b[?25h')
  }
}
