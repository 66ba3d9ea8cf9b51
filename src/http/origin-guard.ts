/**
 * @module http/origin-guard
 * Who may talk to the service from a browser. A page the developer visits can send requests to
 * `http://localhost:8080` (simple requests need no preflight), and with DNS rebinding its own
 * name resolves to 127.0.0.1, so it can read answers too. In open access that page could read
 * every session and hand a running agent its text. Two rules close that, on every route (the MCP
 * transport's own rule, applied to the whole service):
 * - a request whose `Origin` is neither the service's own nor listed in `CORS_ORIGINS` is refused;
 * - a request whose `Host` is not one of the service's own names (`localhost`, its loopback
 *   addresses, `ALLOWED_HOSTS`, `PUBLIC_URL`'s host) is refused: that is what a rebound name looks
 *   like, and a same-origin GET carries no `Origin` at all. With keys this holds on loopback
 *   sockets (a page cannot guess a key, but a local listener may trust its machine); in open
 *   access it holds on every socket, loopback or not, since a name rebound to the machine's LAN
 *   address reaches a `HOST=0.0.0.0` listener just as well (docs/configuration.md, `HOST`).
 * A request without a socket (`app.request()` in process) came over no network and is not
 * checked for its `Host`.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from './context.js'
import { requestHeader } from './route-input.js'

const LOOPBACK_ADDRESS = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/
const LOOPBACK_HOSTNAME = /^(localhost|[a-z0-9.-]+\.localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i

/** What the guard allows besides the service's own origin and the loopback names. */
export interface OriginPolicy {
  /** `CORS_ORIGINS`: origins allowed to call the API from a browser (`*` allows any). */
  corsOrigins: readonly string[]
  /** `ALLOWED_HOSTS` (and `PUBLIC_URL`'s host): names the service also answers to. */
  allowedHosts: readonly string[]
  /** Open access (no keys): every socket answers to the service's own names only, not only loopback ones. */
  openAccess?: boolean
}

/** Why a request was refused, for the caller to answer in its own format. */
export type OriginRefusal = (c: Context<AppEnv>, detail: string) => Response

/** The local address the request's connection arrived on (Node only; unknown in app.request()). */
function localAddressOf(c: Context<AppEnv>): string | undefined {
  const env = c.env as { incoming?: { socket?: { localAddress?: string } } } | undefined
  return env?.incoming?.socket?.localAddress
}

/** The `host[:port]` a request was sent to, normalised by URL (a default port dropped). */
function requestedHost(c: Context<AppEnv>, protocol: string): URL | null {
  try {
    return new URL(`${protocol}//${requestHeader(c, 'host') ?? new URL(c.req.url).host}`)
  } catch {
    return null
  }
}

/**
 * The guard, applied before any key is looked at.
 * @param policy - the configured origins and host names
 * @param refuse - answers a refusal (403) in the route's format
 */
export function originGuard(
  policy: OriginPolicy,
  refuse: OriginRefusal
): MiddlewareHandler<AppEnv> {
  const origins = new Set(policy.corsOrigins)
  const anyOrigin = origins.has('*')
  const hosts = new Set(policy.allowedHosts.map((host) => host.toLowerCase()))
  const isAllowedName = (hostname: string) =>
    LOOPBACK_HOSTNAME.test(hostname) || hosts.has(hostname.toLowerCase())

  return async function originGuard(c, next) {
    const what = c.req.path === '/mcp' ? 'this MCP endpoint' : 'this service'
    const local = localAddressOf(c)
    const ownNamesOnly =
      local !== undefined && (policy.openAccess === true || LOOPBACK_ADDRESS.test(local))
    if (ownNamesOnly) {
      const host = requestedHost(c, 'http:')
      // a Host no URL can hold is nobody's own name either
      if (!host || !isAllowedName(host.hostname)) {
        const listener = policy.openAccess ? 'in open access the service' : 'a loopback listener'
        return refuse(
          c,
          `Host ${host?.hostname ?? '(unreadable)'} may not use ${what}: ${listener} answers to localhost and 127.0.0.1 (and the names in ALLOWED_HOSTS or PUBLIC_URL) only, so that no web page can reach it through a rebound DNS name.`
        )
      }
    }
    const origin = requestHeader(c, 'origin')
    if (origin === undefined || anyOrigin || origins.has(origin)) return next()
    let url: URL | null = null
    try {
      url = new URL(origin)
    } catch {
      // an opaque (`null`) or malformed origin is nobody's own
    }
    const own =
      url !== null &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.host === requestedHost(c, url.protocol)?.host &&
      (!ownNamesOnly || isAllowedName(url.hostname))
    if (own) return next()
    return refuse(
      c,
      `Origin ${origin} may not use ${what}: only the service's own origin and those in CORS_ORIGINS may.`
    )
  }
}

/**
 * Whether a request comes from a browser page of another origin that `CORS_ORIGINS` admitted (a
 * request without `Origin`, or from the service's own pages, is not). In open access such a
 * page must not be able to hand text to a running agent.
 * @param c - the request's context
 */
export function isCrossOrigin(c: Context<AppEnv>): boolean {
  const origin = requestHeader(c, 'origin')
  if (origin === undefined) return false
  try {
    const url = new URL(origin)
    return url.host !== requestedHost(c, url.protocol)?.host
  } catch {
    return true
  }
}
