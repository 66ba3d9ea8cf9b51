/**
 * A Server-Sent Events reader for tests, on eventsource-parser (every line ending, BOM, retry).
 */
import { createParser } from 'eventsource-parser'

export interface SseMessage {
  event?: string
  id?: string
  data?: string
  comment?: string
  /** A `retry:` field, in ms. */
  retry?: number
}

/** Reads messages from an event-stream response body. */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const queue: SseMessage[] = []
  const parser = createParser({
    onEvent: (message) => {
      const parsed: SseMessage = { data: message.data }
      if (message.event !== undefined) parsed.event = message.event
      if (message.id !== undefined) parsed.id = message.id
      queue.push(parsed)
    },
    onComment: (comment) => queue.push({ comment: comment.trim() }),
    onRetry: (retry) => queue.push({ retry }),
  })
  return {
    /** The next message, or null when the stream ended; rejects after `timeoutMs`. */
    async next(timeoutMs = 3000): Promise<SseMessage | null> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        if (queue.length) return queue.shift()!
        const remaining = deadline - Date.now()
        if (remaining <= 0) throw new Error('timed out waiting for an SSE message')
        let timer: NodeJS.Timeout | undefined
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error('timed out waiting for an SSE message')),
              remaining
            )
          }),
        ]).finally(() => clearTimeout(timer))
        if (chunk.done) return null
        parser.feed(decoder.decode(chunk.value, { stream: true }))
      }
    },
    /** The next message that is not a heartbeat comment. */
    async nextEvent(timeoutMs = 3000): Promise<SseMessage | null> {
      for (;;) {
        const message = await this.next(timeoutMs)
        if (!message || message.event || message.data) return message
      }
    },
    cancel: () => reader.cancel().catch(() => undefined),
  }
}
