/**
 * @module http/streams/topic
 * What every stream topic shares: the window that gathers changes, the outbox that sends each
 * stream one chunk per window, the fan-out budget that lengthens the window, heartbeats, the
 * stale timer and the step loop that runs queued work in order.
 */
import type { ChangeEvent } from '../../store/types.js'
import type { EventHubOptions } from './hub-options.js'
import { yieldToLoop } from '../json-parts.js'
import { encodeMessage, HEARTBEAT, type SseStream } from './sse.js'

/** After a failed store read, the topic tries again this much later. */
const RETRY_MS = 1000
/** What a write to a stream costs beyond its bytes, in the fan-out budget. */
const WRITE_COST_BYTES = 4096
/** The longest window the fan-out budget may ask for. */
const MAX_WINDOW_MS = 30_000
/** A chunk this large is followed by a turn of the event loop. */
const LARGE_CHUNK = 64 * 1024
/** How long delivery runs before it lets other work in. */
const SLICE_MS = 4

/** The `delete` event of a session. */
export const deleteFrame = (sessionId: string) =>
  encodeMessage({ event: 'delete', data: JSON.stringify({ session_id: sessionId }) })

/** What the hub hands its topics. */
export interface HubContext {
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
export class Outbox {
  private readonly lists = new Map<SseStream, Uint8Array[]>()

  add(stream: SseStream, frame: Uint8Array) {
    const list = this.lists.get(stream)
    if (list) list.push(frame)
    else this.lists.set(stream, [frame])
  }

  /**
   * Sends each stream its chunk; returns the cost in the fan-out budget. The Node adapter writes
   * a chunk to its socket as soon as it is queued (a copy into the kernel): after a large chunk,
   * or every few ms, the event loop gets its turn.
   */
  async deliver(): Promise<number> {
    let cost = 0
    let slice = performance.now()
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
      if (chunk.byteLength >= LARGE_CHUNK || performance.now() - slice > SLICE_MS) {
        await yieldToLoop()
        slice = performance.now()
      }
    }
    this.lists.clear()
    return cost
  }
}

/**
 * Queued work, run one step at a time: joins at once, changes after the window, the stale
 * check on its timer.
 */
export abstract class Topic {
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
  protected async deliver(outbox: Outbox) {
    const cost = await outbox.deliver()
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
