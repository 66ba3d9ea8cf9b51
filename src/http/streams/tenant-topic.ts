/**
 * @module http/streams/tenant-topic
 * A tenant stream's topic: a snapshot of summaries for each joining stream, then per window the
 * latest summary of every session that changed (each read once), and the sessions that turned
 * stale.
 */
import { findBrief, listSessions } from '../../service/reads.js'
import type { ChangeEvent } from '../../store/types.js'
import { jsonArrayWithin, PAGE_BYTES, yieldToLoop } from '../json-parts.js'
import { sessionSummary } from '../../service/views.js'
import { encodeMessage, type SseStream } from './sse.js'
import { deleteFrame, Outbox, Topic, type HubContext } from './topic.js'

/** How many of the newest sessions a tenant snapshot holds (and at most PAGE_BYTES of them). */
export const TENANT_SNAPSHOT_LIMIT = 200
/** How many recently sent versions a tenant topic remembers, to skip repeats. */
const SENT_MEMORY = 10_000
/** Sessions of a tenant window read concurrently. */
const READ_CONCURRENCY = 16

/** Every session of one tenant: summaries. */
export class TenantTopic extends Topic {
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
    const sent = this.sent.get(event.session_id) ?? 0
    // a quiet write changed the summary under the version sent: it goes out again
    if (
      event.source !== 'delete' &&
      (event.version < sent || (event.version === sent && !event.quiet))
    )
      return
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
      page = await listSessions(this.hub.options, this.tenant, {
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
    const outbox = new Outbox()
    for (const stream of joins) {
      this.snapshots.set(stream, versions)
      outbox.add(stream, frame)
    }
    await this.deliver(outbox)
  }

  private remember(sessionId: string, version: number) {
    this.sent.delete(sessionId)
    this.sent.set(sessionId, version)
    if (this.sent.size > SENT_MEMORY) this.sent.delete(this.sent.keys().next().value!)
  }

  /** The window's changes: each session's brief read once, its latest summary sent once. */
  private async flush() {
    const changes = [...this.pending.values()]
    this.pending = new Map()
    const staleBefore = this.hub.staleBefore()
    const frames: { sessionId: string; version: number; again: boolean; frame: Uint8Array }[] = []
    try {
      for (let i = 0; i < changes.length; i += READ_CONCURRENCY) {
        const batch = changes.slice(i, i + READ_CONCURRENCY)
        const sessions = await Promise.all(
          batch.map((event) =>
            event.source === 'delete'
              ? Promise.resolve(null)
              : findBrief(this.hub.options, { tenant: this.tenant, sessionId: event.session_id })
          )
        )
        batch.forEach((event, j) => {
          const sessionId = event.session_id
          const session = sessions[j]
          if (event.source === 'delete') {
            this.sent.delete(sessionId)
            frames.push({ sessionId, version: 0, again: false, frame: deleteFrame(sessionId) })
            return
          }
          // a quiet write's summary goes to every stream, whatever version it has seen
          const again = event.quiet === true && session?.version === event.version
          if (!session || (session.version <= (this.sent.get(sessionId) ?? 0) && !again)) return
          this.remember(sessionId, session.version)
          frames.push({
            sessionId,
            version: session.version,
            again,
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
      for (const { sessionId, version, again, frame } of frames) {
        if (version && !again && (snapshot?.get(sessionId) ?? 0) >= version) continue
        outbox.add(stream, frame)
      }
    }
    await this.deliver(outbox)
  }

  /** Sessions that turned stale since the last check, as updates (same version, new state). */
  private async publishStale() {
    const staleBefore = this.hub.staleBefore()
    const updatedSince = this.staleFrom
    if (staleBefore <= updatedSince) return
    const outbox = new Outbox()
    let cursor
    for (let pages = 0; pages < 5; pages++) {
      const page = await listSessions(this.hub.options, this.tenant, {
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
    await this.deliver(outbox)
  }

  protected forget() {
    this.onForget()
  }
}
