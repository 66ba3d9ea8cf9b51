/**
 * @module store
 * Picks the configured backend.
 */
import { createMemoryStore } from './memory.js'
import { createSqliteStore } from './sqlite.js'
import type { SessionStore, StoreOptions } from './types.js'

export interface StoreConfig extends StoreOptions {
  kind: 'memory' | 'sqlite' | 'redis'
  sqlitePath: string
  sqliteSync: 'normal' | 'full'
  redisUrl?: string
  redisClusterNodes?: string[]
}

/**
 * Opens the store the configuration names.
 * @param config - backend and its options
 */
export async function openStore(config: StoreConfig): Promise<SessionStore> {
  switch (config.kind) {
    case 'memory':
      return createMemoryStore(config)
    case 'sqlite':
      return createSqliteStore({ ...config, path: config.sqlitePath, synchronous: config.sqliteSync })
    case 'redis':
      throw new Error('STORE=redis is not available yet')
  }
}
