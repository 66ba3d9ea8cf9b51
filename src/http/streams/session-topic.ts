/**
 * @module http/streams/session-topic
 * A session stream's topic: each joining stream is brought up to date (a snapshot, or the
 * versions after its Last-Event-ID), then per window every new version, each view built once.
 */
import type { Session, SessionKey, SessionState } from '../../core/session.js'
import { findSession, sessionHistory } from '../../service/reads.js'
import type { ChangeEvent } from '../../store/types.js'
import { stringifySliced, yieldToLoop } from '../json-parts.js'
import { historicalView, sessionView, stateOf } from '../../service/views.js'
import { encodeMessage, type SseStream } from './sse.js'
import { deleteFrame, Outbox, Topic, type HubContext } from './topic.js'

/** History entries read per call while a replay is assembled. */
const REPLAY_BATCH = 8

interface SessionJoin {
  stream: SseStream
  /** The client's Last-Event-ID, when it resumes. */
  lastEventId: number | undefined
}

type Sink = (stream: SseStream, frame: Uint8Array) => void

/** One session: full views, every version in order. */
export class SessionTopic extends Topic {
  /** The version each subscriber has been sent. */
  private readonly sentTo = new Map<SseStream, number>()
  private joins: SessionJoin[] = []
  private pending: ChangeEvent | null = null
  /** A quiet write changed the view under the version the streams have: send it again. */
  private quietDue = false
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
    if (event.quiet && this.last && event.version === this.last.version) {
      this.quietDue = true
      this.later()
      return
    }
    if (event.source !== 'delete' && this.last && event.version <= this.last.version) return
    if (this.pending?.source !== 'delete') this.pending = event
    this.later()
  }

  protected async step(): Promise<boolean> {
    if (this.joins.length) {
      const joins = this.joins.splice(0)
      try {
        const outbox = new Outbox()
        await this.catchUp(joins, (stream, frame) => outbox.add(stream, frame))
        await this.deliver(outbox)
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
      await this.deliver(outbox)
      return true
    }
    this.flushDue = false
    if (this.quietDue) {
      this.quietDue = false
      try {
        await this.restate(true)
      } catch (error) {
        this.quietDue = true
        throw error
      }
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
   * Last-Event-ID is unknown, older than the kept history, or too far behind for its backlog
   * bound), else every missed version from history, then the current view. Each frame is built
   * once for all the streams that need it.
   */
  private async catchUp(joins: SessionJoin[], sink: Sink) {
    const session = await findSession(this.hub.options, this.key)
    if (!session) {
      for (const { stream } of joins) {
        stream.send(deleteFrame(this.key.sessionId))
        stream.close()
      }
      return
    }
    const staleBefore = this.hub.staleBefore()
    const version = session.version
    const view = await stringifySliced(sessionView(session, staleBefore))
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
    const { historyLimit, maxBacklogBytes } = this.hub.options
    const frames = new Map<number, Uint8Array>()
    const suffix = new Map<number, number>()
    let bytes = currentBytes
    let before = session.version
    let wanted = Math.min(historyLimit, session.version - 1 - from)
    reading: while (wanted > 0 && bytes <= maxBacklogBytes) {
      const batch = await sessionHistory(
        this.hub.options,
        this.key,
        Math.min(REPLAY_BATCH, wanted),
        before
      )
      if (!batch.length) break
      for (let i = batch.length - 1; i >= 0; i--) {
        const entry = batch[i]
        if (entry.version !== before - 1) break reading // history has a gap here
        const frame = encodeMessage({
          event: 'update',
          id: String(entry.version),
          data: await stringifySliced(historicalView(session, entry, staleBefore)),
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

  /**
   * Re-sends the current view under the same id: when the session turned stale without a write,
   * or (`quiet`) when a quiet write changed it without a version (a keep-alive, a staged call, a
   * delivered edit).
   */
  private async restate(quiet = false) {
    if (!this.last || (!quiet && this.last.state !== 'active')) return
    const session = await findSession(this.hub.options, this.key)
    if (!session || session.version !== this.last.version) return
    const staleBefore = this.hub.staleBefore()
    const state = stateOf(session, staleBefore)
    if (!quiet && state === this.last.state) return
    this.last = { version: session.version, state }
    const data = await stringifySliced(sessionView(session, staleBefore))
    const frame = encodeMessage({ event: 'update', id: String(session.version), data })
    const outbox = new Outbox()
    for (const stream of this.streams) outbox.add(stream, frame)
    await this.deliver(outbox)
  }

  protected forget() {
    this.onForget()
  }
}
