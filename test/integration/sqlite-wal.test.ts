/**
 * The SQLite WAL stays bounded under sustained writes: checkpoints run. The trap it guards against
 * (measured on this project's CI machine kind): an autocommit `INSERT … RETURNING` read with `.get()` commits
 * inside `sqlite3_reset()`, SQLite skips the WAL hook, and the `-wal` file grows without bound.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { makeItem } from '../../src/core/items.js'
import { openTestSqlite, walSize, writeItems } from '../sqlite-support.js'

const WAL_BOUND = 16 * 1024 * 1024
const WRITES = 50_000
const SESSIONS = 1000

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`

// small lists keep the test's disk traffic (and time) low; what matters is the number of commits
const ITEMS = Array.from({ length: 2 }, (_, i) =>
  makeItem({ id: String(i + 1), content: `Step ${i + 1}`, status: 'pending' })
)

describe('SQLite WAL size under sustained writes', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-wal-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  for (const [label, perTurn, checkpointThread] of [
    ['one write per transaction', 1, true],
    ['50 writes per group commit', 50, true],
    // SQLITE_CHECKPOINTS=commit, and where the checkpoint thread could not start
    ['50 writes per group commit, checkpoints in the commits', 50, false],
  ] as const) {
    it(`Should keep the -wal file under 16 MB after ${WRITES} writes, ${label}`, async (t) => {
      const path = join(dir, `store-${perTurn}-${checkpointThread}.db`)
      const store = openTestSqlite(path, { checkpointThread })
      let largest = 0
      try {
        for (let done = 0; done < WRITES; done += perTurn) {
          const batch: Promise<number>[] = []
          for (let i = 0; i < perTurn; i++) {
            batch.push(
              writeItems(store, { tenant: 't', sessionId: `s${(done + i) % SESSIONS}` }, ITEMS)
            )
          }
          await Promise.all(batch)
          if (done % 5000 < perTurn) largest = Math.max(largest, walSize(path))
        }
        largest = Math.max(largest, walSize(path))
        t.diagnostic(`largest -wal ${mb(largest)}, database ${mb(statSync(path).size)}`)
        assert.ok(largest < WAL_BOUND, `the -wal file reached ${mb(largest)}`)
        assert.equal(
          await store.get({ tenant: 't', sessionId: 's0' }).then((s) => s?.version),
          WRITES / SESSIONS
        )
      } finally {
        await store.close()
      }
    })
  }

  it('Should detect the trap: RETURNING read with .get() never checkpoints', (t) => {
    const path = join(dir, 'trap.db')
    const db = new Database(path)
    try {
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = NORMAL')
      db.exec(
        'CREATE TABLE lists (sid TEXT PRIMARY KEY, v INTEGER NOT NULL, items TEXT NOT NULL) WITHOUT ROWID'
      )
      const upsert = db
        .prepare(
          `INSERT INTO lists (sid, v, items) VALUES (?, 1, ?)
           ON CONFLICT(sid) DO UPDATE SET v = lists.v + 1, items = excluded.items RETURNING v`
        )
        .pluck()
      const items = JSON.stringify(ITEMS)
      for (let i = 0; i < 20_000; i++) upsert.get(`s${i % SESSIONS}`, items)
      // the bound above would catch it: this is what the store must never do
      t.diagnostic(`-wal after 20k .get() upserts: ${mb(walSize(path))}`)
      assert.ok(walSize(path) > WAL_BOUND, `expected unbounded growth, got ${mb(walSize(path))}`)
    } finally {
      db.close()
    }
  })
})
