/**
 * @module http/event-hub
 * The per-process fan-out behind the event streams. One store subscription for the whole app;
 * one topic per tenant stream and per session stream that has subscribers. A topic gathers the
 * changes of a short window, reads each changed session once, serialises each event once, and
 * queues the same bytes (one chunk per window) on every subscriber's stream: the cost of a write
 * no longer grows with the number of viewers, and a viewer's socket sees one write per window,
 * not one per change. When a topic's writes pass its budget (`fanoutBytesPerSecond`), its
 * windows lengthen: many viewers of a tenant written to very fast get fresher data less often,
 * and the writers keep their throughput. It also pushes the one change that needs no write: an
 * unfinished session turning stale.
 */
import type { Logger } from 'pino'
import type { Session, SessionKey, SessionState } from '../core/session.js'
import type { ChangeEvent, SessionStore } from '../store/types.js'
import { jsonArrayWithin, PAGE_BYTES, stringifySliced, yieldToLoop } from './json-parts.js'
import type { Metrics } from './metrics.js'
import { encodeMessage, HEARTBEAT, SseStream } from './sse.js'
import { historicalView, sessionSummary, sessionView, stateOf } from './views.js'

export interface EventHubOptions {
  store: SessionStore
  logger: Logger
  metrics: Metrics
  now: () => number
  staleAfterMs: number
  historyLimit: number
  heartbeatMs: number
  /**
   * Changes are gathered this long before they go out: a session that changed several times
   * in a window is read once (a tenant stream sends its latest summary; a session stream every
   * version), and each stream gets one chunk. Default 100 ms.
   */
  flushMs?: number
  /**
   * What one topic may write to its streams per second, counting each write as its bytes plus
   * 4 KiB (the syscall): past it, the next window is longer, so that a tenant written to very
   * fast with many viewers costs its viewers freshness instead of costing its writers
   * throughput. Default 64 MiB/s.
   */
  fanoutBytesPerSecond?: number
  /** Open streams per tenant on this instance; 0 for no cap. */
  maxStreamsPerTenant: number
  /** Unsent bytes per stream before its client is dropped. */
  maxBacklogBytes: number
  /** Aborted at shutdown: every stream closes. */
  shutdownSignal?: AbortSignal
}

/** How many of the newest sessions a tenant snapshot holds (and at most PAGE_BYTES of them). */
export const TENANT_SNAPSHOT_LIMIT = 200
/** How many recently sent versions a tenant topic remembers, to skip repeats. */
const SENT_MEMORY = 10_000
/** History entries read per call while a replay is assembled. */
const REPLAY_BATCH = 8
/** Sessions of a tenant window read concurrently. */
const READ_CONCURRENCY = 16
/** After a failed store read, the topic tries again this much later. */
const RETRY_MS = 1000
/** What a write to a stream costs beyond its bytes, in the fan-out budget. */
const WRITE_COST_BYTES = 4096
/** The longest window the fan-out budget may ask for. */
const MAX_WINDOW_MS = 30_000

/** Refused: the tenant has `cap` streams open on this instance. */
export class StreamCapError extends Error {
  constructor(readonly cap: number) {
    super(`the tenant has ${cap} event streams open on this instance`)
    this.name = 'StreamCapError'
  }
}

const keyOf = (key: SessionKey) => `${key.tenant}\u0000${key.sessionId}`

const deleteFrame = (sessionId: string) =>
  encodeMessage({ event: 'delete', data: JSON.stringify({ session_id: sessionId }) })

interface HubContext {
  options: EventHubOptions
  flushMs: number
  fanoutBytesPerSecond: number
  staleCheckMs: number
  staleBefore(): number
}

/**
 * The frames each stream gets from one window, delivered as one chunk per stream: streams with
 * the same frames share one concatenation.
 */
class Outbox {
  private readonly lists = new Map<SseStream, Uint8Array[]>()

  add(stream: SseStream, frame: Uint8Array) {
    const list = this.lists.get(stream)
    if (list) list.push(frame)
    else this.lists.set(stream, [frame])
  }

  /** Sends each stream its chunk; returns the cost in the fan-out budget. */
  deliver(): number {
    let cost = 0
    const ids = new Map<Uint8Array, number>()
    const idOf = (frame: Uint8Array) => {
      let id = ids.get(frame)
      if (id === undefined) ids.set(frame, (id = ids.size))
      return id
    }
    const chunks = new Map<string, Uint8Array>()
    for (const [stream, frames] of this.lists) {
      let chunk = frames[0]
      if (frames.length > 1) {
        const key = frames.map(idOf).join(',')
        const known = chunks.get(key)
        if (known) chunk = known
        else chunks.set(key, (chunk = Buffer.concat(frames)))
      }
      stream.send(chunk)
      cost += chunk.byteLength + WRITE_COST_BYTES
    }
    this.lists.clear()
    return cost
  }
}

/**
 * Queued work, run one step at a time: joins at once, changes after the window, the stale
 * check on its timer.
 */
abstract class Topic {
  readonly streams = new Set<SseStream>()
  /** Set when the window closed (or the stale timer fired): the next step handles it. */
  protected flushDue = false
  protected staleDue = false
  private running = false
  private window: NodeJS.Timeout | null = null
  private retry: NodeJS.Timeout | null = null
  private readonly heartbeat: NodeJS.Timeout
  private readonly staleTimer: NodeJS.Timeout
  private stopped = false
  /** The next window: longer after a delivery that spent more than its share of the budget. */
  private windowMs: number

  constructor(protected readonly hub: HubContext) {
    this.windowMs = hub.flushMs
    this.heartbeat = setInterval(() => this.broadcast(HEARTBEAT), hub.options.heartbeatMs)
    this.heartbeat.unref()
    this.staleTimer = setInterval(() => {
      this.staleDue = true
      this.kick()
    }, hub.staleCheckMs)
    this.staleTimer.unref()
  }

  abstract onChange(event: ChangeEvent): void
  /** One unit of queued work; false when there is none. */
  protected abstract step(): Promise<boolean>
  /** Called once, when the last subscriber left or the topic ended. */
  protected abstract forget(): void

  protected broadcast(frame: Uint8Array) {
    for (const stream of this.streams) stream.send(frame)
  }

  /** Sends an outbox, and sizes the next window by what it cost. */
  protected deliver(outbox: Outbox) {
    const cost = outbox.deliver()
    const spent = (cost / this.hub.fanoutBytesPerSecond) * 1000
    this.windowMs = Math.min(MAX_WINDOW_MS, Math.max(this.hub.flushMs, spent))
  }

  /** Runs the queued work after the window (a burst of changes waits for one window). */
  protected later() {
    if (this.window || this.stopped) return
    this.window = setTimeout(() => {
      this.window = null
      this.flushDue = true
      this.kick()
    }, this.windowMs)
  }

  protected kick() {
    if (this.running || this.stopped) return
    this.running = true
    void (async () => {
      try {
        while (this.streams.size && (await this.step())) {
          // one step at a time, in order
        }
      } catch (error) {
        // the store failed (unreachable, say): what was due is kept and tried again
        this.hub.options.logger.warn({ err: error }, 'event stream: store read failed')
        this.flushDue = true
        this.retry ??= setTimeout(() => {
          this.retry = null
          this.kick()
        }, RETRY_MS)
        this.retry.unref()
      } finally {
        this.running = false
      }
    })()
  }

  remove(stream: SseStream) {
    this.streams.delete(stream)
    if (this.streams.size === 0) this.stop()
  }

  /** Closes every stream (the session was deleted, or shutdown). */
  closeAll() {
    for (const stream of [...this.streams]) stream.close()
    this.stop()
  }

  private stop() {
    if (this.stopped) return
    this.stopped = true
    clearInterval(this.heartbeat)
    clearInterval(this.staleTimer)
    if (this.window) clearTimeout(this.window)
    if (this.retry) clearTimeout(this.retry)
    this.forget()
  }
}

/** Every session of one tenant: summaries. */
class TenantTopic extends Topic {
  /** The version last sent per session (insertion order: oldest first, bounded). */
  private readonly sent = new Map<string, number>()
  /** The snapshot each subscriber started from: versions it must not receive again. */
  private readonly snapshots = new WeakMap<SseStream, ReadonlyMap<string, number>>()
  /** Sessions changed in the window, with their newest event. */
  private pending = new Map<string, ChangeEvent>()
  private joins: SseStream[] = []
  /** Sessions unchanged since before this were checked for staleness already. */
  private staleFrom: number

  constructor(
    hub: HubContext,
    readonly tenant: string,
    private readonly onForget: () => void
  ) {
    super(hub)
    this.staleFrom = hub.staleBefore()
  }

  join(stream: SseStream) {
    this.streams.add(stream)
    this.joins.push(stream)
    this.kick()
  }

  onChange(event: ChangeEvent) {
    if (event.source !== 'delete' && event.version <= (this.sent.get(event.session_id) ?? 0)) return
    // the newest event of a session stands for the ones before it
    this.pending.delete(event.session_id)
    this.pending.set(event.session_id, event)
    this.later()
  }

  protected async step(): Promise<boolean> {
    if (this.joins.length) {
      await this.snapshot(this.joins.splice(0))
      return true
    }
    if (this.flushDue) {
      this.flushDue = false
      await this.flush()
      return true
    }
    if (this.staleDue) {
      this.staleDue = false
      await this.publishStale()
      return true
    }
    return false
  }

  /** One snapshot for every subscriber that joined meanwhile. */
  private async snapshot(joins: SseStream[]) {
    const staleBefore = this.hub.staleBefore()
    let page
    try {
      page = await this.hub.options.store.list(this.tenant, {
        state: 'all',
        limit: TENANT_SNAPSHOT_LIMIT,
        staleBefore,
      })
    } catch (error) {
      // these clients reconnect and ask again
      for (const stream of joins) stream.close()
      throw error
    }
    const { json, taken } = await jsonArrayWithin(
      page.sessions,
      (session) => JSON.stringify(sessionSummary(session, staleBefore)),
      PAGE_BYTES
    )
    const versions = new Map(page.sessions.slice(0, taken).map((s) => [s.session_id, s.version]))
    const frame = encodeMessage({ event: 'snapshot', data: `{"sessions":${json}}` })
    for (const stream of joins) {
      this.snapshots.set(stream, versions)
      stream.send(frame)
    }
  }

  private remember(sessionId: string, version: number) {
    this.sent.delete(sessionId)
    this.sent.set(sessionId, version)
    if (this.sent.size > SENT_MEMORY) this.sent.delete(this.sent.keys().next().value!)
  }

  /** The window's changes: each session read once, its latest summary sent once. */
  private async flush() {
    const changes = [...this.pending.values()]
    this.pending = new Map()
    const staleBefore = this.hub.staleBefore()
    const frames: { sessionId: string; version: number; frame: Uint8Array }[] = []
    try {
      for (let i = 0; i < changes.length; i += READ_CONCURRENCY) {
        const batch = changes.slice(i, i + READ_CONCURRENCY)
        const sessions = await Promise.all(
          batch.map((event) =>
            event.source === 'delete'
              ? null
              : this.hub.options.store.get({ tenant: this.tenant, sessionId: event.session_id })
          )
        )
        batch.forEach((event, j) => {
          const sessionId = event.session_id
          const session = sessions[j]
          if (event.source === 'delete') {
            this.sent.delete(sessionId)
            frames.push({ sessionId, version: 0, frame: deleteFrame(sessionId) })
            return
          }
          if (!session || session.version <= (this.sent.get(sessionId) ?? 0)) return
          this.remember(sessionId, session.version)
          frames.push({
            sessionId,
            version: session.version,
            frame: encodeMessage({
              event: 'update',
              id: String(session.version),
              data: JSON.stringify(sessionSummary(session, staleBefore)),
            }),
          })
        })
        if (i + READ_CONCURRENCY < changes.length) await yieldToLoop()
      }
    } catch (error) {
      // read again next time: what this window did not send
      for (const event of changes)
        if (!this.pending.has(event.session_id)) this.pending.set(event.session_id, event)
      throw error
    }
    const outbox = new Outbox()
    for (const stream of this.streams) {
      const snapshot = this.snapshots.get(stream)
      for (const { sessionId, version, frame } of frames) {
        if (version && (snapshot?.get(sessionId) ?? 0) >= version) continue
        outbox.add(stream, frame)
      }
    }
    this.deliver(outbox)
  }

  /** Sessions that turned stale since the last check, as updates (same version, new state). */
  private async publishStale() {
    const staleBefore = this.hub.staleBefore()
    const updatedSince = this.staleFrom
    if (staleBefore <= updatedSince) return
    const outbox = new Outbox()
    let cursor
    for (let pages = 0; pages < 5; pages++) {
      const page = await this.hub.options.store.list(this.tenant, {
        state: 'stale',
        staleBefore,
        updatedSince,
        limit: TENANT_SNAPSHOT_LIMIT,
        cursor,
      })
      for (const session of page.sessions) {
        if (session.version < (this.sent.get(session.session_id) ?? 0)) continue
        const frame = encodeMessage({
          event: 'update',
          id: String(session.version),
          data: JSON.stringify(sessionSummary(session, staleBefore)),
        })
        for (const stream of this.streams) outbox.add(stream, frame)
      }
      if (!page.next) break
      cursor = page.next
    }
    this.staleFrom = staleBefore
    this.deliver(outbox)
  }

  protected forget() {
    this.onForget()
  }
}

interface SessionJoin {
  stream: SseStream
  /** The client's Last-Event-ID, when it resumes. */
  lastEventId: number | undefined
}

type Sink = (stream: SseStream, frame: Uint8Array) => void

/** One session: full views, every version in order. */
class SessionTopic extends Topic {
  /** The version each subscriber has been sent. */
  private readonly sentTo = new Map<SseStream, number>()
  private joins: SessionJoin[] = []
  private pending: ChangeEvent | null = null
  /** The newest version read, and the state its view showed. */
  private last: { version: number; state: SessionState } | null = null

  constructor(
    hub: HubContext,
    readonly key: SessionKey,
    private readonly onForget: () => void
  ) {
    super(hub)
  }

  join(stream: SseStream, lastEventId: number | undefined) {
    this.streams.add(stream)
    this.joins.push({ stream, lastEventId })
    this.kick()
  }

  override remove(stream: SseStream) {
    this.sentTo.delete(stream)
    super.remove(stream)
  }

  onChange(event: ChangeEvent) {
    if (event.source !== 'delete' && this.last && event.version <= this.last.version) return
    if (this.pending?.source !== 'delete') this.pending = event
    this.later()
  }

  protected async step(): Promise<boolean> {
    if (this.joins.length) {
      const joins = this.joins.splice(0)
      try {
        await this.catchUp(joins, (stream, frame) => stream.send(frame))
      } catch (error) {
        for (const { stream } of joins) stream.close()
        throw error
      }
      return true
    }
    if (this.flushDue && this.pending) {
      this.flushDue = false
      const event = this.pending
      this.pending = null
      if (event.source === 'delete') {
        this.broadcast(deleteFrame(this.key.sessionId))
        this.closeAll()
        return false
      }
      const outbox = new Outbox()
      try {
        await this.catchUp(
          [...this.sentTo].map(([stream, sent]) => ({ stream, lastEventId: sent })),
          (stream, frame) => outbox.add(stream, frame)
        )
      } catch (error) {
        this.pending ??= event
        throw error
      }
      this.deliver(outbox)
      return true
    }
    this.flushDue = false
    if (this.staleDue) {
      this.staleDue = false
      await this.restate()
      return true
    }
    return false
  }

  /**
   * Brings each stream up to the current version: a snapshot for a new client (or one whose
   * Last-Event-ID is unknown, older than the kept history, or too far behind for its backlog
   * bound), else every missed version from history, then the current view. Each frame is built
   * once for all the streams that need it.
   */
  private async catchUp(joins: SessionJoin[], sink: Sink) {
    const session = await this.hub.options.store.get(this.key)
    if (!session) {
      for (const { stream } of joins) {
        stream.send(deleteFrame(this.key.sessionId))
        stream.close()
      }
      return
    }
    const staleBefore = this.hub.staleBefore()
    const version = session.version
    const view = await stringifySliced(sessionView(session, staleBefore), 'items')
    const frames = new Map<string, Uint8Array>()
    const current = (event: 'snapshot' | 'update') => {
      let frame = frames.get(event)
      if (!frame) {
        frame = encodeMessage({ event, id: String(version), data: view })
        frames.set(event, frame)
      }
      return frame
    }
    const behind = joins.filter(
      (j) => j.lastEventId !== undefined && j.lastEventId >= 0 && j.lastEventId < version - 1
    )
    const replay = behind.length
      ? await this.replayFrames(
          Math.min(...behind.map((j) => j.lastEventId!)),
          session,
          staleBefore,
          current('update').byteLength
        )
      : null
    for (const { stream, lastEventId } of joins) {
      if (!stream.open) continue
      if (lastEventId === undefined || lastEventId > version) {
        sink(stream, current('snapshot'))
      } else if (lastEventId === version - 1) {
        sink(stream, current('update'))
      } else if (lastEventId < version) {
        const bytes = replay?.bytesFrom(lastEventId + 1)
        if (bytes === undefined || stream.backlog + bytes > this.hub.options.maxBacklogBytes) {
          // the gap is older than the kept history, or replaying it would overflow the
          // client's backlog: start over from the current state
          sink(stream, current('snapshot'))
        } else {
          for (let v = lastEventId + 1; v < version; v++) sink(stream, replay!.frames.get(v)!)
          sink(stream, current('update'))
        }
      }
      this.sentTo.set(stream, version)
    }
    if (!this.last || version >= this.last.version) {
      this.last = { version, state: stateOf(session, staleBefore) }
    }
  }

  /**
   * The frames of the versions after `from` and before the session's current one, from
   * history, built newest first and only while they fit in a client's backlog with the current
   * view (`currentBytes`): a larger gap is answered with a snapshot, so the work stays bounded.
   * `bytesFrom(v)` is the size of the replay from version v on (with the current view), or
   * undefined when those versions are not all at hand.
   */
  private async replayFrames(
    from: number,
    session: Session,
    staleBefore: number,
    currentBytes: number
  ) {
    const { store, historyLimit, maxBacklogBytes } = this.hub.options
    const frames = new Map<number, Uint8Array>()
    const suffix = new Map<number, number>()
    let bytes = currentBytes
    let before = session.version
    let wanted = Math.min(historyLimit, session.version - 1 - from)
    reading: while (wanted > 0 && bytes <= maxBacklogBytes) {
      const batch = await store.history(this.key, Math.min(REPLAY_BATCH, wanted), before)
      if (!batch.length) break
      for (let i = batch.length - 1; i >= 0; i--) {
        const entry = batch[i]
        if (entry.version !== before - 1) break reading // history has a gap here
        const frame = encodeMessage({
          event: 'update',
          id: String(entry.version),
          data: await stringifySliced(historicalView(session, entry, staleBefore), 'items'),
        })
        bytes += frame.byteLength
        if (bytes > maxBacklogBytes) break reading
        frames.set(entry.version, frame)
        suffix.set(entry.version, bytes)
        before = entry.version
        wanted--
        await yieldToLoop()
      }
    }
    return {
      frames,
      bytesFrom: (v: number) => (v >= session.version ? currentBytes : suffix.get(v)),
    }
  }

  /** Re-sends the current view when the session turned stale without a write. */
  private async restate() {
    if (!this.last || this.last.state !== 'active') return
    const session = await this.hub.options.store.get(this.key)
    if (!session || session.version !== this.last.version) return
    const staleBefore = this.hub.staleBefore()
    const state = stateOf(session, staleBefore)
    if (state === this.last.state) return
    this.last = { version: session.version, state }
    const data = await stringifySliced(sessionView(session, staleBefore), 'items')
    this.broadcast(encodeMessage({ event: 'update', id: String(session.version), data }))
  }

  protected forget() {
    this.onForget()
  }
}

export interface EventHub {
  /**
   * Opens a tenant stream: a snapshot of the newest sessions, then a summary per change.
   * @param drop - closes the client's connection, for an eviction
   * @throws StreamCapError when the tenant is at its cap
   */
  openTenant(tenant: string, drop?: () => void): SseStream
  /**
   * Opens a session stream: a snapshot (or the versions after `lastEventId`), then a view per
   * version, and `delete` when the session goes.
   * @param drop - closes the client's connection, for an eviction
   * @throws StreamCapError when the tenant is at its cap
   */
  openSession(key: SessionKey, lastEventId: number | undefined, drop?: () => void): SseStream
  /** Open streams of a tenant on this instance. */
  openStreams(tenant: string): number
}

/**
 * Creates the hub of one app.
 * @param options - store, limits, clock, shutdown signal
 */
export function createEventHub(options: EventHubOptions): EventHub {
  const tenants = new Map<string, TenantTopic>()
  const sessions = new Map<string, SessionTopic>()
  const open = new Map<string, number>()
  const hub: HubContext = {
    options,
    flushMs: options.flushMs ?? 100,
    fanoutBytesPerSecond: options.fanoutBytesPerSecond ?? 64 * 1024 * 1024,
    staleCheckMs: Math.min(15_000, Math.max(250, Math.floor(options.staleAfterMs / 4))),
    staleBefore: () => options.now() - options.staleAfterMs,
  }

  let unsubscribe: (() => void) | null = null
  const listen = () => {
    unsubscribe ??= options.store.subscribe((event) => {
      tenants.get(event.tenant)?.onChange(event)
      sessions.get(keyOf({ tenant: event.tenant, sessionId: event.session_id }))?.onChange(event)
    })
  }
  const quiet = () => {
    if (tenants.size === 0 && sessions.size === 0 && unsubscribe) {
      unsubscribe()
      unsubscribe = null
    }
  }

  // one listener for the app, whatever the number of streams
  options.shutdownSignal?.addEventListener(
    'abort',
    () => {
      for (const topic of [...tenants.values(), ...sessions.values()]) topic.closeAll()
    },
    { once: true }
  )

  const admit = (
    tenant: string,
    label: 'tenant' | 'session',
    onEnd: () => void,
    drop?: () => void
  ) => {
    const count = open.get(tenant) ?? 0
    const cap = options.maxStreamsPerTenant
    if (cap > 0 && count >= cap) {
      options.metrics.sseRefused.inc({ stream: label })
      throw new StreamCapError(cap)
    }
    open.set(tenant, count + 1)
    options.metrics.sseClients.inc({ stream: label })
    return new SseStream(
      options.maxBacklogBytes,
      (how) => {
        const left = (open.get(tenant) ?? 1) - 1
        if (left > 0) open.set(tenant, left)
        else open.delete(tenant)
        options.metrics.sseClients.dec({ stream: label })
        if (how === 'evicted') options.metrics.sseEvicted.inc({ stream: label })
        onEnd()
      },
      drop
    )
  }

  return {
    openTenant(tenant, drop) {
      listen()
      let topic: TenantTopic | undefined
      const stream = admit(tenant, 'tenant', () => topic?.remove(stream), drop)
      topic = tenants.get(tenant)
      if (!topic) {
        const created: TenantTopic = new TenantTopic(hub, tenant, () => {
          if (tenants.get(tenant) === created) tenants.delete(tenant)
          quiet()
        })
        topic = created
        tenants.set(tenant, created)
      }
      topic.join(stream)
      return stream
    },
    openSession(key, lastEventId, drop) {
      listen()
      const k = keyOf(key)
      let topic: SessionTopic | undefined
      const stream = admit(key.tenant, 'session', () => topic?.remove(stream), drop)
      topic = sessions.get(k)
      if (!topic) {
        const created: SessionTopic = new SessionTopic(hub, key, () => {
          if (sessions.get(k) === created) sessions.delete(k)
          quiet()
        })
        topic = created
        sessions.set(k, created)
      }
      topic.join(stream, lastEventId)
      return stream
    },
    openStreams: (tenant) => open.get(tenant) ?? 0,
  }
}
