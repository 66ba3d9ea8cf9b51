/**
 * @module cli/observe-opencode
 * `agent-todos observe --opencode <server-url>`: subscribes to a running `opencode serve` (or
 * `kilo serve`, with `--agent kilo`) at its `GET /global/event` stream (every project and session
 * of that server) and forwards the events the service reads (`todo.*`, `session.*`,
 * `permission.*`, `question.*` of a session) to `POST /v1/ingest/opencode`, in order, in batches
 * of what arrived within `lingerMs`, retried with backoff while the service cannot take them. When
 * the server goes away (a restart) it connects again, with backoff, until stopped (Ctrl-C /
 * SIGTERM), then delivers what it holds within the flush timeout.
 *
 * Its own small sender rather than `observe`'s: that one follows one command's stdout lines to
 * one session, this one a server's events of many sessions, with origin headers per directory.
 */
import { originHeaders } from './origin.js'
import { readSse } from './sse.js'
import { sleep } from './sleep.js'

export type OpencodeAgent = 'opencode' | 'kilo'

export interface ObserveOpencodeOptions {
  /** Service base URL, without a trailing slash. */
  url: string
  key?: string
  /** The opencode (or Kilo) server's base URL. */
  server: string
  agent: OpencodeAgent
  err: NodeJS.WritableStream
  /** Aborted on Ctrl-C / SIGTERM: stop reading, deliver what is queued, return. */
  signal?: AbortSignal
  /** How long to keep delivering once stopped (default 10 s). */
  flushTimeoutMs?: number
  tuning?: Partial<OpencodeTuning>
}

export interface OpencodeTuning {
  lingerMs: number
  maxBatch: number
  /** Events kept while the service cannot take them; the oldest go past this. */
  maxQueue: number
  retryBaseMs: number
  retryMaxMs: number
  reconnectBaseMs: number
  reconnectMaxMs: number
}

const DEFAULT_TUNING: OpencodeTuning = {
  lingerMs: 50,
  maxBatch: 200,
  maxQueue: 10_000,
  retryBaseMs: 250,
  retryMaxMs: 8000,
  reconnectBaseMs: 250,
  reconnectMaxMs: 5000,
}

/** The event types the service reads; the rest of the server's chatter stays home. */
const FORWARDED = /^(todo|session|permission|question)\./

interface Queued {
  /** The project directory the server named, for the origin headers. */
  directory: string | null
  event: Record<string, unknown>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The event to forward from one `/global/event` value (`{directory, payload}`), or null for one the
 * service does not read (server chatter, `sync` records, events of no session).
 * @param value - the parsed `data:` of the stream
 */
export function forwardedEvent(value: unknown): Queued | null {
  const event = isRecord(value) && isRecord(value.payload) ? value.payload : value
  if (!isRecord(event) || typeof event.type !== 'string' || !FORWARDED.test(event.type)) return null
  const properties = isRecord(event.properties) ? event.properties : null
  if (!properties) return null
  const named =
    typeof properties.sessionID === 'string' ||
    (isRecord(properties.info) && typeof properties.info.id === 'string')
  if (!named) return null
  const directory = isRecord(value) && typeof value.directory === 'string' ? value.directory : null
  return { directory, event }
}

/**
 * Forwards a server's events until stopped.
 * @returns 0 once stopped and flushed, 1 when the service refused the key or has no such route
 */
export async function observeOpencode(options: ObserveOpencodeOptions): Promise<number> {
  const tuning = { ...DEFAULT_TUNING, ...options.tuning }
  const { err, signal } = options
  const queue: Queued[] = []
  const warned = new Set<string>()
  const warnOnce = (key: string, message: string) => {
    if (warned.has(key)) return
    warned.add(key)
    err.write(`agent-todos observe: ${message}\n`)
  }
  let wake: (() => void) | null = null
  let fatal = false
  const flushDeadline = new AbortController()
  const route = new URL('/v1/ingest/opencode', options.url)
  if (options.agent === 'kilo') route.searchParams.set('agent', 'kilo')

  const origins = new Map<string, Record<string, string>>()
  /**
   * The origin headers of a directory, as `observe` sends them: who, and the git remote and
   * branch when it is a repository here (the server may run elsewhere: then who only).
   */
  const originOf = (directory: string | null) => {
    const key = directory !== null && directory.startsWith('/') ? directory : ''
    let found = origins.get(key)
    if (!found) {
      found = originHeaders(key === '' ? null : key)
      origins.set(key, found)
    }
    return found
  }

  /** One batch to its end: taken, refused, or the flush deadline passed (false). */
  const deliver = async (batch: Queued[]): Promise<boolean> => {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      ...originOf(batch[0].directory),
    }
    if (options.key) headers.Authorization = `Bearer ${options.key}`
    for (let attempt = 0; ; attempt++) {
      if (flushDeadline.signal.aborted) return false
      let status = 0
      let detail: string
      try {
        const res = await fetch(route, {
          method: 'POST',
          headers,
          body: JSON.stringify(batch.map((queued) => queued.event)),
          signal: AbortSignal.any([flushDeadline.signal, AbortSignal.timeout(15_000)]),
        })
        status = res.status
        const text = await res.text()
        if (res.ok) return true
        try {
          detail = (JSON.parse(text) as { detail?: string }).detail ?? ''
        } catch {
          detail = text.slice(0, 200)
        }
      } catch (error) {
        if (flushDeadline.signal.aborted) return false
        const cause = (error as { cause?: { code?: string; message?: string } }).cause
        detail = cause?.code ?? cause?.message ?? String(error)
      }
      if (status === 401 || status === 404) {
        warnOnce('fatal', `the service refused the events (${status}: ${detail}); stopping`)
        fatal = true
        return true
      }
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
        warnOnce(
          `refused-${status}`,
          `the service refused ${batch.length} event(s) (${status}: ${detail})`
        )
        return true
      }
      warnOnce('retrying', `cannot deliver to ${options.url} (${status || detail}); retrying`)
      const backoff = Math.min(tuning.retryMaxMs, tuning.retryBaseMs * 2 ** attempt)
      await sleep(backoff / 2 + Math.random() * (backoff / 2), flushDeadline.signal)
    }
  }

  let reading = true
  const sending = (async () => {
    for (;;) {
      if (fatal) return
      if (!queue.length) {
        if (!reading) return
        await new Promise<void>((resolve) => (wake = resolve))
        wake = null
        if (reading) await sleep(tuning.lingerMs)
        continue
      }
      // a batch is one directory's consecutive events (its origin headers)
      const directory = queue[0].directory
      let size = 0
      while (size < queue.length && size < tuning.maxBatch && queue[size].directory === directory)
        size++
      const batch = queue.splice(0, size)
      if (!(await deliver(batch))) {
        queue.unshift(...batch)
        return
      }
    }
  })()

  const push = (queued: Queued) => {
    queue.push(queued)
    if (queue.length > tuning.maxQueue) {
      queue.shift()
      warnOnce('dropped', 'the service is behind; dropping the oldest events')
    }
    wake?.()
  }

  const stream = new URL('/global/event', options.server)
  let attempt = 0
  let connectedOnce = false
  while (!signal?.aborted && !fatal) {
    try {
      const res = await fetch(stream, { headers: { Accept: 'text/event-stream' }, signal })
      if (!res.ok || !res.body) throw new Error(`GET /global/event answered ${res.status}`)
      err.write(
        `agent-todos observe: ${connectedOnce ? 'following again' : 'following'} ${stream.href}\n`
      )
      connectedOnce = true
      attempt = 0
      warned.delete('server')
      for await (const message of readSse(res.body)) {
        let value: unknown
        try {
          value = JSON.parse(message.data)
        } catch {
          continue
        }
        const queued = forwardedEvent(value)
        if (queued) push(queued)
        if (fatal) break
      }
      if (!signal?.aborted)
        warnOnce('server', `${options.server} closed its event stream; connecting again`)
    } catch (error) {
      if (signal?.aborted) break
      warnOnce(
        'server',
        `cannot read ${stream.href} (${(error as Error).message}); connecting again`
      )
    }
    const backoff = Math.min(tuning.reconnectMaxMs, tuning.reconnectBaseMs * 2 ** attempt++)
    await sleep(backoff, signal)
  }

  reading = false
  ;(wake as (() => void) | null)?.()
  const timer = setTimeout(() => flushDeadline.abort(), options.flushTimeoutMs ?? 10_000)
  await sending
  clearTimeout(timer)
  if (queue.length)
    err.write(`agent-todos observe: ${queue.length} event(s) could not be delivered in time\n`)
  return fatal ? 1 : 0
}
