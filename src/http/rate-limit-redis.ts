/**
 * @module http/rate-limit-redis
 * hono-rate-limiter's RedisStore on the service's own ioredis connection, so a fleet shares one
 * budget per tenant.
 */
import { RedisStore, type Store } from 'hono-rate-limiter'
import type { Cluster, Redis } from 'ioredis'
import { isUnavailableError } from '../store/redis.js'
import { StoreUnavailableError } from '../store/types.js'
import type { AppEnv } from './env.js'

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
  return new RedisStore<AppEnv>({
    prefix: `${prefix}:rl:`,
    client: {
      scriptLoad: (script) => guarded(() => client.script('LOAD', script) as Promise<string>),
      evalsha: <TArgs extends unknown[], TData = unknown>(sha: string, keys: string[], args: TArgs) =>
        guarded(() => client.evalsha(sha, keys.length, ...keys, ...(args as (string | number)[])) as Promise<TData>),
      decr: (key) => guarded(() => client.decr(key)),
      del: (key) => guarded(() => client.del(key)),
    },
  })
}
