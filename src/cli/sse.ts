/**
 * @module cli/sse
 * Server-Sent Events over a fetch() body (the CLI sends Authorization, which EventSource
 * cannot), parsed by eventsource-parser: every line ending (CR, LF, CRLF), a leading BOM,
 * comments and `retry:` as the format defines them.
 */
import { createParser } from 'eventsource-parser'

export interface SseEvent {
  event: string
  data: string
  /** The last event ID after this event (the format's "last event ID buffer"), or null. */
  id: string | null
}

export interface ReadSseOptions {
  /** Called on every chunk received, heartbeats included. */
  onActivity?: () => void
  /** Called with the reconnection time a `retry:` field asks for, in ms. */
  onRetry?: (ms: number) => void
}

/**
 * Yields the events of an event stream until it ends.
 * @param body - the response body
 * @param options - activity and retry callbacks (a function: the activity callback)
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  options: ReadSseOptions | (() => void) = {}
): AsyncGenerator<SseEvent> {
  const { onActivity, onRetry } = typeof options === 'function' ? { onActivity: options } : options
  const queue: SseEvent[] = []
  let lastId: string | null = null
  const parser = createParser({
    onEvent(message) {
      if (message.id !== undefined) lastId = message.id
      queue.push({ event: message.event ?? 'message', data: message.data, id: lastId })
    },
    onRetry: (ms) => onRetry?.(ms),
  })
  const reader = body.getReader()
  const decoder = new TextDecoder()
  try {
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) return
      onActivity?.()
      parser.feed(decoder.decode(chunk.value, { stream: true }))
      while (queue.length) yield queue.shift()!
    }
  } finally {
    reader.cancel().catch(() => undefined)
  }
}
