/**
 * @module cli/sse
 * A Server-Sent Events parser over a fetch() body (the CLI sends Authorization, which
 * EventSource cannot).
 */

export interface SseEvent {
  event: string
  data: string
  /** The event's `id:` field, or null when it had none. */
  id: string | null
}

/**
 * Yields the events of an event stream until it ends; comments (heartbeats) call `onActivity`
 * only.
 * @param body - the response body
 * @param onActivity - called on every chunk received, heartbeats included
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onActivity: () => void = () => {}
): AsyncGenerator<SseEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  let id: string | null = null
  try {
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) return
      onActivity()
      buffer += decoder.decode(chunk.value, { stream: true })
      const lines = buffer.split('\n')
      buffer = lines.pop() ?? ''
      for (const raw of lines) {
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
        if (line === '') {
          if (data.length) yield { event: event || 'message', data: data.join('\n'), id }
          event = ''
          data = []
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        let value = colon < 0 ? '' : line.slice(colon + 1)
        if (value.startsWith(' ')) value = value.slice(1)
        if (field === 'event') event = value
        else if (field === 'data') data.push(value)
        else if (field === 'id' && !value.includes('\0')) id = value
      }
    }
  } finally {
    reader.cancel().catch(() => undefined)
  }
}
