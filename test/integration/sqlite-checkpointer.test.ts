/**
 * The SQLite checkpoint thread: checkpoints run on its own connection after commits, not inside
 * the store's COMMIT; the WAL is reused; closing the store closes the thread first, so the WAL
 * is removed as before; and a thread that cannot run hands checkpoints back to the store.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { makeItem } from '../../src/core/items.js'
import {
  DEFAULT_AUTOCHECKPOINT_PAGES,
  HOLD_BYTES,
  SAFETY_NET_PAGES,
  startCheckpointer,
} from '../../src/store/sqlite/checkpointer.js'
import { eventually } from '../eventually.js'
import { openTestSqlite, walSize, writeItems } from '../sqlite-support.js'

const ITEMS = Array.from({ length: 5 }, (_, i) =>
  makeItem({ id: String(i + 1), content: `Step ${i + 1} of the plan`, status: 'pending' })
)

/**
 * A WAL database with one table, as the store's connection is set up (commits do not sync, so
 * the tests' write loops are quick on any disk), with an auto-checkpoint of its own, and a
 * checkpoint thread on `threadPath` (its own file by default) whose stops are collected.
 */
function withThread(
  path: string,
  intervalMs: number,
  threadPath = path,
  autocheckpoint = 1000,
  maxFinalHoldMs?: number
) {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma(`wal_autocheckpoint = ${autocheckpoint}`)
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)')
  const stopped: Error[] = []
  const checkpointer = startCheckpointer(db, threadPath, {
    intervalMs,
    restartFrames: 100,
    synchronous: 'normal',
    maxFinalHoldMs,
    onStopped: (error) => stopped.push(error),
  })
  return { db, checkpointer, stopped }
}

describe('SQLite checkpoint thread', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-ckpt-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('Should checkpoint what the store committed on its own connection, then start the WAL over', async () => {
    const path = join(dir, 'direct.db')
    // an interval long enough that the offer of the last pass is still there when the test takes it
    const { db, checkpointer, stopped } = withThread(path, 200)
    try {
      const insert = db.prepare('INSERT OR REPLACE INTO t (k, v) VALUES (?, ?)')
      for (let i = 0; i < 300; i++) {
        insert.run(i % 20, 'x'.repeat(2000))
        checkpointer.committed()
      }
      assert.ok(
        await eventually(() => checkpointer.stats().checkpoints > 0),
        'no checkpoint ran in the thread'
      )
      assert.ok(checkpointer.stats().walFrames >= 100, `${checkpointer.stats().walFrames} frames`)
      // the thread caught up with 300 commits and offers the last pass: the store's next writes
      // wait while the thread copies what was committed since (under load, the last few
      // commits; nothing here), then the first of them starts the WAL over, so the file does
      // not grow
      assert.ok(
        await eventually(() => checkpointer.holdWrites()),
        'the writes do not wait for the last pass'
      )
      assert.ok(await eventually(() => !checkpointer.holdWrites()), 'the writes wait for ever')
      const size = walSize(path)
      for (let i = 0; i < 20; i++) insert.run(i, 'z'.repeat(2000))
      assert.equal(walSize(path), size, 'the WAL grew instead of starting over')
      // a COMMIT after the thread is ready leaves the WAL to it, with a high bound of the
      // store's own
      checkpointer.committed()
      assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), SAFETY_NET_PAGES)
      assert.equal(checkpointer.stats().failures, 0)
    } finally {
      await checkpointer.close()
      db.close()
    }
    assert.deepEqual(stopped, [], 'a thread stopped by close() is not reported as stopped')
  })

  it('Should hold no write past maxFinalHoldMs for the last pass, and wait for the next one again', async () => {
    const path = join(dir, 'overdue.db')
    // a bound of 0: every last pass is overdue at once, as one is when a disk sync takes long
    const { db, checkpointer } = withThread(path, 200, path, 1000, 0)
    try {
      const insert = db.prepare('INSERT OR REPLACE INTO t (k, v) VALUES (?, ?)')
      const round = async () => {
        for (let i = 0; i < 300; i++) {
          insert.run(i % 20, 'x'.repeat(2000))
          checkpointer.committed()
        }
        const passes = checkpointer.stats().checkpoints
        assert.ok(await eventually(() => checkpointer.stats().checkpoints > passes))
        // the offer of the last pass is taken, and no write waits for it
        const until = performance.now() + 500
        while (performance.now() < until) {
          assert.equal(checkpointer.holdWrites(), false, 'a write waited for the last pass')
          await new Promise((resolve) => setTimeout(resolve, 2))
        }
      }
      await round()
      await round()
      assert.equal(checkpointer.stats().failures, 0)
    } finally {
      await checkpointer.close()
      db.close()
    }
  })

  it('Should keep the WAL small under sustained group commits with the thread on', async () => {
    const path = join(dir, 'store.db')
    const warnings: string[] = []
    const store = openTestSqlite(path, {
      // a thread that failed would say so here, and the store would still keep the WAL small
      logger: { info() {}, warn: (_obj, msg) => warnings.push(msg) },
    })
    let largest = 0
    try {
      for (let done = 0; done < 20_000; done += 50) {
        const batch = Array.from({ length: 50 }, (_, i) =>
          writeItems(store, { tenant: 't', sessionId: `s${(done + i) % 500}` }, ITEMS)
        )
        await Promise.all(batch)
        largest = Math.max(largest, walSize(path))
      }
      assert.ok(largest < 16 * 1024 * 1024, `the -wal file reached ${largest} bytes`)
      assert.equal(await store.get({ tenant: 't', sessionId: 's0' }).then((s) => s?.version), 40)
      assert.deepEqual(warnings, [], 'the checkpoint thread stopped')
    } finally {
      await store.close()
    }
    assert.equal(existsSync(`${path}-wal`), false, 'closing the store removes the WAL')
    const db = new Database(path, { readonly: true })
    try {
      const row = db.prepare('SELECT version FROM sessions WHERE session_id = ?').get('s499') as {
        version: number
      }
      assert.equal(row.version, 40)
    } finally {
      db.close()
    }
  })

  it('Should not hold writes for frames that a reader keeps', async () => {
    const path = join(dir, 'pinned.db')
    const { db, checkpointer } = withThread(path, 5)
    // another connection (a backup, another process) holds a snapshot open: no checkpoint can
    // copy what came after it, and the WAL cannot start over
    const reader = new Database(path, { readonly: true })
    try {
      reader.exec('BEGIN')
      reader.prepare('SELECT count(*) FROM t').get()
      const insert = db.prepare('INSERT OR REPLACE INTO t (k, v) VALUES (?, ?)')
      for (let i = 0; walSize(path) <= HOLD_BYTES; i++) {
        insert.run(i % 500, 'x'.repeat(3000))
        if (i % 50 === 0) checkpointer.committed()
      }
      await eventually(() => checkpointer.stats().checkpoints > 0)
      // holding the writes would only slow them (to a batch per MAX_HOLD_MS): they go
      assert.equal(checkpointer.holdWrites(), false, 'the writes wait for a pinned WAL')
    } finally {
      reader.exec('COMMIT')
      reader.close()
      await checkpointer.close()
      db.close()
    }
  })

  it('Should hand checkpoints back to the store when the thread cannot run', async () => {
    // the thread opens an existing file only: this one is not there
    const { db, checkpointer, stopped } = withThread(
      join(dir, 'fallback.db'),
      5,
      join(dir, 'missing.db'),
      // not the default, so that handing checkpoints back shows
      5
    )
    try {
      assert.ok(await eventually(() => stopped.length > 0), 'the failed thread was not reported')
      assert.match(
        stopped[0].message,
        /cannot open .*missing\.db for checkpoints: .*SQLITE_CANTOPEN/
      )
      assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), DEFAULT_AUTOCHECKPOINT_PAGES)
      checkpointer.committed()
      await checkpointer.close()
    } finally {
      db.close()
    }
  })
})
