/**
 * SQLite stores for the store-level tests: one set of options, one write, the `-wal` file's size.
 */
import { existsSync, statSync } from 'node:fs'
import type { Item } from '../src/core/items.js'
import { newSession, type Session, type SessionKey } from '../src/core/session.js'
import { createSqliteStore, type SqliteOptions } from '../src/store/sqlite.js'
import type { SessionStore } from '../src/store/types.js'
import Database from 'better-sqlite3'

/**
 * A SQLite store at `path` as the store tests use it: `synchronous=normal`, a one-hour TTL, five
 * versions of history, and a clock that stands still.
 * @param path - the database file
 * @param options - what differs from those
 */
export function openTestSqlite(path: string, options: Partial<SqliteOptions> = {}): SessionStore {
  return createSqliteStore({
    path,
    synchronous: 'normal',
    ttlMs: 3_600_000,
    historyLimit: 5,
    now: () => 1_000,
    ...options,
  })
}

/**
 * One update that writes `items` as the session's next version (creating it on first use).
 * @returns the version written
 */
export function writeItems(store: SessionStore, key: SessionKey, items: Item[]): Promise<number> {
  return store.update(key, (current) => {
    const base = current ?? newSession(key, 's03', {}, 1_000)
    const next: Session = { ...base, items, version: base.version + 1, updated_at: 1_000 }
    return { value: next.version, write: { session: next, source: 'round' as const } }
  })
}

/** The size of a database's `-wal` file, 0 when there is none. */
export function walSize(path: string): number {
  const wal = `${path}-wal`
  return existsSync(wal) ? statSync(wal).size : 0
}

/** The pages of a closed file's schema b-tree (SQLite's `dbstat`), 1 first. */
export function schemaPages(path: string): number[] {
  const db = new Database(path, { readonly: true })
  try {
    return db
      .prepare<[], { pageno: number }>(
        "SELECT pageno FROM dbstat WHERE name = 'sqlite_schema' ORDER BY pageno"
      )
      .all()
      .map((row) => row.pageno)
  } finally {
    db.close()
  }
}
