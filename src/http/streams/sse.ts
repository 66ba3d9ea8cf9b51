/**
 * @module http/streams/sse
 * Server-Sent Events on the wire: frames encoded once and written to any number of clients, and
 * one client's stream with a bound on the bytes it has not taken yet.
 */

const encoder = new TextEncoder()

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
 * One client's event stream. Frames are queued in the response body's own queue, sized in bytes:
 * while the client reads (the Node adapter waits for the socket to drain), the queue stays empty;
 * a client that stops reading is evicted once its unsent backlog passes `maxBacklogBytes`, and
 * reconnects with `Last-Event-ID`.
 */
export class SseStream {
  readonly body: ReadableStream<Uint8Array>
  private controller!: ReadableStreamDefaultController<Uint8Array>
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
        cancel: () => this.finish('cancelled'),
      },
      { highWaterMark: maxBacklogBytes, size: (chunk) => chunk.byteLength }
    )
  }

  /** Bytes queued and not yet taken by the client. */
  get backlog(): number {
    return this.maxBacklogBytes - (this.controller.desiredSize ?? this.maxBacklogBytes)
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
    const before = this.backlog
    this.controller.enqueue(frame)
    if (before > 0 && this.backlog > this.maxBacklogBytes) {
      // the queued frames go with the connection (the adapter cancels the body when it closes)
      this.finish('evicted')
      if (this.drop) this.drop()
      else this.controller.error(new Error('event stream backlog over its bound: reconnect'))
      return false
    }
    return true
  }

  /** Ends the stream once the client has what is queued. */
  close(): void {
    if (this.ended) return
    this.controller.close()
    this.finish('closed')
  }

  private finish(how: StreamEnd) {
    if (this.ended) return
    this.ended = how
    this.onEnd(how)
  }
}
