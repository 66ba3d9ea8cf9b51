/**
 * The SQLite schema: rowid tables, and files made by earlier versions (WITHOUT ROWID tables)
 * migrated in place with their rows.
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

const NOW = Date.parse('2026-11-30T12:00:00Z')
const open = (path: string) =>
  createSqliteStore({
    path,
    synchronous: 'normal',
    ttlMs: 3_600_000,
    historyLimit: 50,
    now: () => NOW,
  })

const tableSql = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return db
      .prepare<[], { name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
      )
      .all()
  } finally {
    db.close()
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
      ['history', 'idempotency', 'sessions']
    )
    for (const table of tables) assert.doesNotMatch(table.sql, /WITHOUT ROWID/, table.name)
  })

  it('Should migrate a file made WITHOUT ROWID, keeping sessions, history and idempotency records', async () => {
    const path = join(dir, 'legacy.db')
    const key = { tenant: 't', sessionId: 'kept' }
    const items = [makeItem({ id: '1', content: 'Write the migration', status: 'in_progress' })]
    const session: Session = {
      ...newSession(key, 's03', {}, NOW),
      items,
      version: 2,
      updated_at: NOW,
    }
    const legacy = new Database(path)
    legacy.pragma('journal_mode = WAL')
    legacy.exec(LEGACY_SCHEMA)
    legacy
      .prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run('t', 'kept', 2, JSON.stringify(session), 1, 1, 0, NOW, NOW + 3_600_000)
    const history = legacy.prepare('INSERT INTO history VALUES (?, ?, ?, ?, ?, ?)')
    history.run('t', 'kept', 1, NOW - 1, 'round', '[]')
    history.run('t', 'kept', 2, NOW, 'put', JSON.stringify(items))
    legacy
      .prepare('INSERT INTO idempotency VALUES (?, ?, ?, ?)')
      .run('scope-1', 'fp', '{"ok":true}', NOW + 60_000)
    legacy.close()

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
    } finally {
      await store.close()
    }
    const tables = tableSql(path)
    assert.deepEqual(
      tables.map((t) => t.name),
      ['history', 'idempotency', 'sessions']
    )
    for (const table of tables) assert.doesNotMatch(table.sql, /WITHOUT ROWID/, table.name)
    // a second open finds nothing left to migrate
    await open(path).close()
  })
})
