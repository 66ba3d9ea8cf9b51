/**
 * @module http/rate-limit-redis
 * A hono-rate-limiter store on the service's own ioredis connection, so a fleet shares one budget
 * per tenant.
 *
 * Not hono-rate-limiter's RedisStore: on any error it reloads its script and tries again, so a
 * stalled Redis costs two command timeouts (over 2 s) before the request can fail, and on a
 * Cluster its SCRIPT LOAD lands on a random node, so EVALSHA on another fails. ioredis'
 * defineCommand sends EVALSHA per node and reloads on NOSCRIPT by itself, and the connection's
 * own timeout bounds the wait to one.
 */
import type { Store } from 'hono-rate-limiter'
import type { Cluster, Redis, Result } from 'ioredis'
import { isUnavailableError } from '../store/redis.js'
import { StoreUnavailableError } from '../store/types.js'
import type { AppEnv } from './env.js'

// KEYS[1] = the counter; ARGV[1] = the window in ms. Returns hits and the ms left in the window.
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    atRateIncrement(key: string, windowMs: string): Result<[number, number], Context>
  }
}

/** Redis trouble answers 503 (like every store call), never 500. */
async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    throw isUnavailableError(error) ? new StoreUnavailableError(error) : error
  }
}

/**
 * A rate-limit counter store on Redis.
 * @param client - the store's ioredis client (standalone or Cluster)
 * @param prefix - the service's key prefix
 */
export function redisRateLimitStore(client: Redis | Cluster, prefix: string): Store<AppEnv> {
  client.defineCommand('atRateIncrement', { numberOfKeys: 1, lua: INCREMENT })
  let windowMs = 60_000
  const keyOf = (key: string) => `${prefix}:rl:{${key}}`
  return {
    init: (options) => {
      windowMs = options.windowMs
    },
    increment: async (key) => {
      const [totalHits, ttl] = await guarded(() => client.atRateIncrement(keyOf(key), String(windowMs)))
      return { totalHits, resetTime: new Date(Date.now() + ttl) }
    },
    decrement: async (key) => {
      await guarded(() => client.decr(keyOf(key)))
    },
    resetKey: async (key) => {
      await guarded(() => client.del(keyOf(key)))
    },
  }
}
