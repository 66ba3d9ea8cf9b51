// @ts-check
/**
 * @module dashboard/sse
 * Server-Sent Events over fetch (EventSource cannot send Authorization), with reconnection.
 */
import { headers } from './api.js'
import { needKey } from './key-dialog.js'

/** @typedef {import('./types.js').SseMessage} SseMessage */
/** @typedef {import('./types.js').StreamHandlers} StreamHandlers */
/** @typedef {import('./types.js').Stream} Stream */

/** Heartbeats come every 15 s; silence this long means a dead connection. */
const SILENCE_MS = 45000

/**
 * Reads an event stream as the format defines it: lines end at CRLF, LF or a lone CR, a
 * leading BOM is dropped (TextDecoder does), `retry:` sets the reconnection delay.
 * @param {ReadableStream<Uint8Array>} body
 * @param {(message: SseMessage) => void} onEvent
 * @param {() => void} onBytes
 * @param {(ms: number) => void} onRetry
 */
export async function readEvents(body, onEvent, onBytes, onRetry) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let type = ''
  /** @type {string[]} */
  let data = []
  /** @type {string | null} */
  let id = null
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) return
    onBytes()
    const text = buffer + decoder.decode(chunk.value, { stream: true })
    // a CR at the very end may be the first half of a CRLF: decide with the next chunk
    const held = text.charAt(text.length - 1) === '\r' ? '\r' : ''
    const lines = (held ? text.slice(0, -1) : text).split(/\r\n|\r|\n/)
    buffer = lines.pop() + held
    for (const line of lines) {
      if (line === '') {
        if (data.length) onEvent({ event: type || 'message', data: data.join('\n'), id })
        type = ''
        data = []
        continue
      }
      if (line.charAt(0) === ':') continue
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      let value = colon < 0 ? '' : line.slice(colon + 1)
      if (value.charAt(0) === ' ') value = value.slice(1)
      if (field === 'event') type = value
      else if (field === 'data') data.push(value)
      else if (field === 'id' && value.indexOf('\0') < 0) id = value
      else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value))
    }
  }
}

/**
 * A resilient event stream: reconnects with backoff; sends Last-Event-ID when the caller
 * knows one, else the server starts again with a snapshot.
 * @param {string} path
 * @param {StreamHandlers} handlers
 * @returns {Stream}
 */
export function openStream(path, handlers) {
  /** @type {AbortController | null} */
  let controller = null
  let closed = false
  let delay = 1000
  // the server's `retry:` and Retry-After, when it sends them
  let serverRetry = 0
  let retryAfter = 0
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retryTimer
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let watchdog
  /** @type {string | null} */
  let lastId = null

  const armWatchdog = () => {
    clearTimeout(watchdog)
    watchdog = setTimeout(() => {
      if (controller) controller.abort()
    }, SILENCE_MS)
  }

  const retry = () => {
    if (closed) return
    handlers.onStatus('reconnecting')
    retryTimer = setTimeout(connect, Math.max(delay, serverRetry, retryAfter))
    retryAfter = 0
    delay = Math.min(delay * 2, 15000)
  }

  /** @param {SseMessage} message */
  const deliver = (message) => {
    if (message.id !== null) lastId = message.id
    let payload
    try {
      payload = JSON.parse(message.data)
    } catch (e) {
      return
    }
    handlers.onEvent(message.event, payload, message.id)
  }

  /**
   * One connection: reads events until it drops, then retries (not after a 401).
   * @returns {Promise<void>}
   */
  async function connect() {
    if (closed) return
    controller = new AbortController()
    /** @type {Record<string, string>} */
    const extra = { Accept: 'text/event-stream' }
    const resume = handlers.resumeFrom ? handlers.resumeFrom() : null
    if (resume !== null && resume !== undefined) extra['Last-Event-ID'] = String(resume)
    let res
    try {
      res = await fetch(path, {
        headers: headers(extra),
        signal: controller.signal,
        cache: 'no-store',
      })
    } catch (e) {
      return retry()
    }
    if (res.status === 401) {
      handlers.onStatus('key')
      needKey()
      return
    }
    if (!res.ok || !res.body) {
      let data
      try {
        data = await res.json()
      } catch (e) {
        data = null
      }
      // 503 while an instance drains, 429 at the stream cap: both say when to come back
      retryAfter = (Number(res.headers.get('Retry-After')) || 0) * 1000
      if (handlers.onFail && handlers.onFail(res.status, data) === false) return
      return retry()
    }
    delay = 1000
    handlers.onStatus('live')
    armWatchdog()
    try {
      await readEvents(res.body, deliver, armWatchdog, (ms) => {
        serverRetry = ms
      })
    } catch (e) {
      // aborted or the network dropped: reconnect below
    }
    clearTimeout(watchdog)
    retry()
  }

  connect()
  return {
    lastId: () => lastId,
    close: () => {
      closed = true
      clearTimeout(retryTimer)
      clearTimeout(watchdog)
      if (controller) controller.abort()
    },
  }
}
