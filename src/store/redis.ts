/**
 * @module store/redis
 * The fleet store: any number of stateless instances on one Redis, standalone or Cluster.
 *
 * Every mutation is one Lua script (compare-and-set, write, TTL refresh, history append, change
 * publication and, on standalone Redis, the listing index) registered with `defineCommand`, so it
 * travels as EVALSHA and survives NOSCRIPT. All keys of one session carry the hash tag
 * `{tenant:session}` and share a slot; on Cluster the per-tenant listing index lives in another
 * slot and is updated by a second command.
 *
 * In the steady state a mutation is one round trip: each instance keeps a bounded cache of the
 * last record it stored or read per session and runs the updater on it as a guess. The script
 * compares a per-write token (field `t`), so a stale guess, even one at the same version after a
 * delete and re-creation elsewhere, is refused, and the refusal carries the winner's record for
 * the retry. A cache miss reads first. Reads (get, listings, history) always go to Redis.
 * Expiry is judged by the store's clock (`exp` field), like the other stores; Redis TTLs only
 * reclaim the memory. See docs/redis.md.
 */
import { createHash, randomBytes } from 'node:crypto'
import { Cluster, Redis, type ClusterOptions, type RedisOptions, type Result } from 'ioredis'
import {
  historyEntryOf,
  type ChangeSource,
  type HistoryEntry,
  type Session,
  type SessionKey,
} from '../core/session.js'
import { KEY_PREFIX_PATTERN } from '../core/ids.js'
import { changeEvent, createChangeFeed } from './changes.js'
import { isBeforeCursor } from './cursor.js'
import { matchesListQuery } from './filter.js'
import {
  assertNextVersion,
  ConflictRetryError,
  StoreUnavailableError,
  type ChangeEvent,
  type IdempotencyClaim,
  type ListCursor,
  type ListPage,
  type ListQuery,
  type SessionStore,
  type SharedCounters,
  type StoreLogger,
  type StoreOptions,
  type UpdateDecision,
  type Updater,
} from './types.js'

/** The Redis store, with its connection (tests and tools inspect keys through it). */
export interface RedisSessionStore extends SessionStore {
  readonly client: Redis | Cluster
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

// KEYS: session hash, history list, and on standalone Redis the tenant index.
// ARGV: expected version, expected token ('' for a record without one), now, new version, record
//       JSON, expires at, ttl ms, history entry JSON, history limit, channel, event JSON, new
//       token, index score (updated_at), index member (session id).
// The base matches when the live record has the expected version and token (a record written
// before tokens existed has none and matches '' at the same version), or when there is no live
// record and the expected version is 0.
// Returns {1} when written, {0, record JSON, token or nil} or {0} (absent) when another writer won.
const WRITE_LUA = `
local cur = redis.call('HMGET', KEYS[1], 'v', 'exp', 't')
local live = cur[1] and (tonumber(cur[2]) or 0) > tonumber(ARGV[3])
if live then
  if tonumber(cur[1]) ~= tonumber(ARGV[1]) or (cur[3] or '') ~= ARGV[2] then
    return {0, redis.call('HGET', KEYS[1], 'data'), cur[3]}
  end
else
  if ARGV[1] ~= '0' then return {0} end
  redis.call('DEL', KEYS[1], KEYS[2])
end
redis.call('HSET', KEYS[1], 'v', ARGV[4], 'exp', ARGV[6], 'data', ARGV[5], 't', ARGV[12])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('RPUSH', KEYS[2], ARGV[8])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[9]), -1)
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('PUBLISH', ARGV[10], ARGV[11])
if KEYS[3] then
  redis.call('ZADD', KEYS[3], 'GT', ARGV[13], ARGV[14])
  redis.call('PEXPIRE', KEYS[3], ARGV[7])
end
return {1}
`

// KEYS: session hash, history list. ARGV: now, channel, event JSON. Returns 1 when it was live.
const DELETE_LUA = `
local live = (tonumber(redis.call('HGET', KEYS[1], 'exp')) or 0) > tonumber(ARGV[1])
redis.call('DEL', KEYS[1], KEYS[2])
if live then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
  return 1
end
return 0
`

// KEYS: session hash, history list. ARGV: now, limit. The last entries, oldest first.
const HISTORY_LUA = `
if (tonumber(redis.call('HGET', KEYS[1], 'exp')) or 0) <= tonumber(ARGV[1]) then return {} end
return redis.call('LRANGE', KEYS[2], -tonumber(ARGV[2]), -1)
`

// KEYS: record. ARGV: now, fingerprint, expires at, ttl ms.
// Returns nil when claimed, else {fingerprint, reply or nil}.
const IDEMPOTENCY_CLAIM_LUA = `
local r = redis.call('HMGET', KEYS[1], 'fp', 'reply', 'exp')
if r[1] and (tonumber(r[3]) or 0) > tonumber(ARGV[1]) then return {r[1], r[2]} end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'fp', ARGV[2], 'exp', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return false
`

// KEYS: record. ARGV: fingerprint, reply, expires at, ttl ms.
const IDEMPOTENCY_COMPLETE_LUA = `
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'reply', ARGV[2], 'exp', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`

// KEYS: tenant index. ARGV: score, member, ttl ms. GT keeps a late, older write from moving a
// session back; the index lives as long as its newest session. Cluster only: on standalone Redis
// the write script does the same.
const INDEX_ADD_LUA = `
redis.call('ZADD', KEYS[1], 'GT', ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`

// KEYS: tenant index. ARGV: member, score seen. Drops a dead member unless a new write moved it.
const INDEX_DROP_LUA = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
`

// KEYS: a counter. ARGV: window ms. Returns the hits so far and the ms left in the window.
const COUNT_LUA = `
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
    atWrite(sessionKey: string, historyKey: string, ...args: string[]): Result<WriteReply, Context>
    atWriteIndexed(
      sessionKey: string,
      historyKey: string,
      indexKey: string,
      ...args: string[]
    ): Result<WriteReply, Context>
    atDelete(sessionKey: string, historyKey: string, ...args: string[]): Result<number, Context>
    atHistory(
      sessionKey: string,
      historyKey: string,
      now: string,
      limit: string
    ): Result<string[], Context>
    atIdemClaim(key: string, ...args: string[]): Result<[string, string | null] | null, Context>
    atIdemComplete(key: string, ...args: string[]): Result<number, Context>
    atIndexAdd(key: string, score: string, member: string, ttlMs: string): Result<number, Context>
    atIndexDrop(key: string, member: string, score: string): Result<number, Context>
    atCount(key: string, windowMs: string): Result<[number, number], Context>
  }
}

/** `[1]` when written; `[0, record, token]` or `[0]` (absent) when another writer won. */
type WriteReply = [number, string?, (string | null)?]

const SCRIPTS = {
  // one script text, so one SHA: Cluster passes 2 keys, standalone adds the tenant index
  atWrite: { lua: WRITE_LUA, numberOfKeys: 2 },
  atWriteIndexed: { lua: WRITE_LUA, numberOfKeys: 3 },
  atDelete: { lua: DELETE_LUA, numberOfKeys: 2 },
  atHistory: { lua: HISTORY_LUA, numberOfKeys: 2, readOnly: true },
  atIdemClaim: { lua: IDEMPOTENCY_CLAIM_LUA, numberOfKeys: 1 },
  atIdemComplete: { lua: IDEMPOTENCY_COMPLETE_LUA, numberOfKeys: 1 },
  atIndexAdd: { lua: INDEX_ADD_LUA, numberOfKeys: 1 },
  atIndexDrop: { lua: INDEX_DROP_LUA, numberOfKeys: 1 },
  atCount: { lua: COUNT_LUA, numberOfKeys: 1 },
}

/** A stored record and the token of the write that stored it (null: written without one). */
interface Base {
  session: Session | null
  token: string | null
}

/** How an update ended, for the next update of the same session queued behind it. */
interface TurnOutcome {
  /** The record it stored, which the next turn starts from. */
  stored: Base | null
  /** When (performance.now()) a turn of this queue found Redis unreachable. */
  unavailableAt: number | null
}

/** Index entries one listing call may examine before it returns a short page with a cursor. */
const LIST_SCAN_BUDGET = 2000

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/** ioredis's own errors for a connection that is down, refusing, or not answering. */
const UNAVAILABLE_MESSAGES = [
  'Connection is closed',
  "Stream isn't writeable",
  'Command timed out',
  "Cluster isn't ready",
  'Cluster is disconnect',
  'None of startup nodes',
  'Too many Cluster redirections',
  'Node is disconnected',
  'Failed to refresh slots cache',
  'Socket timeout',
  'connect ETIMEDOUT',
]
/** Server replies that mean "not now" rather than "wrong". */
const UNAVAILABLE_REPLY = /^(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY|BUSY|NOREPLICAS)\b/

/**
 * Whether an ioredis error means Redis cannot be reached (as opposed to a script or logic error).
 * @param error - what a command rejected with
 */
export function isUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as NodeJS.ErrnoException).code
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    error.name === 'ClusterAllFailedError' ||
    (code !== undefined && UNAVAILABLE_CODES.has(code)) ||
    UNAVAILABLE_MESSAGES.some((message) => error.message.startsWith(message)) ||
    UNAVAILABLE_REPLY.test(error.message)
  )
}

async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    throw isUnavailableError(error) ? new StoreUnavailableError(error) : error
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const consoleLogger: StoreLogger = {
  info: (obj, msg) => console.error(`agent-todos redis: ${msg}`, obj),
  warn: (obj, msg) => console.error(`agent-todos redis: ${msg}`, obj),
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Reconnect delay: quick at first, then once a second for as long as Redis is away. */
const reconnectDelay = (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000)

function parseNode(node: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(node.trim())
  if (!match) throw new Error(`REDIS_CLUSTER_NODES entry '${node}' is not host:port`)
  return { host: match[1], port: Number(match[2]) }
}

/** A URL for logs, without its password. */
function safeTarget(options: RedisStoreOptions): string {
  if (options.clusterNodes?.length) return `cluster ${options.clusterNodes.join(',')}`
  try {
    const url = new URL(options.url ?? '')
    if (url.password) url.password = '***'
    return url.toString()
  } catch {
    return 'redis (unparseable URL)'
  }
}

/**
 * Opens the Redis store and waits until Redis answers and the change channel is subscribed.
 * While Redis is unreachable at startup it retries, logging the reason every few seconds.
 * @param options - connection (url or clusterNodes), key prefix, TTL and history bound
 * @throws Error when neither or both of url and clusterNodes are given, or when the startup
 *   timeout passes
 */
export async function createRedisStore(options: RedisStoreOptions): Promise<RedisSessionStore> {
  const hasCluster = (options.clusterNodes?.length ?? 0) > 0
  if (hasCluster === Boolean(options.url)) {
    throw new Error(
      'STORE=redis needs exactly one of REDIS_URL (standalone, redis://host:port) ' +
        'or REDIS_CLUSTER_NODES (comma-separated host:port)'
    )
  }
  const prefix = options.keyPrefix ?? 'at'
  if (!KEY_PREFIX_PATTERN.test(prefix)) {
    throw new Error(`Redis key prefix '${prefix}' must match ${KEY_PREFIX_PATTERN}`)
  }
  const logger = options.logger ?? consoleLogger
  const target = safeTarget(options)
  const maxAttempts = options.maxAttempts ?? 100
  const baseCacheSize = options.baseCacheSize ?? 2048
  if (!Number.isInteger(baseCacheSize) || baseCacheSize < 0) {
    throw new Error(`baseCacheSize must be a whole number >= 0, got ${baseCacheSize}`)
  }
  const commandTimeout = options.commandTimeoutMs ?? 1000

  const nodeOptions: RedisOptions = {
    // a command while disconnected fails at once (503) instead of waiting in a queue
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout,
    connectTimeout: 2000,
    retryStrategy: reconnectDelay,
    scripts: SCRIPTS,
  }
  let client: Redis | Cluster
  let subscriber: Redis | Cluster
  if (hasCluster) {
    const {
      retryStrategy: _retry,
      enableOfflineQueue: _queue,
      scripts: _scripts,
      ...redisOptions
    } = nodeOptions
    const clusterOptions: ClusterOptions = {
      enableOfflineQueue: false,
      clusterRetryStrategy: reconnectDelay,
      clusterNodeRetryStrategy: reconnectDelay,
      maxRedirections: 6,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      slotsRefreshTimeout: 1000,
      scripts: SCRIPTS,
      redisOptions,
    }
    const nodes = options.clusterNodes!.map(parseNode)
    client = new Cluster(nodes, clusterOptions)
    subscriber = new Cluster(nodes, {
      ...clusterOptions,
      enableOfflineQueue: true,
      redisOptions: { ...redisOptions, commandTimeout: undefined },
    })
  } else {
    client = new Redis(options.url!, nodeOptions)
    // the subscriber queues SUBSCRIBE until connected and resubscribes after every reconnect
    subscriber = client.duplicate({ enableOfflineQueue: true, commandTimeout: undefined })
  }

  let lostAt: number | null = null
  let startedUp = false
  client.on('error', (error: unknown) => {
    if (startedUp && lostAt === null) {
      lostAt = Date.now()
      logger.warn(
        { err: errorText(error), target },
        'redis connection lost; requests answer 503 until it returns'
      )
    }
  })
  client.on('ready', () => {
    if (lostAt !== null) {
      logger.info({ target, down_ms: Date.now() - lostAt }, 'redis connection restored')
      lostAt = null
    }
  })
  subscriber.on('error', () => {
    // the main client reports the outage; ioredis reconnects and resubscribes by itself
  })
  if (hasCluster) client.on('node error', () => undefined)

  const channel = `${prefix}:changes`
  const feed = createChangeFeed()
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return
    let event: ChangeEvent
    try {
      event = JSON.parse(message) as ChangeEvent
    } catch {
      return
    }
    if (typeof event?.tenant === 'string' && typeof event.session_id === 'string') feed.emit(event)
  })

  const shutdown = () => {
    client.disconnect()
    subscriber.disconnect()
  }
  try {
    await waitForRedis(client, logger, target, options.startupTimeoutMs ?? 0)
    await subscriber.subscribe(channel)
  } catch (error) {
    shutdown()
    throw error
  }
  startedUp = true

  const sessionTag = (key: SessionKey) => `${prefix}:{${key.tenant}:${key.sessionId}}`
  const sessionKeyOf = (key: SessionKey) => `${sessionTag(key)}:s`
  const historyKeyOf = (key: SessionKey) => `${sessionTag(key)}:h`
  const indexKeyOf = (tenant: string) => `${prefix}:{${tenant}}:sessions`
  // the scope is opaque (tenant, session and a client-chosen key): a digest keeps the key tidy
  const idempotencyKeyOf = (scope: string) =>
    `${prefix}:idem:${createHash('sha256').update(scope).digest('hex')}`

  const liveRecord = (reply: (string | null)[], now: number): Session | null => {
    const [exp, data] = reply
    if (exp === null || data === null || Number(exp) <= now) return null
    return JSON.parse(data) as Session
  }

  // The last record this instance stored or read, per session hash key: where its next update of
  // that session starts, as a guess the write script verifies (never what a read returns). A Map
  // keeps insertion order, so re-inserting on use makes its first key the least recently used.
  const baseCache = new Map<string, Base>()
  const remember = (sessionKey: string, base: Base) => {
    baseCache.delete(sessionKey)
    // an absent session, or a record written without a token, is not kept: only a token tells
    // one write from another at the same version (a delete and re-creation elsewhere)
    if (baseCacheSize === 0 || !base.session || base.token === null) return
    baseCache.set(sessionKey, base)
    if (baseCache.size > baseCacheSize) baseCache.delete(baseCache.keys().next().value!)
  }

  const instanceId = randomBytes(8).toString('hex')
  let writes = 0
  /** Unique per write across the fleet: the compare-and-set matches it, not only the version. */
  const nextToken = () => `${instanceId}:${(++writes).toString(36)}`

  const readBase = async (key: SessionKey): Promise<Base> => {
    const sessionKey = sessionKeyOf(key)
    const [exp, data, token] = await guarded(() => client.hmget(sessionKey, 'exp', 'data', 't'))
    const session = liveRecord([exp, data], options.now())
    const base: Base = { session, token: session ? token : null }
    remember(sessionKey, base)
    return base
  }

  const readSession = async (key: SessionKey): Promise<Session | null> =>
    (await readBase(key)).session

  const indexAdd = (key: SessionKey, updatedAt: number) => {
    // Cluster only (the index is in another slot): after the script, not awaited. The listing is
    // eventually consistent, and the next command on this connection (a listing by this
    // instance) still sees it
    client
      .atIndexAdd(indexKeyOf(key.tenant), String(updatedAt), key.sessionId, String(options.ttlMs))
      .catch((error: unknown) => {
        logger.warn(
          { err: errorText(error), session_id: key.sessionId },
          'session index not updated'
        )
      })
  }

  const dropFromIndex = (tenant: string, sessionId: string, score: number) => {
    client.atIndexDrop(indexKeyOf(tenant), sessionId, String(score)).catch(() => undefined)
  }

  const eventJson = (key: SessionKey, version: number, source: ChangeSource) =>
    JSON.stringify(changeEvent(key, version, source))

  const turns = new Map<string, Promise<TurnOutcome>>()

  const writeWithRetries = async <T>(
    key: SessionKey,
    start: Base,
    guessed: boolean,
    fn: Updater<T>,
    outcome: TurnOutcome
  ): Promise<T> => {
    const sessionKey = sessionKeyOf(key)
    const historyKey = historyKeyOf(key)
    let base = start
    for (let attempt = 1; ;) {
      let decision: UpdateDecision<T> | null = null
      let thrown: { error: unknown } | null = null
      try {
        decision = fn(base.session)
      } catch (error) {
        thrown = { error }
      }
      if (guessed && !decision?.write) {
        // the compare-and-set verifies a guess only when the updater writes: a decision without
        // a write, or a refusal thrown, on the cached guess holds only if one read confirms it
        guessed = false
        const fresh = await readBase(key)
        if (fresh.token !== base.token || fresh.session?.version !== base.session?.version) {
          base = fresh
          continue
        }
      }
      if (!decision) throw thrown!.error
      if (!decision.write) return decision.value
      const { session, source } = decision.write
      assertNextVersion(base.session, session)
      const now = options.now()
      const token = nextToken()
      const args = [
        String(base.session?.version ?? 0),
        base.token ?? '',
        String(now),
        String(session.version),
        JSON.stringify(session),
        String(now + options.ttlMs),
        String(options.ttlMs),
        JSON.stringify(historyEntryOf(session, source)),
        String(options.historyLimit),
        channel,
        eventJson(key, session.version, source),
        token,
      ]
      const reply = await guarded(() =>
        hasCluster
          ? client.atWrite(sessionKey, historyKey, ...args)
          : client.atWriteIndexed(
              sessionKey,
              historyKey,
              indexKeyOf(key.tenant),
              ...args,
              String(session.updated_at),
              key.sessionId
            )
      )
      if (reply[0] === 1) {
        const stored: Base = { session, token }
        outcome.stored = stored
        remember(sessionKey, stored)
        if (hasCluster) indexAdd(key, session.updated_at)
        return decision.value
      }
      options.onConflict?.()
      // the refusal carries the winner's state (and its token); it is the next attempt's base
      base =
        typeof reply[1] === 'string'
          ? { session: JSON.parse(reply[1]) as Session, token: reply[2] ?? null }
          : { session: null, token: null }
      guessed = false
      remember(sessionKey, base)
      if (attempt >= maxAttempts) throw new ConflictRetryError()
      // a little jitter spreads a herd of instances
      if (attempt > 2) await sleep(Math.random() * Math.min(attempt, 10))
      attempt++
    }
  }

  // the per-tenant rate limit of a fleet; keys as in earlier versions, so windows survive an upgrade
  const counterKeyOf = (key: string) => `${prefix}:rl:{${key}}`
  const counters: SharedCounters = {
    async increment(key, windowMs) {
      const [hits, ttl] = await guarded(() => client.atCount(counterKeyOf(key), String(windowMs)))
      return { hits, resetInMs: ttl }
    },
    async decrement(key) {
      await guarded(() => client.decr(counterKeyOf(key)))
    },
    async reset(key) {
      await guarded(() => client.del(counterKeyOf(key)))
    },
  }

  return {
    kind: 'redis',
    client,
    counters,
    get: readSession,

    async update<T>(key: SessionKey, fn: Updater<T>): Promise<T> {
      const sessionKey = sessionKeyOf(key)
      // updates of one session queue up inside this instance, so compare-and-set conflicts only
      // happen between instances, and each turn starts from the state the previous one stored
      const enqueuedAt = performance.now()
      const previous = turns.get(sessionKey)
      const outcome: TurnOutcome = { stored: null, unavailableAt: null }
      let finish!: (outcome: TurnOutcome) => void
      const mine = new Promise<TurnOutcome>((resolve) => (finish = resolve))
      turns.set(sessionKey, mine)
      try {
        const before = previous && (await previous)
        if (before?.unavailableAt != null && enqueuedAt <= before.unavailableAt) {
          // it failed while this turn waited: fail with it rather than wait out another timeout
          outcome.unavailableAt = before.unavailableAt
          throw new StoreUnavailableError(
            new Error('an earlier update of this session found Redis unreachable')
          )
        }
        // the cached record (a read or refusal since is newer than what the turn ahead stored),
        // else what the turn ahead stored, else one read; only a cached record this instance did
        // not just store itself is a guess the updater's decision must be checked against
        const handed = before?.stored
        const cached = baseCache.get(sessionKey)
        const start = cached ?? handed ?? (await readBase(key))
        const guessed = cached !== undefined && cached.token !== handed?.token
        return await writeWithRetries(key, start, guessed, fn, outcome)
      } catch (error) {
        if (error instanceof StoreUnavailableError) {
          outcome.unavailableAt ??= performance.now()
          // the write may have happened without its reply: start the next update from a read
          baseCache.delete(sessionKey)
        }
        throw error
      } finally {
        finish(outcome)
        if (turns.get(sessionKey) === mine) turns.delete(sessionKey)
      }
    },

    async delete(key) {
      const sessionKey = sessionKeyOf(key)
      let existed: number
      try {
        existed = await guarded(() =>
          client.atDelete(
            sessionKey,
            historyKeyOf(key),
            String(options.now()),
            channel,
            eventJson(key, 0, 'delete')
          )
        )
      } finally {
        baseCache.delete(sessionKey)
      }
      client.zrem(indexKeyOf(key.tenant), key.sessionId).catch(() => undefined)
      return existed === 1
    },

    async countSessions(tenant) {
      return guarded(() => client.zcard(indexKeyOf(tenant)))
    },

    async list(tenant, query: ListQuery): Promise<ListPage> {
      const index = indexKeyOf(tenant)
      const want = query.limit + 1
      const filtered =
        query.state !== 'all' || query.dialect !== undefined || query.source !== undefined
      const batchSize = !filtered ? want : Math.min(Math.max(want * 2, 50), 500)
      let max = query.cursor ? String(query.cursor.updatedAt) : '+inf'
      if (
        query.state === 'stale' &&
        (!query.cursor || query.cursor.updatedAt >= query.staleBefore)
      ) {
        max = `(${query.staleBefore}`
      }
      const found: { session: Session; position: ListCursor }[] = []
      let lastExamined: ListCursor | null = null
      let offset = 0
      let scanned = 0
      let exhausted = false
      while (found.length < want && !exhausted && scanned < LIST_SCAN_BUDGET) {
        const flat = await guarded(() =>
          client.zrange(
            index,
            max,
            query.updatedSince === undefined ? '-inf' : String(query.updatedSince),
            'BYSCORE',
            'REV',
            'LIMIT',
            offset,
            batchSize,
            'WITHSCORES'
          )
        )
        offset += flat.length / 2
        exhausted = flat.length / 2 < batchSize
        const candidates: ListCursor[] = []
        for (let i = 0; i < flat.length; i += 2) {
          const position = { sessionId: flat[i], updatedAt: Number(flat[i + 1]) }
          if (
            !query.cursor ||
            isBeforeCursor(position.updatedAt, position.sessionId, query.cursor)
          ) {
            candidates.push(position)
          }
        }
        const now = options.now()
        const records = await Promise.all(
          candidates.map((position) =>
            guarded(() =>
              client.hmget(sessionKeyOf({ tenant, sessionId: position.sessionId }), 'exp', 'data')
            )
          )
        )
        for (let i = 0; i < candidates.length && found.length < want; i++) {
          const position = candidates[i]
          scanned++
          lastExamined = position
          const session = liveRecord(records[i], now)
          if (!session) {
            dropFromIndex(tenant, position.sessionId, position.updatedAt)
            continue
          }
          if (matchesListQuery(session, query)) {
            found.push({ session, position })
          }
        }
      }
      const page = found.slice(0, query.limit)
      let next: ListCursor | null = null
      if (found.length > query.limit) next = page[page.length - 1].position
      else if (!exhausted && found.length < want && lastExamined) next = lastExamined
      return { sessions: page.map((entry) => entry.session), next }
    },

    async history(key, limit) {
      if (limit <= 0) return []
      const entries = await guarded(() =>
        client.atHistory(sessionKeyOf(key), historyKeyOf(key), String(options.now()), String(limit))
      )
      return entries.map((json) => JSON.parse(json) as HistoryEntry)
    },

    async claimIdempotency(scope, fingerprint, ttlMs): Promise<IdempotencyClaim> {
      const now = options.now()
      const reply = await guarded(() =>
        client.atIdemClaim(
          idempotencyKeyOf(scope),
          String(now),
          fingerprint,
          String(now + ttlMs),
          String(ttlMs)
        )
      )
      if (reply === null) return { claimed: true }
      return { claimed: false, record: { fingerprint: reply[0], reply: reply[1] ?? null } }
    },

    async completeIdempotency(scope, fingerprint, reply, ttlMs) {
      const now = options.now()
      await guarded(() =>
        client.atIdemComplete(
          idempotencyKeyOf(scope),
          fingerprint,
          reply,
          String(now + ttlMs),
          String(ttlMs)
        )
      )
    },

    async releaseIdempotency(scope) {
      await guarded(() => client.del(idempotencyKeyOf(scope)))
    },

    subscribe: feed.subscribe,

    async ping() {
      await guarded(() => client.ping())
    },

    async close() {
      const quit = (connection: Redis | Cluster) =>
        Promise.race([connection.quit().catch(() => undefined), sleep(1000)]).finally(() =>
          connection.disconnect()
        )
      await Promise.all([quit(client), quit(subscriber)])
    },
  }
}

async function waitForRedis(
  client: Redis | Cluster,
  logger: StoreLogger,
  target: string,
  timeoutMs: number
): Promise<void> {
  const started = Date.now()
  let lastLog = 0
  let lastError: unknown
  const onError = (error: unknown) => {
    lastError = error
  }
  client.on('error', onError)
  try {
    for (;;) {
      if (client.status === 'ready') {
        try {
          await client.ping()
          if (lastError !== undefined) {
            logger.info({ target, waited_ms: Date.now() - started }, 'redis reachable')
          }
          return
        } catch (error) {
          lastError = error
        }
      }
      const waited = Date.now() - started
      if (timeoutMs > 0 && waited >= timeoutMs) {
        const reason = lastError === undefined ? 'no connection' : errorText(lastError)
        throw new Error(`redis unreachable at ${target} after ${waited} ms: ${reason}`)
      }
      if (lastError !== undefined && Date.now() - lastLog >= 5000) {
        lastLog = Date.now()
        logger.warn(
          { target, waited_ms: waited, err: errorText(lastError) },
          'redis unreachable at startup; retrying'
        )
      }
      await sleep(100)
    }
  } finally {
    client.off('error', onError)
  }
}
