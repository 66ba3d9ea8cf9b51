/**
 * @module http/json-depth
 * Refuses a JSON request body nested deeper than `MAX_BODY_DEPTH` before any route parses it.
 *
 * `JSON.parse` is iterative, but `JSON.stringify` (the idempotency fingerprint, every response
 * and every store write) and any recursive walk are not: about 4,000 levels overflow the stack.
 * The text is scanned once, without recursion; the route's own `c.req.json()` then parses the
 * same cached text.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from './context.js'
import { jsonTooDeep, MAX_BODY_DEPTH } from '../core/limits.js'
import { requestHeader } from './route-input.js'

/** The detail of the refusal. */
export const TOO_DEEP_DETAIL = `The request body is nested more than ${MAX_BODY_DEPTH} levels deep; at most ${MAX_BODY_DEPTH} are allowed.`

/**
 * @param onTooDeep - builds the response to a body nested deeper than `MAX_BODY_DEPTH`
 */
export function jsonDepthLimit(
  onTooDeep: (c: Context<AppEnv>) => Response
): MiddlewareHandler<AppEnv> {
  return async function jsonDepthLimit(c, next) {
    const method = c.req.method
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next()
    // every route that reads JSON reads it as such (hono's validator, the MCP transport)
    const contentType = requestHeader(c, 'content-type')
    if (contentType === undefined || !/json/i.test(contentType)) return next()
    // the OTLP routes inflate a compressed body and check its depth once inflated; every other
    // route reads the bytes as they came (hono decodes no Content-Encoding), so they are scanned
    // whatever the header says
    if (c.req.path.startsWith('/v1/otlp/') && requestHeader(c, 'content-encoding') !== undefined) {
      return next()
    }
    let text: string
    try {
      text = await c.req.text()
    } catch {
      return next() // the route's own read fails the same way, and answers for it
    }
    if (jsonTooDeep(text, MAX_BODY_DEPTH)) return onTooDeep(c)
    return next()
  }
}
