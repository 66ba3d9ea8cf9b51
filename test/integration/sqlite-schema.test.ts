/**
 * The SQLite schema: numbered migrations over `PRAGMA user_version`, each step in its own
 * transaction; files made by earlier versions (WITHOUT ROWID tables up to 0.1.0, unversioned rowid
 * tables after it) migrated in place with their rows.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { makeItem } from '../../src/core/items.js'
import { newSession, type Session } from '../../src/core/session.js'
import { createSqliteStore } from '../../src/store/sqlite.js'
import {
  EXPIRY_BUCKET_MS,
  migrate,
  MIGRATIONS,
  SCHEMA_VERSION,
} from '../../src/store/sqlite/migrations.js'
import { HISTORY_PAGE_SQL, prepareStatements } from '../../src/store/sqlite/statements.js'
import { briefOf } from '../../src/store/brief.js'
import { openTestSqlite, writeItems } from '../sqlite-support.js'

// the schema as versions up to 0.1.0 created it
const LEGACY_SCHEMA = `
CREATE TABLE sessions (
  tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, data TEXT NOT NULL,
  total INTEGER NOT NULL, unfinished INTEGER NOT NULL, ended INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, session_id)) STRICT, WITHOUT ROWID;
CREATE INDEX sessions_by_update ON sessions (tenant, updated_at DESC, session_id DESC);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
CREATE TABLE history (
  tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, at INTEGER NOT NULL,
  source TEXT NOT NULL, items TEXT NOT NULL,
  PRIMARY KEY (tenant, session_id, version)) STRICT, WITHOUT ROWID;
CREATE TABLE idempotency (
  scope TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, reply TEXT, expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX idempotency_by_expiry ON idempotency (expires_at);
`

// the schema as the store created it before migrations were numbered (git show
// 5bddad5:src/store/sqlite.ts): rowid tables, user_version 0
const UNVERSIONED_SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, data TEXT NOT NULL,
  total INTEGER NOT NULL, unfinished INTEGER NOT NULL, ended INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, session_id)) STRICT;
CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (tenant, updated_at DESC, session_id DESC);
CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at);
CREATE TABLE IF NOT EXISTS history (
  tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, at INTEGER NOT NULL,
  source TEXT NOT NULL, items TEXT NOT NULL,
  PRIMARY KEY (tenant, session_id, version)) STRICT;
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, reply TEXT, expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS idempotency_by_expiry ON idempotency (expires_at);
`

const TABLES = [
  'alert_deliveries',
  'alert_marks',
  'alert_outbox',
  'history',
  'idempotency',
  'people',
  'sessions',
  'store_settings',
  'tombstones',
  'webhooks',
  'write_probe',
]

const NOW = Date.parse('2026-11-30T12:00:00Z')
/** What the store passes its migrations: the history limit of `open()`. */
const CONTEXT = { historyLimit: 50 }
const open = (path: string) =>
  createSqliteStore({
    path,
    synchronous: 'normal',
    ttlMs: 3_600_000,
    historyLimit: 50,
    now: () => NOW,
  })

const inspect = <T>(path: string, read: (db: Database.Database) => T): T => {
  const db = new Database(path, { readonly: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

const tableSql = (path: string) =>
  inspect(path, (db) =>
    db
      .prepare<[], { name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
      )
      .all()
  )

/** Every table and index, its SQL with whitespace runs collapsed. */
const schemaOf = (path: string) =>
  inspect(path, (db) =>
    db
      .prepare<[], { type: string; name: string; sql: string | null }>(
        'SELECT type, name, sql FROM sqlite_master ORDER BY type, name'
      )
      .all()
      .map((o) => ({ ...o, sql: o.sql?.replace(/\s+/g, ' ').replace(/\( /g, '(') ?? null }))
  )

/** Each session row's expiry and its bucket, by session id. */
const expiries = (path: string) =>
  inspect(path, (db) =>
    db
      .prepare<[], { session_id: string; expires_at: number; expiry_bucket: number }>(
        'SELECT session_id, expires_at, expiry_bucket FROM sessions ORDER BY session_id'
      )
      .all()
  )

const userVersion = (path: string) =>
  inspect(path, (db) => db.pragma('user_version', { simple: true }) as number)

/** A session of two versions, as the earlier stores wrote it, with two history rows. */
function writeOldRows(db: Database.Database) {
  const key = { tenant: 't', sessionId: 'kept' }
  const items = [makeItem({ id: '1', content: 'Write the migration', status: 'in_progress' })]
  const session: Session = {
    ...newSession(key, 's03', {}, NOW),
    items,
    version: 2,
    updated_at: NOW,
  }
  db.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    't',
    'kept',
    2,
    JSON.stringify(session),
    1,
    1,
    0,
    NOW,
    NOW + 3_600_000
  )
  const history = db.prepare('INSERT INTO history VALUES (?, ?, ?, ?, ?, ?)')
  history.run('t', 'kept', 1, NOW - 1, 'round', '[]')
  history.run('t', 'kept', 2, NOW, 'put', JSON.stringify(items))
  db.prepare('INSERT INTO idempotency VALUES (?, ?, ?, ?)').run(
    'scope-1',
    'fp',
    '{"ok":true}',
    NOW + 60_000
  )
  return { key, session }
}

function makeOldFile(path: string, schema: string) {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.exec(schema)
  const written = writeOldRows(db)
  db.close()
  return written
}

/** What a migrated file must still serve, and how it goes on. */
async function assertKept(
  path: string,
  key: { tenant: string; sessionId: string },
  session: Session
) {
  const store = open(path)
  try {
    assert.deepEqual(await store.get(key), session)
    assert.deepEqual(
      (await store.history(key, 10)).map((e) => [e.version, e.source, e.items.length]),
      [
        [1, 'round', 0],
        [2, 'put', 1],
      ]
    )
    assert.deepEqual(await store.claimIdempotency('scope-1', 'fp', 60_000), {
      claimed: false,
      record: { fingerprint: 'fp', reply: '{"ok":true}' },
    })
    assert.deepEqual(
      (await store.list('t', { state: 'active', staleBefore: 0, limit: 10 })).sessions.map(
        (s) => s.session_id
      ),
      ['kept']
    )
    const next = await store.update(key, (current) => {
      const written = { ...current!, version: current!.version + 1 }
      return { value: written, write: { session: written, source: 'round' as const } }
    })
    assert.equal(next.version, 3)
    // what the new steps added works on the old rows
    assert.equal(await store.delete(key), true)
    const again = await store.update(key, (current, { versionFloor }) => {
      const written = {
        ...newSession(key, 's03', {}, NOW, versionFloor),
        version: versionFloor + 1,
      }
      return { value: written, write: { session: written, source: 'round' as const } }
    })
    assert.equal(again.version, 4, 'the tombstone keeps the old version')
  } finally {
    await store.close()
  }
}

describe('SQLite schema', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-schema-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('Should create rowid tables, since rows of about 1 KB overflow a WITHOUT ROWID page', async () => {
    const path = join(dir, 'fresh.db')
    await open(path).close()
    const tables = tableSql(path)
    assert.deepEqual(
      tables.map((t) => t.name),
      TABLES
    )
    for (const table of tables) assert.doesNotMatch(table.sql, /WITHOUT ROWID/, table.name)
    assert.equal(userVersion(path), SCHEMA_VERSION)
    assert.equal(SCHEMA_VERSION, MIGRATIONS.length, 'steps are numbered 1, 2, 3, …')
    MIGRATIONS.forEach((m, i) => assert.equal(m.version, i + 1, m.name))
  })

  it('Should migrate a file made WITHOUT ROWID, keeping sessions, history and idempotency records', async () => {
    const path = join(dir, 'legacy.db')
    const { key, session } = makeOldFile(path, LEGACY_SCHEMA)
    await assertKept(path, key, session)
    const tables = tableSql(path)
    assert.deepEqual(
      tables.map((t) => t.name),
      TABLES
    )
    for (const table of tables) assert.doesNotMatch(table.sql, /WITHOUT ROWID/, table.name)
    // a second open finds nothing left to migrate
    await open(path).close()
    assert.equal(userVersion(path), SCHEMA_VERSION)
  })

  it('Should give every session of a migrated file its brief, and list from it', async () => {
    const path = join(dir, 'briefs.db')
    const { key, session } = makeOldFile(path, LEGACY_SCHEMA)
    await open(path).close()
    const rows = inspect(path, (db) =>
      db.prepare<[], { brief: string; writes: number }>('SELECT brief, writes FROM sessions').all()
    )
    assert.deepEqual(
      rows.map((row) => ({ brief: JSON.parse(row.brief) as unknown, writes: row.writes })),
      [{ brief: briefOf(session), writes: 0 }]
    )
    const store = open(path)
    try {
      assert.deepEqual(await store.brief(key), briefOf(session))
      const plan = inspect(path, (db) =>
        db
          .prepare<[object], { detail: string }>(
            `EXPLAIN QUERY PLAN ${prepareStatements(db).list({ state: 'active', staleBefore: 0, limit: 10 }).page.source}`
          )
          .all({ tenant: 't', now: NOW, staleBefore: 0, visit: 2000, want: 11 })
          .map((row) => row.detail)
      )
      // the listing walks its index in order (no sort), and reads each listed row's brief
      assert.ok(
        plan.some((d) => /SEARCH sessions USING INDEX sessions_by_update/.test(d)),
        plan.join('\n')
      )
      assert.ok(!plan.some((d) => /TEMP B-TREE/.test(d)), plan.join('\n'))
    } finally {
      await store.close()
    }
  })

  it('Should keep the brief out of the listing index, and before the data in the row', async () => {
    // an index entry ordered by updated_at moves on every write: with the brief in it, every
    // write moved ~600 bytes of index and the CPU of a write doubled (migration 10); in the row,
    // before `data`, a listing reads it without a large session's overflow pages
    const path = join(dir, 'brief-layout.db')
    await open(path).close()
    const { indexColumns, rowColumns } = inspect(path, (db) => ({
      indexColumns: db
        .prepare<[], string>("SELECT name FROM pragma_index_info('sessions_by_update')")
        .pluck()
        .all(),
      rowColumns: db
        .prepare<[], string>("SELECT name FROM pragma_table_info('sessions')")
        .pluck()
        .all(),
    }))
    assert.deepEqual(indexColumns, [
      'tenant',
      'updated_at',
      'session_id',
      'expires_at',
      'ended',
      'unfinished',
      'total',
    ])
    assert.equal(rowColumns.at(-1), 'data')
    assert.equal(rowColumns.at(-2), 'brief')
  })

  it('Should migrate a file the store made before migrations were numbered, without loss', async () => {
    const path = join(dir, 'unversioned.db')
    const { key, session } = makeOldFile(path, UNVERSIONED_SCHEMA)
    assert.equal(userVersion(path), 0)
    await open(path).close()
    assert.deepEqual(
      inspect(path, (db) =>
        db.prepare('SELECT session_id, slot, version FROM history ORDER BY version').raw().all()
      ),
      [
        ['kept', 1, 1],
        ['kept', 2, 2],
      ],
      'each version in its slot of the ring'
    )
    assert.deepEqual(expiries(path), [
      {
        session_id: 'kept',
        expires_at: NOW + 3_600_000,
        expiry_bucket: Math.floor((NOW + 3_600_000) / EXPIRY_BUCKET_MS),
      },
    ])
    await assertKept(path, key, session)
    assert.equal(userVersion(path), SCHEMA_VERSION)
  })

  it('Should give a migrated file exactly the schema of a fresh one', async () => {
    const fresh = join(dir, 'same-fresh.db')
    await open(fresh).close()
    for (const [name, schema] of [
      ['without-rowid', LEGACY_SCHEMA],
      ['unversioned', UNVERSIONED_SCHEMA],
    ]) {
      const path = join(dir, `same-${name}.db`)
      makeOldFile(path, schema)
      await open(path).close()
      assert.deepEqual(schemaOf(path), schemaOf(fresh), name)
    }
  })

  it('Should run each step in its own transaction: a failing step leaves the file as the step before left it', () => {
    const path = join(dir, 'failing-step.db')
    const db = new Database(path)
    try {
      const failing = {
        version: SCHEMA_VERSION + 1,
        name: 'a step that fails half-way',
        up(d: Database.Database) {
          d.exec('CREATE TABLE half_done (x INTEGER) STRICT')
          d.exec("INSERT INTO tombstones VALUES ('t', 's', 3, 4)")
          throw new Error('step failed')
        },
      }
      assert.throws(() => migrate(db, CONTEXT, [...MIGRATIONS, failing]), /step failed/)
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION)
      assert.equal(
        db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half_done'").pluck().get(),
        0
      )
      assert.equal(db.prepare('SELECT COUNT(*) FROM tombstones').pluck().get(), 0)
      assert.equal(db.inTransaction, false)
      // the steps before it went through: running the list again starts at the failed one
      assert.deepEqual(migrate(db, CONTEXT), [])
    } finally {
      db.close()
    }
  })

  it('Should refuse a file from a newer version, naming the path', () => {
    const path = join(dir, 'newer.db')
    const db = new Database(path)
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`)
    db.close()
    assert.throws(
      () => open(path),
      (error: Error) =>
        error.message.includes(path) &&
        error.message.includes('SQLITE_PATH') &&
        /newer than this release knows/.test(error.message)
    )
  })

  it('Should only read a file that is up to date, so a read-only file opens', async () => {
    const path = join(dir, 'read-only.db')
    await open(path).close()
    const db = new Database(path, { readonly: true })
    try {
      assert.deepEqual(migrate(db, CONTEXT), [])
    } finally {
      db.close()
    }
  })

  it("Should page history among the session's slots, by the primary key's prefix", async () => {
    const path = join(dir, 'plan.db')
    await open(path).close()
    const plan = inspect(path, (db) =>
      db
        .prepare<[object], { detail: string }>(`EXPLAIN QUERY PLAN ${HISTORY_PAGE_SQL}`)
        .all({ tenant: 't', sessionId: 's', beforeVersion: 10, floor: 0, limit: 5 })
        .map((row) => row.detail)
    )
    assert.ok(
      plan.some((d) => /SEARCH history USING INDEX .*\(tenant=\? AND session_id=\?\)/.test(d)),
      plan.join('\n')
    )
    assert.ok(!plan.some((d) => /SCAN history/.test(d)), plan.join('\n'))
  })

  it('Should keep HISTORY_LIMIT rows of a session, each write rewriting the slot of the oldest', async () => {
    const path = join(dir, 'ring.db')
    const store = openTestSqlite(path, { historyLimit: 5 })
    const key = { tenant: 't', sessionId: 'ring' }
    try {
      for (let n = 1; n <= 12; n++) {
        await writeItems(store, key, [
          makeItem({ id: '1', content: `Step ${n}`, status: 'in_progress' }),
        ])
      }
      assert.deepEqual(
        (await store.history(key, 10)).map((e) => [e.version, e.items[0].content]),
        [8, 9, 10, 11, 12].map((v) => [v, `Step ${v}`])
      )
      assert.deepEqual(
        (await store.history(key, 2, 11)).map((e) => e.version),
        [9, 10],
        'a page below a version'
      )
    } finally {
      await store.close()
    }
    assert.deepEqual(
      inspect(path, (db) =>
        db.prepare('SELECT slot, version FROM history ORDER BY slot').raw().all()
      ),
      [
        [0, 10],
        [1, 11],
        [2, 12],
        [3, 8],
        [4, 9],
      ]
    )
  })

  it('Should keep the newest versions when HISTORY_LIMIT changes, and fill a raised limit', async () => {
    const path = join(dir, 'ring-limits.db')
    const key = { tenant: 't', sessionId: 'ring' }
    const versions = async (historyLimit: number, writes: number) => {
      const store = openTestSqlite(path, { historyLimit })
      try {
        for (let n = 0; n < writes; n++) await writeItems(store, key, [])
        return (await store.history(key, 50)).map((e) => e.version)
      } finally {
        await store.close()
      }
    }
    assert.deepEqual(await versions(5, 12), [8, 9, 10, 11, 12])
    const rows = () =>
      inspect(path, (db) => db.prepare('SELECT COUNT(*) FROM history').pluck().get())
    // opened with another limit, the file's ring is laid out again with the newest versions
    assert.deepEqual(await versions(3, 0), [10, 11, 12])
    assert.equal(rows(), 3)
    assert.deepEqual(await versions(3, 1), [11, 12, 13])
    assert.deepEqual(await versions(8, 0), [11, 12, 13])
    assert.deepEqual(await versions(8, 8), [14, 15, 16, 17, 18, 19, 20, 21])
  })

  it('Should write the ring that the last store to open laid out, whatever its own limit', async () => {
    const path = join(dir, 'ring-two-stores.db')
    const key = { tenant: 't', sessionId: 'shared' }
    const first = openTestSqlite(path, { historyLimit: 3 })
    try {
      for (let n = 0; n < 6; n++) await writeItems(first, key, [])
      const second = openTestSqlite(path, { historyLimit: 5 })
      try {
        // the first store still runs with its 3, on a ring of 5 now: slots of 3 would have
        // overwritten versions 5, 6 and 7
        for (let n = 0; n < 4; n++) await writeItems(first, key, [])
        assert.deepEqual(
          (await second.history(key, 50)).map((e) => e.version),
          [6, 7, 8, 9, 10]
        )
      } finally {
        await second.close()
      }
    } finally {
      await first.close()
    }
  })

  it("Should keep each session's expiry bucket that of its expiry, moving it only when the expiry leaves it", async () => {
    const path = join(dir, 'buckets.db')
    // a clock 10 s before a bucket's end, with a TTL of whole buckets
    let clock = 1_000 * EXPIRY_BUCKET_MS - 10_000
    const ttlMs = 60 * EXPIRY_BUCKET_MS
    const store = openTestSqlite(path, { ttlMs, now: () => clock })
    const key = { tenant: 't', sessionId: 's' }
    const bucketOf = (at: number) => Math.floor((at + ttlMs) / EXPIRY_BUCKET_MS)
    // every UPDATE that sets the column, changed or not (what moves its index entry)
    const counter = new Database(path)
    counter.exec(`
      CREATE TABLE bucket_sets (at INTEGER NOT NULL);
      CREATE TRIGGER count_bucket_sets AFTER UPDATE OF expiry_bucket ON sessions
        BEGIN INSERT INTO bucket_sets VALUES (NEW.expires_at); END;`)
    counter.close()
    try {
      for (const step of [0, 1_000, 8_000, 2_000, EXPIRY_BUCKET_MS]) {
        clock += step
        await writeItems(store, key, [])
        assert.deepEqual(
          expiries(path),
          [{ session_id: 's', expires_at: clock + ttlMs, expiry_bucket: bucketOf(clock) }],
          `after ${step} ms`
        )
      }
    } finally {
      await store.close()
    }
    // the first write inserts; of the four updates, the two that left the bucket set it
    assert.deepEqual(
      inspect(path, (db) => db.prepare('SELECT at FROM bucket_sets ORDER BY at').pluck().all()),
      [
        1_000 * EXPIRY_BUCKET_MS + 1_000 + ttlMs,
        1_000 * EXPIRY_BUCKET_MS + 1_000 + EXPIRY_BUCKET_MS + ttlMs,
      ]
    )
  })

  it('Should sweep the sessions whose expiry has passed, with their history, by the bucket index', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] })
    const path = join(dir, 'sweep.db')
    const ttlMs = 3_600_000
    // in the middle of a bucket
    const start = 2_000 * EXPIRY_BUCKET_MS + 30_000
    let clock = start
    const store = openTestSqlite(path, { ttlMs, now: () => clock, checkpointThread: false })
    try {
      // written so that at `sweepAt` they expired a bucket ago, a second ago, or expire in a
      // second or an hour: the last two are in now's bucket or after it
      const sweepAt = start + ttlMs + 10_000
      const writes: [string, number][] = [
        ['bucket-ago', sweepAt - ttlMs - EXPIRY_BUCKET_MS],
        ['second-ago', sweepAt - ttlMs - 1_000],
        ['in-a-second', sweepAt - ttlMs + 1_000],
        ['in-an-hour', sweepAt],
      ]
      for (const [sessionId, at] of writes.sort((a, b) => a[1] - b[1])) {
        clock = at
        await writeItems(store, { tenant: 't', sessionId }, [])
        await writeItems(store, { tenant: 't', sessionId }, [])
      }
      clock = sweepAt
      t.mock.timers.tick(60_000)
      assert.deepEqual(
        expiries(path).map((row) => row.session_id),
        ['in-a-second', 'in-an-hour']
      )
      assert.deepEqual(
        inspect(path, (db) =>
          db.prepare('SELECT DISTINCT session_id FROM history ORDER BY 1').pluck().all()
        ),
        ['in-a-second', 'in-an-hour']
      )
      const plan = inspect(path, (db) =>
        db
          .prepare<[object], { detail: string }>(
            `EXPLAIN QUERY PLAN ${prepareStatements(db).expiredSessions.source}`
          )
          .all({ now: sweepAt, bucket: 0 })
          .map((row) => row.detail)
      )
      assert.ok(
        plan.some((d) => /SEARCH sessions USING INDEX sessions_by_expiry_bucket/.test(d)),
        plan.join('\n')
      )
    } finally {
      await store.close()
    }
  })
})
