/**
 * The stores a test runs on, each a fresh one: memory, SQLite (a file in a folder of the test
 * file's own), Redis (a key prefix of its own on the shared server), PostgreSQL (a database of
 * its own on the shared server) and, where asked, a 3-master
 * Redis Cluster of the test's own. A Redis that cannot be reached is not skipped silently: under
 * CI=true it is a failing test (`missingRedis`).
 */
import { after } from 'node:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryStore } from '../src/store/memory.js'
import { createSqliteStore } from '../src/store/sqlite.js'
import type { SessionStore, StoreOptions } from '../src/store/types.js'
import {
  dropKeys,
  missingRedis,
  openTestRedisStore,
  probeRedis,
  probeRedisBinaries,
  startRedisCluster,
  TEST_REDIS_URL,
  uniquePrefix,
} from './redis-support.js'
import {
  missingPostgres,
  openTestPostgresStore,
  probePostgres,
  TEST_POSTGRES_URL,
} from './postgres-support.js'

export type StoreKind = 'memory' | 'sqlite' | 'redis' | 'redis-cluster' | 'postgres'

/**
 * The kinds a suite runs on: memory and SQLite, Redis when it answers (else `missingRedis`), and
 * with `cluster` a Redis Cluster when redis-server and redis-cli can run here.
 * @param suite - names the suite in the missing-Redis test
 * @param options - `cluster`: a Redis Cluster too
 */
export async function storeKinds(
  suite: string,
  { cluster = false }: { cluster?: boolean } = {}
): Promise<StoreKind[]> {
  const kinds: StoreKind[] = ['memory', 'sqlite']
  const down = await probeRedis()
  if (down) missingRedis(`${suite}: redis at ${TEST_REDIS_URL}`, down)
  else kinds.push('redis')
  const pgDown = await probePostgres()
  if (pgDown) missingPostgres(`${suite}: postgres at ${TEST_POSTGRES_URL}`, pgDown)
  else kinds.push('postgres')
  if (cluster) {
    const missing = probeRedisBinaries()
    if (missing) missingRedis(`${suite}: a Redis Cluster`, missing)
    else kinds.push('redis-cluster')
  }
  return kinds
}

/**
 * Opens fresh stores of each kind, with the options the alert tests use (sessions kept 7 days,
 * 50 versions of history, the wall clock). What a store leaves behind (keys, a cluster) is
 * cleaned by a function pushed on `stops`, which the test file runs after closing its stores; the
 * SQLite folder is removed after the file.
 * @param tag - names the SQLite folder and the Redis key prefix
 * @param stops - the test file's cleanups
 */
export function storeOpener(tag: string, stops: (() => Promise<void>)[]) {
  const dir = mkdtempSync(join(tmpdir(), `agent-todos-${tag}-`))
  after(() => rmSync(dir, { recursive: true, force: true }))
  let opened = 0
  return async (kind: StoreKind, staleAfterMs = 900_000): Promise<SessionStore> => {
    const options: StoreOptions = {
      ttlMs: 7 * 24 * 3600 * 1000,
      historyLimit: 50,
      now: Date.now,
      staleAfterMs,
    }
    if (kind === 'memory') return createMemoryStore(options)
    if (kind === 'sqlite') {
      const path = join(dir, `store-${++opened}.db`)
      return createSqliteStore({ ...options, path, synchronous: 'normal' })
    }
    if (kind === 'postgres') return openTestPostgresStore(tag.replace(/\W/g, '_'), options)
    const keyPrefix = uniquePrefix(tag)
    if (kind === 'redis') {
      stops.push(() => dropKeys({ url: TEST_REDIS_URL }, keyPrefix))
      return openTestRedisStore({ ...options, url: TEST_REDIS_URL, keyPrefix })
    }
    const redisCluster = await startRedisCluster()
    stops.push(redisCluster.stop)
    return openTestRedisStore({ ...options, clusterNodes: redisCluster.nodes, keyPrefix })
  }
}
