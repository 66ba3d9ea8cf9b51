/**
 * @module store
 * Picks the configured backend.
 */
import { createMemoryStore } from './memory.js'
import { createRedisStore } from './redis/index.js'
import { createSqliteStore } from './sqlite.js'
import { createPostgresStore } from './postgres/index.js'
import type { SessionStore, StoreLogger, StoreOptions } from './types.js'

export interface StoreConfig extends StoreOptions {
  kind: SessionStore['kind']
  sqlitePath: string
  sqliteSync: 'normal' | 'full'
  /** Where SQLite's WAL checkpoints run: a worker thread (default), or inside the commits. */
  sqliteCheckpoints?: 'thread' | 'commit'
  redisUrl?: string
  redisClusterNodes?: string[]
  /** First segment of every Redis key; default `at`. */
  redisKeyPrefix?: string
  /** `postgres://…` for `STORE=postgres` (`DATABASE_URL`). */
  databaseUrl?: string
  /** Connections in the PostgreSQL pool (`PG_POOL_SIZE`). */
  pgPoolSize?: number
  /** Where a store reports connection trouble (Redis); console.error when absent. */
  logger?: StoreLogger
}

/**
 * Opens the store the configuration names. For Redis it waits (retrying and logging) until Redis
 * answers.
 * @param config - backend and its options
 * @throws Error when STORE=redis has neither REDIS_URL nor REDIS_CLUSTER_NODES, or STORE=postgres
 *   has no DATABASE_URL
 */
export async function openStore(config: StoreConfig): Promise<SessionStore> {
  switch (config.kind) {
    case 'memory':
      return createMemoryStore(config)
    case 'sqlite':
      return createSqliteStore({
        ...config,
        path: config.sqlitePath,
        synchronous: config.sqliteSync,
        checkpointThread: config.sqliteCheckpoints !== 'commit',
      })
    case 'redis':
      return createRedisStore({
        ...config,
        url: config.redisUrl,
        clusterNodes: config.redisClusterNodes?.filter((node) => node !== ''),
        keyPrefix: config.redisKeyPrefix,
      })
    case 'postgres':
      if (!config.databaseUrl) throw new Error('STORE=postgres needs DATABASE_URL (postgres://…)')
      return createPostgresStore({
        ...config,
        url: config.databaseUrl,
        poolSize: config.pgPoolSize,
      })
  }
}
