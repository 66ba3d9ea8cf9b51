/**
 * @module http/response-headers
 * The request id and the security headers of every response, set where they cost least.
 *
 * hono's `requestId()` and `secureHeaders()` set these through the response's WHATWG `Headers`. On
 * Node that object is undici's: every `set` runs its WebIDL conversion and token checks, the
 * adapter then copies it sorted, and reading the request's `X-Request-Id` builds a `Headers` of the
 * whole request, on every request (the cost: bench/README.md, "Headers without undici"). Under the
 * Node server the same headers go straight onto the `ServerResponse`, which writes them with the
 * route's own headers (the route's win on a clash); elsewhere (`app.request()`, other runtimes)
 * they go through hono's context as before. The values are hono's `secureHeaders()` defaults, which
 * a test compares.
 */
import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './context.js'
import { requestHeader } from './route-input.js'

/** hono's `secureHeaders()` with its default options. */
export const SECURE_HEADERS: readonly (readonly [string, string])[] = [
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
]

/** A client's request id is kept when it is short and plain, as hono's `requestId()` does. */
const CLIENT_REQUEST_ID = /^[\w\-=]{1,255}$/

const requestIdFrom = (given: string | undefined) =>
  typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID()

/** What @hono/node-server passes as `c.env`. */
interface NodeBindings {
  outgoing?: ServerResponse
}

/**
 * Sets `requestId` (the client's `X-Request-Id` when acceptable, else a new UUID), echoes it in
 * `X-Request-Id`, and adds the security headers to every response.
 */
export function responseHeaders(): MiddlewareHandler<AppEnv> {
  return async function responseHeaders(c, next) {
    const { outgoing } = (c.env ?? {}) as NodeBindings
    if (outgoing && typeof outgoing.setHeader === 'function') {
      const id = requestIdFrom(requestHeader(c, 'x-request-id'))
      c.set('requestId', id)
      outgoing.setHeader('X-Request-Id', id)
      for (const [name, value] of SECURE_HEADERS) outgoing.setHeader(name, value)
      return next()
    }
    const id = requestIdFrom(requestHeader(c, 'x-request-id'))
    c.set('requestId', id)
    c.header('X-Request-Id', id)
    await next()
    const headers = c.res.headers
    for (const [name, value] of SECURE_HEADERS) if (!headers.has(name)) headers.set(name, value)
  }
}
