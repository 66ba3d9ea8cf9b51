/**
 * @module http/streams/sse
 * Server-Sent Events on the wire: frames encoded once and written to any number of clients, and
 * one client's stream with a bound on the bytes it has not taken yet.
 */
import { yieldToLoop } from '../json-parts.js'

const encoder = new TextEncoder()

/** What the stream hands the adapter at a time. */
const PIECE_BYTES = 64 * 1024

export interface SseMessage {
  event: string
  /** The `id:` field (a version); none when absent. */
  id?: string
  /** One line of text (JSON); other line breaks are split into `data:` lines. */
  data: string
}

/**
 * A message as the bytes every subscriber receives.
 * @param message - event name, id and data
 */
export function encodeMessage(message: SseMessage): Uint8Array {
  const { data } = message
  // JSON text has no raw CR or LF; other data is split as the format requires
  const lines =
    data.indexOf('\n') < 0 && data.indexOf('\r') < 0
      ? `data: ${data}`
      : data
          .split(/\r\n|\r|\n/)
          .map((line) => `data: ${line}`)
          .join('\n')
  const id = message.id === undefined ? '' : `id: ${message.id}\n`
  return encoder.encode(`event: ${message.event}\n${id}${lines}\n\n`)
}

/** A comment line, which keeps a connection open without an event. */
export const HEARTBEAT = encoder.encode(': heartbeat\n\n')

export type StreamEnd = 'closed' | 'cancelled' | 'evicted'

/**
 * One client's event stream. Frames wait in the stream's own queue, counted in bytes, and are
 * handed to the Node adapter a piece (at most 64 KiB) at a time as it asks for them, with a turn
 * of the event loop after each piece: a 2 MB view goes to the socket in slices, not in one
 * block. While the client reads (the adapter waits for the socket to drain), the queue stays
 * short; a client that stops reading is evicted once its unsent backlog passes
 * `maxBacklogBytes`, and reconnects with `Last-Event-ID`.
 */
export class SseStream {
  readonly body: ReadableStream<Uint8Array>
  private controller!: ReadableStreamDefaultController<Uint8Array>
  private readonly queue: Uint8Array[] = []
  private queued = 0
  /** Bytes handed to the adapter since the last turn of the event loop. */
  private sinceYield = 0
  /** Wakes a pull that waits for a frame. */
  private wake: (() => void) | null = null
  private ended: StreamEnd | null = null

  /**
   * @param maxBacklogBytes - queued bytes beyond which the client is dropped (one larger frame
   *   on an empty queue is let through)
   * @param onEnd - called once, however the stream ends
   * @param drop - closes the client's connection (the Node adapter's response); without it an
   *   evicted stream errors, which makes the adapter close the connection and log the error
   */
  constructor(
    private readonly maxBacklogBytes: number,
    private readonly onEnd: (how: StreamEnd) => void,
    private readonly drop?: () => void
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller
        },
        pull: (controller) => this.pull(controller),
        cancel: () => {
          this.clear()
          this.finish('cancelled')
        },
      },
      { highWaterMark: 0 }
    )
  }

  /** Bytes queued and not yet taken by the client. */
  get backlog(): number {
    return this.queued
  }

  get open(): boolean {
    return this.ended === null
  }

  /**
   * Queues a frame; false when the stream has ended (or ends now: the backlog is over the bound).
   * @param frame - bytes from `encodeMessage` or `HEARTBEAT`
   */
  send(frame: Uint8Array): boolean {
    if (this.ended) return false
    const before = this.queued
    this.queue.push(frame)
    this.queued += frame.byteLength
    if (before > 0 && this.queued > this.maxBacklogBytes) {
      // the queued frames go with the connection (the adapter cancels the body when it closes)
      this.clear()
      this.finish('evicted')
      if (this.drop) this.drop()
      else this.controller.error(new Error('event stream backlog over its bound: reconnect'))
      return false
    }
    this.wakeUp()
    return true
  }

  /** Ends the stream once the client has what is queued. */
  close(): void {
    if (this.ended) return
    this.finish('closed')
    this.wakeUp()
  }

  /** The adapter asks for the next piece. */
  private async pull(controller: ReadableStreamDefaultController<Uint8Array>) {
    while (!this.queue.length) {
      if (this.ended) {
        if (this.ended === 'closed') controller.close()
        return
      }
      await new Promise<void>((resolve) => (this.wake = resolve))
    }
    if (this.sinceYield >= PIECE_BYTES) {
      await yieldToLoop()
      this.sinceYield = 0
      if (this.ended && this.ended !== 'closed') return
    }
    let piece = this.queue[0]
    if (piece.byteLength > PIECE_BYTES) {
      this.queue[0] = piece.subarray(PIECE_BYTES)
      piece = piece.subarray(0, PIECE_BYTES)
    } else {
      this.queue.shift()
    }
    this.queued -= piece.byteLength
    this.sinceYield += piece.byteLength
    controller.enqueue(piece)
  }

  private wakeUp() {
    const wake = this.wake
    this.wake = null
    wake?.()
  }

  private clear() {
    this.queue.length = 0
    this.queued = 0
  }

  private finish(how: StreamEnd) {
    if (this.ended) return
    this.ended = how
    this.onEnd(how)
  }
}
