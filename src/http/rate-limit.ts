/**
 * @module http/rate-limit
 * A per-tenant request budget (hono-rate-limiter), answered with a 429 problem.
 */
import type { MiddlewareHandler } from 'hono'
import { rateLimiter, type Store } from 'hono-rate-limiter'
import type { SharedCounters } from '../store/types.js'
import type { AppEnv } from './env.js'
import { problem } from './problem.js'

/**
 * The limiter's counter store on a session store's shared counters, so a fleet has one budget per
 * tenant. Not hono-rate-limiter's RedisStore: on any error it reloads its script and tries again,
 * so a stalled Redis cost two command timeouts (over 2 s) before a request could fail, and on a
 * Cluster its SCRIPT LOAD lands on a random node, so EVALSHA on another fails.
 * @param counters - the store's counters
 */
export function sharedCounterStore(counters: SharedCounters): Store<AppEnv> {
  let windowMs = 60_000
  return {
    init: (options) => {
      windowMs = options.windowMs
    },
    increment: async (key) => {
      const { hits, resetInMs } = await counters.increment(key, windowMs)
      return { totalHits: hits, resetTime: new Date(Date.now() + resetInMs) }
    },
    decrement: (key) => counters.decrement(key),
    resetKey: (key) => counters.reset(key),
  }
}

/**
 * Limits each tenant to `perMinute` requests per minute, across instances when the counters are
 * shared (Redis). Sends the IETF draft-7 `RateLimit` and `RateLimit-Policy` headers.
 * @param perMinute - requests per tenant per minute
 * @param counters - the store's shared counters; in process when absent
 */
export function tenantRateLimit(
  perMinute: number,
  counters?: SharedCounters
): MiddlewareHandler<AppEnv> {
  const store = counters ? sharedCounterStore(counters) : undefined
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
