/**
 * @module store/redis/counters
 * The fleet's shared rate-limit counters: one script opens a window and counts in it.
 */
import type { Cluster, Redis } from 'ioredis'
import type { SharedCounters } from '../types.js'
import { guarded } from './errors.js'
import type { KeyLayout } from './keys.js'

/**
 * Counters every instance on the Redis shares.
 * @param client - the command connection
 * @param keys - the key layout
 */
export function createCounters(client: Redis | Cluster, keys: KeyLayout): SharedCounters {
  return {
    async increment(key, windowMs) {
      const [hits, ttl] = await guarded(() => client.atCount(keys.counter(key), String(windowMs)))
      return { hits, resetInMs: ttl }
    },
    async decrement(key) {
      await guarded(() => client.decr(keys.counter(key)))
    },
    async reset(key) {
      await guarded(() => client.del(keys.counter(key)))
    },
  }
}
