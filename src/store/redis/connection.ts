/**
 * @module store/redis/connection
 * The two connections of an instance (commands; the change channel's subscriber) to a standalone
 * Redis or a Cluster: no offline queue (a command while disconnected fails at once), a bounded
 * reply time, reconnection with a capped backoff, and startup that waits for Redis and says why.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis'
import type { StoreLogger } from '../types.js'
import { SCRIPTS } from './scripts.js'

export interface ConnectOptions {
  /** `redis://…` or `rediss://…` of a standalone server. */
  url?: string
  /** `host:port` of one or more Cluster nodes. */
  clusterNodes?: string[]
  /** A command without a reply after this long fails; default 1000. */
  commandTimeoutMs?: number
  /** Startup gives up after this long without Redis; default 0 = keeps retrying. */
  startupTimeoutMs?: number
  logger: StoreLogger
  /** The change channel the subscriber listens to. */
  channel: string
  /** Hears every message on the channel. */
  onMessage: (message: string) => void
}

export interface Connections {
  client: Redis | Cluster
  hasCluster: boolean
  /** Quits both connections (1 s at most), then drops them. */
  close: () => Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** An error's message, for logs. */
export const errorText = (error: unknown) =>
  error instanceof Error ? error.message : String(error)

/** Reconnect delay: quick at first, then once a second for as long as Redis is away. */
const reconnectDelay = (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000)

function parseNode(node: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(node.trim())
  if (!match) throw new Error(`REDIS_CLUSTER_NODES entry '${node}' is not host:port`)
  return { host: match[1], port: Number(match[2]) }
}

/** A target for logs, without its password. */
function safeTarget(options: ConnectOptions): string {
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
 * Opens the connections and waits until Redis answers and the change channel is subscribed.
 * While Redis is unreachable at startup it retries, logging the reason every few seconds.
 * @param options - where, timeouts, the logger and the change channel
 * @throws Error when neither or both of url and clusterNodes are given, or when the startup
 *   timeout passes
 */
export async function connect(options: ConnectOptions): Promise<Connections> {
  const hasCluster = (options.clusterNodes?.length ?? 0) > 0
  if (hasCluster === Boolean(options.url)) {
    throw new Error(
      'STORE=redis needs exactly one of REDIS_URL (standalone, redis://host:port) ' +
        'or REDIS_CLUSTER_NODES (comma-separated host:port)'
    )
  }
  const { logger } = options
  const target = safeTarget(options)
  /** What every node connection gets, standalone or in a Cluster. */
  const redisOptions: RedisOptions = {
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
  }
  let client: Redis | Cluster
  let subscriber: Redis | Cluster
  if (hasCluster) {
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
    client = new Redis(options.url!, {
      ...redisOptions,
      // a command while disconnected fails at once (503) instead of waiting in a queue
      enableOfflineQueue: false,
      retryStrategy: reconnectDelay,
      scripts: SCRIPTS,
    })
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
  subscriber.on('message', (from: string, message: string) => {
    if (from === options.channel) options.onMessage(message)
  })

  try {
    await waitForRedis(client, logger, target, options.startupTimeoutMs ?? 0)
    await requireScriptFlags(client, target)
    await subscriber.subscribe(options.channel)
  } catch (error) {
    client.disconnect()
    subscriber.disconnect()
    throw error
  }
  startedUp = true

  return {
    client,
    hasCluster,
    async close() {
      const quit = (connection: Redis | Cluster) =>
        Promise.race([connection.quit().catch(() => undefined), sleep(1000)]).finally(() =>
          connection.disconnect()
        )
      await Promise.all([quit(client), quit(subscriber)])
    },
  }
}

/**
 * The scripts' first line flags them (`#!lua`, Redis 7.0), which Redis 6 cannot parse: refuse to
 * start rather than fail every write. A server that does not tell its version is given the
 * benefit of the doubt.
 */
async function requireScriptFlags(client: Redis | Cluster, target: string): Promise<void> {
  let info: string
  try {
    info = await client.info('server')
  } catch {
    return
  }
  const version = /^redis_version:(\d+)\.(\d+)/m.exec(info)
  if (version && Number(version[1]) < 7) {
    throw new Error(
      `redis at ${target} is version ${version[1]}.${version[2]}; agent-todos needs Redis 7.0 or later`
    )
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
