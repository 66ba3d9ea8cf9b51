/**
 * A small Server-Sent Events reader for tests.
 */
export interface SseMessage {
  event?: string
  id?: string
  data?: string
  comment?: string
}

/** Reads messages from an event-stream response body. */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const queue: SseMessage[] = []
  const parse = (block: string): SseMessage => {
    const message: SseMessage = {}
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) message.comment = line.slice(1).trim()
      const match = /^(event|id|data): ?(.*)$/.exec(line)
      if (match) {
        const field = match[1] as 'event' | 'id' | 'data'
        message[field] =
          field === 'data' && message.data !== undefined ? `${message.data}\n${match[2]}` : match[2]
      }
    }
    return message
  }
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
        buffer += decoder.decode(chunk.value, { stream: true })
        let index
        while ((index = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, index)
          buffer = buffer.slice(index + 2)
          if (block.trim()) queue.push(parse(block))
        }
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
