/**
 * @module store/redis
 * The fleet store: any number of stateless instances on one Redis, standalone or Cluster.
 *
 * Every mutation is one Lua script (`lua/`; compare-and-set, write, TTL refresh, history append,
 * change publication, the Idempotency-Key's reply and, on standalone Redis, the listing index and
 * the session cap) registered with ioredis, so it travels as EVALSHA and survives NOSCRIPT. All
 * keys of one session carry the hash tag `{tenant:session}` and share a slot; on Cluster the
 * per-tenant listing index lives in another slot and is updated by a second command, and the
 * session cap holds a seat there before a creation (`seats.ts`). A delete leaves a tombstone
 * with the last version, so versions never repeat.
 *
 * In the steady state a mutation is one round trip: each instance keeps a bounded cache of the
 * last record it stored or read per session and runs the updater on it as a guess
 * (`guess-cache.ts`, `update.ts`). Reads (get, listings, history) always go to Redis. Expiry is
 * judged by the store's clock (`exp` field), like the other stores; Redis TTLs only reclaim the
 * memory. See docs/redis.md.
 */
import { randomBytes } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import { changeEvent, createChangeFeed } from '../changes.js'
import type {
  ChangeEvent,
  SessionStore,
  SharedCounters,
  StoreLogger,
  StoreOptions,
} from '../types.js'
import { connect } from './connection.js'
import { createCounters } from './counters.js'
import { guarded } from './errors.js'
import { createGuessCache } from './guess-cache.js'
import { createIdempotency } from './idempotency.js'
import { keyLayout } from './keys.js'
import { createListing } from './listing.js'
import { createReads } from './reads.js'
import { createSeats } from './seats.js'
import { createTurnQueue } from './turn-queue.js'
import { createUpdate } from './update.js'
import { createRedisAlerts } from './alerts.js'
import { createRedisPeople } from './people.js'

export { isUnavailableError } from './errors.js'

/** The Redis store, with its connection (tests and tools inspect keys through it). */
export interface RedisSessionStore extends SessionStore {
  readonly client: Redis | Cluster
  /** The fleet's rate-limit counters. */
  readonly counters: SharedCounters
}

export interface RedisStoreOptions extends StoreOptions {
  /** `redis://…` or `rediss://…` of a standalone server. */
  url?: string
  /** `host:port` of one or more Cluster nodes. */
  clusterNodes?: string[]
  /** First segment of every key and of the change channel; default `at`. */
  keyPrefix?: string
  /** A command without a reply after this long fails the request with 503; default 1000. */
  commandTimeoutMs?: number
  /** Attempts of one update under compare-and-set conflicts; default 100. */
  maxAttempts?: number
  /** Startup gives up after this long without Redis; default 0 = keeps retrying. */
  startupTimeoutMs?: number
  /**
   * Sessions whose last stored or read record this instance keeps as the starting guess of its
   * next update (least recently used dropped first); default 2048. With 0 an update reads first,
   * unless an update queued ahead of it in this instance has just stored the session.
   */
  baseCacheSize?: number
  logger?: StoreLogger
}

const consoleLogger: StoreLogger = {
  info: (obj, msg) => console.error(`agent-todos redis: ${msg}`, obj),
  warn: (obj, msg) => console.error(`agent-todos redis: ${msg}`, obj),
}

/** A change event from the channel, or null when the message is not one. */
function parseEvent(message: string): ChangeEvent | null {
  try {
    const event = JSON.parse(message) as ChangeEvent
    return typeof event?.tenant === 'string' && typeof event.session_id === 'string' ? event : null
  } catch {
    return null
  }
}

/**
 * Opens the Redis store and waits until Redis answers and the change channel is subscribed.
 * While Redis is unreachable at startup it retries, logging the reason every few seconds.
 * @param options - connection (url or clusterNodes), key prefix, TTL and history bound
 * @throws Error when neither or both of url and clusterNodes are given, when the key prefix or
 *   cache size is invalid, or when the startup timeout passes
 */
export async function createRedisStore(options: RedisStoreOptions): Promise<RedisSessionStore> {
  const keys = keyLayout(options.keyPrefix ?? 'at')
  const cache = createGuessCache(options.baseCacheSize ?? 2048)
  const feed = createChangeFeed()
  const { client, hasCluster, close } = await connect({
    url: options.url,
    clusterNodes: options.clusterNodes,
    commandTimeoutMs: options.commandTimeoutMs,
    startupTimeoutMs: options.startupTimeoutMs,
    logger: options.logger ?? consoleLogger,
    channel: keys.channel,
    onMessage: (message) => {
      const event = parseEvent(message)
      if (event) feed.emit(event)
    },
  })
  const reads = createReads({ client, keys, cache, now: options.now })
  const listing = createListing({
    client,
    keys,
    ttlMs: options.ttlMs,
    now: options.now,
    logger: options.logger ?? consoleLogger,
  })
  const idempotency = createIdempotency(client, keys, options.now)
  const update = createUpdate({
    client,
    hasCluster,
    keys,
    cache,
    queue: createTurnQueue((sessionKey) => cache.forget(sessionKey)),
    reads,
    listing,
    idempotency,
    seats: hasCluster
      ? createSeats({ client, keys, ttlMs: options.ttlMs, now: options.now })
      : null,
    store: options,
    maxAttempts: options.maxAttempts ?? 100,
  })
  const probeKey = keys.probe(randomBytes(8).toString('hex'))

  return {
    kind: 'redis',
    client,
    counters: createCounters(client, keys),
    alerts: createRedisAlerts(client, keys, options.now),
    people: createRedisPeople(client, options.keyPrefix ?? 'at', options.now),
    get: reads.get,
    update,
    history: reads.history,
    historyText: reads.historyText,
    list: listing.list,
    brief: listing.brief,
    countSessions: listing.countSessions,
    claimIdempotency: idempotency.claimIdempotency,
    releaseIdempotency: idempotency.releaseIdempotency,

    async delete(key) {
      const sessionKey = keys.session(key)
      const scriptKeys = [sessionKey, keys.history(key)]
      // standalone: the script drops the session from the listing index too
      if (!hasCluster) scriptKeys.push(keys.index(key.tenant))
      let existed: number
      try {
        existed = await guarded(() =>
          client.atDelete(
            scriptKeys.length,
            ...scriptKeys,
            String(options.now()),
            String(options.ttlMs),
            keys.channel,
            JSON.stringify(changeEvent(key, 0, 'delete')),
            key.sessionId
          )
        )
      } finally {
        cache.forget(sessionKey)
      }
      if (hasCluster) client.zrem(keys.index(key.tenant), key.sessionId).catch(() => undefined)
      return existed === 1
    },

    subscribe: (listener) => feed.subscribe(listener),

    async ping() {
      await guarded(() => client.ping())
    },

    async checkWritable() {
      // SET needs memory: it fails while Redis is out of it, or read-only
      await guarded(() => client.set(probeKey, '1', 'PX', 10_000))
      await guarded(() => client.del(probeKey))
    },

    close,
  }
}
