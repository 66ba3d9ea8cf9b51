// The cheapest durable write a hook delivery needs, for bench/floor.mjs: the delivery's session
// record replaced and its version bumped, with nothing the service adds (no read before the
// write, no history, no listing index, no change event). That is why it does not use the
// service's group commit (src/store/sqlite/group-commit.ts) or write script: their savepoint per
// write, change events and checkpoint thread are part of what the service is measured against.
// - sqlite: one upsert per delivery (`.run()`, so SQLite's own auto-checkpoint runs: see
//   ../shared/reference/perf-baseline.md), all the deliveries of an event-loop turn in one
//   transaction, WAL, synchronous=NORMAL, in a file of its own that is removed on close;
// - sqlite-nockpt: the same without any checkpoint (`wal_autocheckpoint = 0`): the WAL only
//   grows, which no store can afford for long, so this is the least a SQLite write costs here;
// - redis: one EVALSHA per delivery (HINCRBY and HSET in a script), keys under a prefix of its
//   own that are deleted on close.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { Redis } from 'ioredis'

/**
 * Opens the store a floor writes to.
 * @param {'sqlite' | 'sqlite-nockpt' | 'redis' | undefined} kind
 * @returns {Promise<{ put(id: string, data: string): Promise<void>, close(): Promise<void> } | null>}
 */
export async function openFloorStore(kind) {
  if (kind === undefined) return null
  if (kind === 'sqlite' || kind === 'sqlite-nockpt') return sqliteFloor(kind === 'sqlite')
  if (kind === 'redis') return redisFloor()
  throw new Error(`unknown floor store: ${kind}`)
}

/** @param {boolean} checkpoints - SQLite's own auto-checkpoint (else none) */
function sqliteFloor(checkpoints) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-floor-'))
  const db = new Database(path.join(dir, 'floor.db'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  if (!checkpoints) db.pragma('wal_autocheckpoint = 0')
  db.exec(
    'CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, data TEXT NOT NULL) WITHOUT ROWID'
  )
  const upsert = db.prepare(
    'INSERT INTO sessions (id, version, data) VALUES (?, 1, ?) ON CONFLICT (id) DO UPDATE SET version = version + 1, data = excluded.data'
  )
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  let queue = []
  const flush = () => {
    const batch = queue
    queue = []
    begin.run()
    for (const op of batch) upsert.run(op.id, op.data)
    commit.run()
    for (const op of batch) op.resolve()
  }
  return {
    put(id, data) {
      return new Promise((resolve) => {
        if (queue.length === 0) setImmediate(flush)
        queue.push({ id, data, resolve })
      })
    },
    async close() {
      db.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function redisFloor() {
  const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379')
  const prefix = `bench-floor-${process.pid}:`
  redis.defineCommand('put', {
    numberOfKeys: 1,
    lua: "redis.call('HINCRBY', KEYS[1], 'version', 1) redis.call('HSET', KEYS[1], 'data', ARGV[1]) return 1",
  })
  const keys = new Set()
  return {
    async put(id, data) {
      keys.add(prefix + id)
      await redis.put(prefix + id, data)
    },
    async close() {
      const all = [...keys]
      for (let i = 0; i < all.length; i += 500) await redis.del(...all.slice(i, i + 500))
      redis.disconnect()
    },
  }
}
