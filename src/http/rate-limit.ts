/**
 * @module http/rate-limit
 * A per-tenant request budget (hono-rate-limiter), answered with a 429 problem.
 */
import type { MiddlewareHandler } from 'hono'
import { rateLimiter, type Store } from 'hono-rate-limiter'
import type { AppEnv } from './env.js'
import { problem } from './problem.js'

/**
 * Limits each tenant to `perMinute` requests per minute, across instances when `store` is shared
 * (Redis). Sends the IETF draft-7 `RateLimit` and `RateLimit-Policy` headers.
 * @param perMinute - requests per tenant per minute
 * @param store - the counter store; in process when absent
 */
export function tenantRateLimit(perMinute: number, store?: Store<AppEnv>): MiddlewareHandler<AppEnv> {
  return rateLimiter<AppEnv>({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    keyGenerator: (c) => `tenant:${c.get('tenant')}`,
    ...(store ? { store } : {}),
    // the limiter has already set RateLimit, RateLimit-Policy and Retry-After on the context
    handler: (c) =>
      problem(
        c,
        429,
        'rate-limited',
        `Tenant request budget exceeded: at most ${perMinute} requests per minute (RATE_LIMIT_PER_MINUTE).`
      ) as unknown as void,
  }) as MiddlewareHandler<AppEnv>
}
