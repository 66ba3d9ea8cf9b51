/**
 * SQLite storage faults are StoreUnavailableError (503), never a bare SQLite error (500): a full
 * database rolls the group commit back cleanly and the connection writes again once there is
 * room; a corrupt file fails reads and writes as unavailable. The real full disk, read-only
 * volume and corrupt file against the server process are in test/hostile/06-sqlite-*.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { newSession, type Session, type SessionKey } from '../../src/core/session.js'
import { createSqliteStore } from '../../src/store/sqlite.js'
import { openTestSqlite, schemaPages } from '../sqlite-support.js'
import { isStoreFault } from '../../src/store/sqlite/faults.js'
import { createGroupCommit } from '../../src/store/sqlite/group-commit.js'
import { StoreUnavailableError, type SessionStore } from '../../src/store/types.js'

const bump = (store: SessionStore, key: SessionKey) =>
  store.update(key, (current, { versionFloor }) => {
    const base = current ?? newSession(key, 's03', {}, 1_000, versionFloor)
    const next: Session = { ...base, version: base.version + 1, updated_at: 1_000 }
    return { value: next, write: { session: next, source: 'round' as const } }
  })

const unavailable = (writeOnly: boolean) => (error: unknown) => {
  assert.ok(error instanceof StoreUnavailableError, String(error))
  assert.equal(error.writeOnly, writeOnly)
  return true
}

describe('SQLite storage faults', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-faults-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('Should count full, read-only, corrupt, I/O and open errors as faults, and nothing else', () => {
    const sqlite = (code: string) => new Database.SqliteError('x', code)
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_READONLY',
      'SQLITE_READONLY_DBMOVED',
      'SQLITE_CORRUPT',
      'SQLITE_CORRUPT_INDEX',
      'SQLITE_NOTADB',
      'SQLITE_IOERR',
      'SQLITE_IOERR_WRITE',
      'SQLITE_IOERR_FSYNC',
      'SQLITE_CANTOPEN',
      'SQLITE_BUSY',
    ]) {
      assert.ok(isStoreFault(sqlite(code)), code)
    }
    for (const error of [
      sqlite('SQLITE_CONSTRAINT_TRIGGER'),
      sqlite('SQLITE_CONSTRAINT_PRIMARYKEY'),
      sqlite('SQLITE_ERROR'),
      sqlite('SQLITE_MISMATCH'),
      new Error('SQLITE_FULL'),
    ]) {
      assert.equal(isStoreFault(error), false, String((error as { code?: string }).code))
    }
  })

  it('Should roll a batch that hits a full database back cleanly and write again once there is room', async () => {
    // a page limit on this connection stands in for the disk (the real disk: hostile 06)
    const db = new Database(join(dir, 'full.db'))
    db.pragma('journal_mode = WAL')
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, blob TEXT NOT NULL) STRICT')
    const insert = db.prepare('INSERT INTO t (blob) VALUES (?)')
    const count = db.prepare('SELECT COUNT(*) FROM t').pluck()
    const commits = createGroupCommit(db, { maxBatch: 512, emit: () => {} })
    const put = () =>
      commits.enqueue<number>(() => ({
        value: Number(insert.run('x'.repeat(3000)).lastInsertRowid),
      }))
    try {
      const pages = db.pragma('page_count', { simple: true }) as number
      db.pragma(`max_page_count = ${pages + 20}`)
      const acknowledged: number[] = []
      let failure: unknown
      for (let i = 0; i < 100 && failure === undefined; i++) {
        const results = await Promise.allSettled([put(), put(), put()])
        for (const r of results) {
          if (r.status === 'fulfilled') acknowledged.push(r.value)
          else failure ??= r.reason
        }
      }
      assert.ok(failure !== undefined, 'the page limit was reached')
      assert.ok(unavailable(true)(failure))
      assert.equal(((failure as Error).cause as { code: string }).code, 'SQLITE_FULL')
      assert.equal(db.inTransaction, false, 'nothing left open')
      assert.equal(count.get(), acknowledged.length, 'every acknowledged row is there, no other')
      // no room at all now: a row of 3000 bytes needs a page of its own
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`)
      await assert.rejects(put(), unavailable(true))
      assert.equal(db.inTransaction, false)
      db.pragma('max_page_count = 1073741823')
      const later = await Promise.all([put(), put()])
      assert.equal(later.length, 2)
      assert.equal(count.get(), acknowledged.length + 2)
    } finally {
      commits.close()
      db.close()
    }
  })

  it('Should answer a corrupt file with StoreUnavailableError on reads, writes and the write probe', async () => {
    const path = join(dir, 'corrupt.db')
    const key = { tenant: 't', sessionId: 's0' }
    let store = openTestSqlite(path)
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => bump(store, { tenant: 't', sessionId: `s${i}` }))
    )
    await store.close()
    // every page but the schema's (the first, with the header, and any the schema grew into):
    // the tables' b-trees are gone
    const pageSize = 4096
    const kept = new Set(schemaPages(path).map((page) => (page - 1) * pageSize))
    const fd = openSync(path, 'r+')
    const size = statSync(path).size
    for (let at = pageSize; at < size; at += pageSize)
      if (!kept.has(at)) writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, at)
    closeSync(fd)
    const warnings: string[] = []
    // it opens as it is, though the history's layout cannot be read
    store = openTestSqlite(path, { logger: { info() {}, warn: (_obj, msg) => warnings.push(msg) } })
    try {
      assert.deepEqual(warnings, ['the SQLite history could not be laid out for HISTORY_LIMIT'])
      await assert.rejects(store.get(key), unavailable(false))
      await assert.rejects(
        store.list('t', { state: 'all', staleBefore: 0, limit: 10 }),
        unavailable(false)
      )
      await assert.rejects(store.history(key, 10), unavailable(false))
      await assert.rejects(store.countSessions('t'), unavailable(false))
      await assert.rejects(bump(store, key), unavailable(true))
      await assert.rejects(store.delete(key), unavailable(true))
      await assert.rejects(store.checkWritable(), unavailable(true))
    } finally {
      await store.close()
    }
  })

  it('Should name the path when the file is not a database at all', () => {
    const path = join(dir, 'garbage.db')
    const fd = openSync(path, 'w')
    writeSync(fd, Buffer.from('this is not a database, it is a text file\n'.repeat(200)))
    closeSync(fd)
    assert.throws(
      () =>
        createSqliteStore({
          path,
          synchronous: 'normal',
          ttlMs: 1,
          historyLimit: 5,
          now: Date.now,
        }),
      (error: Error) =>
        error.message.startsWith(`cannot open the SQLite store at ${path} (SQLITE_PATH)`) &&
        /SQLITE_NOTADB/.test(error.message)
    )
  })
})
