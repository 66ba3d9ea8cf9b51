/**
 * @module http/body-limit
 * A body size limit that answers 413 without resetting the connection.
 *
 * hono's `bodyLimit` answers as soon as the limit is passed (at once, for a Content-Length over
 * it) and leaves the rest of the body unread; the Node adapter then closes that socket, and the
 * client gets a reset instead of the 413, at the latest on its next request over the same
 * keep-alive connection. This one reads (and discards) the rest of an oversized body, up to a cap,
 * before answering; past the cap it answers with `Connection: close`.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from './context.js'

/** Beyond this many bytes an oversized body is not drained: the connection is closed instead. */
const DRAIN_CAP_BYTES = 64 * 1024 * 1024

/**
 * @param maxSize - the largest body accepted, in bytes
 * @param onTooLarge - builds the 413 response
 */
export function bodyLimit(
  maxSize: number,
  onTooLarge: (c: Context<AppEnv>) => Response
): MiddlewareHandler<AppEnv> {
  return async function bodyLimit(c, next) {
    // reads carry no body we would read; not touching `body` spares the Node adapter from
    // building a full Request for every GET
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS')
      return next()
    const declared = c.req.header('content-length')
    // a length within the limit is enforced by the HTTP parser: leave the body to the handler,
    // which reads it through the adapter's buffered fast path
    if (
      declared !== undefined &&
      !c.req.header('transfer-encoding') &&
      Number(declared) <= maxSize
    ) {
      return next()
    }
    const body: ReadableStream<Uint8Array> | null = c.req.raw.body
    if (!body) return next()
    const reader = body.getReader()
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > DRAIN_CAP_BYTES) {
        await reader.cancel().catch(() => undefined)
        const res = onTooLarge(c)
        res.headers.set('Connection', 'close')
        return res
      }
      if (size <= maxSize) chunks.push(value)
    }
    if (size > maxSize) return onTooLarge(c)
    const buffer = new Uint8Array(size)
    let offset = 0
    for (const chunk of chunks) {
      buffer.set(chunk, offset)
      offset += chunk.byteLength
    }
    c.req.raw = new Request(c.req.raw, { body: buffer })
    return next()
  }
}
