/**
 * @module http/event-hub
 * The per-process fan-out behind the event streams. One store subscription for the whole app;
 * one topic per tenant stream and per session stream that has subscribers. A topic reads a
 * changed session once per version (changes that arrive while a read is under way are coalesced),
 * serialises the event once, and queues the same bytes on every subscriber's stream, so the cost
 * of a write no longer grows with the number of viewers. It also pushes the one change that
 * needs no write: an unfinished session turning stale.
 */
import type { Logger } from 'pino'
import type { Session, SessionKey, SessionState } from '../core/session.js'
import type { ChangeEvent, SessionStore } from '../store/types.js'
import type { Metrics } from './metrics.js'
import { encodeMessage, HEARTBEAT, SseStream } from './sse.js'
import { jsonArrayWithin, PAGE_BYTES, yieldToLoop } from './json-parts.js'
import { historicalView, sessionSummary, sessionView, stateOf } from './views.js'

export interface EventHubOptions {
  store: SessionStore
  logger: Logger
  metrics: Metrics
  now: () => number
  staleAfterMs: number
  historyLimit: number
  heartbeatMs: number
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

/** Runs queued work one step at a time; `kick` starts it when idle. */
abstract class Topic {
  readonly streams = new Set<SseStream>()
  /** Set by the stale timer; the next step checks for sessions that turned stale. */
  protected staleDue = false
  private running = false
  private heartbeat: NodeJS.Timeout
  private staleTimer: NodeJS.Timeout

  constructor(protected readonly hub: HubContext) {
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
  /** Called when the last subscriber left or the topic ended. */
  protected abstract forget(): void

  protected broadcast(frame: Uint8Array) {
    for (const stream of this.streams) stream.send(frame)
  }

  protected kick() {
    if (this.running) return
    this.running = true
    void (async () => {
      try {
        for (;;) {
          let more: boolean
          try {
            more = await this.step()
          } catch (error) {
            this.hub.options.logger.warn({ err: error }, 'event stream: store read failed')
            more = true
          }
          if (!more || this.streams.size === 0) break
        }
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
    clearInterval(this.heartbeat)
    clearInterval(this.staleTimer)
    this.forget()
  }
}

interface HubContext {
  options: EventHubOptions
  staleCheckMs: number
  staleBefore(): number
}

interface TenantJoin {
  stream: SseStream
}

/** Every session of one tenant: summaries. */
class TenantTopic extends Topic {
  /** The version last broadcast per session (insertion order: oldest first, bounded). */
  private readonly sent = new Map<string, number>()
  /** The snapshot each subscriber started from: versions it must not receive again. */
  private readonly snapshots = new WeakMap<SseStream, ReadonlyMap<string, number>>()
  private readonly pending = new Map<string, ChangeEvent>()
  private joins: TenantJoin[] = []
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
    this.joins.push({ stream })
    this.kick()
  }

  onChange(event: ChangeEvent) {
    if (event.source !== 'delete' && event.version <= (this.sent.get(event.session_id) ?? 0)) return
    // the newest event of a session stands for the ones before it
    this.pending.delete(event.session_id)
    this.pending.set(event.session_id, event)
    this.kick()
  }

  protected async step(): Promise<boolean> {
    if (this.joins.length) {
      await this.snapshot(this.joins.splice(0))
      return true
    }
    const next = this.pending.entries().next()
    if (!next.done) {
      const [sessionId, event] = next.value
      this.pending.delete(sessionId)
      await this.publish(sessionId, event)
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
  private async snapshot(joins: TenantJoin[]) {
    const staleBefore = this.hub.staleBefore()
    const page = await this.hub.options.store.list(this.tenant, {
      state: 'all',
      limit: TENANT_SNAPSHOT_LIMIT,
      staleBefore,
    })
    const { json, taken } = await jsonArrayWithin(
      page.sessions,
      (session) => JSON.stringify(sessionSummary(session, staleBefore)),
      PAGE_BYTES
    )
    const versions = new Map(page.sessions.slice(0, taken).map((s) => [s.session_id, s.version]))
    const frame = encodeMessage({ event: 'snapshot', data: `{"sessions":${json}}` })
    for (const { stream } of joins) {
      this.snapshots.set(stream, versions)
      stream.send(frame)
    }
  }

  private remember(sessionId: string, version: number) {
    this.sent.delete(sessionId)
    this.sent.set(sessionId, version)
    if (this.sent.size > SENT_MEMORY) this.sent.delete(this.sent.keys().next().value!)
  }

  private async publish(sessionId: string, event: ChangeEvent) {
    if (event.source === 'delete') {
      this.sent.delete(sessionId)
      this.broadcast(deleteFrame(sessionId))
      return
    }
    if (event.version <= (this.sent.get(sessionId) ?? 0)) return
    const session = await this.hub.options.store.get({ tenant: this.tenant, sessionId })
    if (!session || session.version <= (this.sent.get(sessionId) ?? 0)) return
    this.remember(sessionId, session.version)
    const frame = encodeMessage({
      event: 'update',
      id: String(session.version),
      data: JSON.stringify(sessionSummary(session, this.hub.staleBefore())),
    })
    for (const stream of this.streams) {
      if ((this.snapshots.get(stream)?.get(sessionId) ?? 0) < session.version) stream.send(frame)
    }
  }

  /** Sessions that turned stale since the last check, as updates (same version, new state). */
  private async publishStale() {
    const staleBefore = this.hub.staleBefore()
    const updatedSince = this.staleFrom
    if (staleBefore <= updatedSince) return
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
        this.broadcast(
          encodeMessage({
            event: 'update',
            id: String(session.version),
            data: JSON.stringify(sessionSummary(session, staleBefore)),
          })
        )
      }
      if (!page.next) break
      cursor = page.next
    }
    this.staleFrom = staleBefore
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
    this.kick()
  }

  protected async step(): Promise<boolean> {
    if (this.joins.length) {
      await this.catchUp(this.joins.splice(0))
      return true
    }
    if (this.pending) {
      const event = this.pending
      this.pending = null
      if (event.source === 'delete') {
        this.broadcast(deleteFrame(this.key.sessionId))
        this.closeAll()
        return false
      }
      await this.catchUp([...this.sentTo].map(([stream, sent]) => ({ stream, lastEventId: sent })))
      return true
    }
    if (this.staleDue) {
      this.staleDue = false
      await this.restate()
      return true
    }
    return false
  }

  /**
   * Brings each stream up to the current version: a snapshot for a new client (or one whose
   * Last-Event-ID is unknown or older than the kept history), else every missed version from
   * history, then the current view. Each frame is built once for all the streams that need it.
   */
  private async catchUp(joins: SessionJoin[]) {
    const { store, historyLimit } = this.hub.options
    const session = await store.get(this.key)
    if (!session) {
      for (const { stream } of joins) {
        stream.send(deleteFrame(this.key.sessionId))
        stream.close()
      }
      return
    }
    const staleBefore = this.hub.staleBefore()
    const version = session.version
    let view: string | undefined
    const viewJson = () => (view ??= JSON.stringify(sessionView(session, staleBefore)))
    const frames = new Map<string, Uint8Array>()
    const current = (event: 'snapshot' | 'update') => {
      let frame = frames.get(event)
      if (!frame) {
        frame = encodeMessage({ event, id: String(version), data: viewJson() })
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
        stream.send(current('snapshot'))
      } else if (lastEventId === version - 1) {
        stream.send(current('update'))
      } else if (lastEventId < version) {
        const bytes = replay?.bytesFrom(lastEventId + 1)
        if (bytes === undefined || stream.backlog + bytes > this.hub.options.maxBacklogBytes) {
          // the gap is older than the kept history, or replaying it would overflow the
          // client's backlog: start over from the current state
          stream.send(current('snapshot'))
        } else {
          for (let v = lastEventId + 1; v < version; v++) stream.send(replay!.frames.get(v)!)
          stream.send(current('update'))
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
          data: JSON.stringify(historicalView(session, entry, staleBefore)),
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
    this.broadcast(
      encodeMessage({
        event: 'update',
        id: String(session.version),
        data: JSON.stringify(sessionView(session, staleBefore)),
      })
    )
  }

  protected forget() {
    this.onForget()
  }
}

export interface EventHub {
  /**
   * Opens a tenant stream: a snapshot of the newest sessions, then a summary per change.
   * @throws StreamCapError when the tenant is at its cap
   */
  openTenant(tenant: string): SseStream
  /**
   * Opens a session stream: a snapshot (or the versions after `lastEventId`), then a view per
   * version, and `delete` when the session goes.
   * @throws StreamCapError when the tenant is at its cap
   */
  openSession(key: SessionKey, lastEventId: number | undefined): SseStream
  /** Open streams per tenant (tests, metrics). */
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

  const admit = (tenant: string, label: 'tenant' | 'session', onEnd: () => void) => {
    const count = open.get(tenant) ?? 0
    const cap = options.maxStreamsPerTenant
    if (cap > 0 && count >= cap) {
      options.metrics.sseRefused.inc({ stream: label })
      throw new StreamCapError(cap)
    }
    open.set(tenant, count + 1)
    options.metrics.sseClients.inc({ stream: label })
    return new SseStream(options.maxBacklogBytes, (how) => {
      const left = (open.get(tenant) ?? 1) - 1
      if (left > 0) open.set(tenant, left)
      else open.delete(tenant)
      options.metrics.sseClients.dec({ stream: label })
      if (how === 'evicted') options.metrics.sseEvicted.inc({ stream: label })
      onEnd()
    })
  }

  return {
    openTenant(tenant) {
      listen()
      let topic: TenantTopic | undefined
      const stream = admit(tenant, 'tenant', () => topic?.remove(stream))
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
      if (options.shutdownSignal?.aborted) stream.close()
      return stream
    },
    openSession(key, lastEventId) {
      listen()
      const k = keyOf(key)
      let topic: SessionTopic | undefined
      const stream = admit(key.tenant, 'session', () => topic?.remove(stream))
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
      if (options.shutdownSignal?.aborted) stream.close()
      return stream
    },
    openStreams: (tenant) => open.get(tenant) ?? 0,
  }
}
