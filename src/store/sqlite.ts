/**
 * @module store/sqlite
 * The embedded default: better-sqlite3 in WAL mode. Every update is one IMMEDIATE transaction, so
 * several processes on one file serialise their read-modify-writes. No statement uses RETURNING
 * with `.get()`: that commits inside `sqlite3_reset()`, skips the WAL hook, and the WAL is never
 * checkpointed (`reference/perf-baseline.md`).
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { summarize, type ChangeSource, type HistoryEntry, type Session, type SessionKey } from '../core/session.js'
import { createChangeFeed } from './changes.js'
import {
  assertNextVersion,
  ConflictRetryError,
  type IdempotencyClaim,
  type ListPage,
  type ListQuery,
  type SessionStore,
  type StoreOptions,
  type Updater,
} from './types.js'

export interface SqliteOptions extends StoreOptions {
  path: string
  /** `normal` survives a process crash; `full` also survives power loss. */
  synchronous: 'normal' | 'full'
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, data TEXT NOT NULL,
  total INTEGER NOT NULL, unfinished INTEGER NOT NULL, ended INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, session_id)) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (tenant, updated_at DESC, session_id DESC);
CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at);
CREATE TABLE IF NOT EXISTS history (
  tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, at INTEGER NOT NULL,
  source TEXT NOT NULL, items TEXT NOT NULL,
  PRIMARY KEY (tenant, session_id, version)) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, reply TEXT, expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_by_expiry ON idempotency (expires_at);
`

/** Listing filters per state, over the indexed summary columns. */
const STATE_SQL: Record<ListQuery['state'], string> = {
  all: '1',
  ended: 'ended = 1',
  active: 'ended = 0 AND (unfinished > 0 OR total = 0)',
  done: 'ended = 0 AND total > 0 AND unfinished = 0',
  stale: 'ended = 0 AND unfinished > 0 AND updated_at < @staleBefore',
}

interface SessionRow {
  version: number
  data: string
  expires_at: number
}

/**
 * Opens (creating if needed) the SQLite store.
 * @param options - path, durability, TTL and history bound
 */
export function createSqliteStore(options: SqliteOptions): SessionStore {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })
  const db = new Database(options.path, { timeout: 5000 })
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
  db.pragma('journal_size_limit = 67108864')
  db.exec(SCHEMA)

  const selectSession = db.prepare<[string, string], SessionRow>(
    'SELECT version, data, expires_at FROM sessions WHERE tenant = ? AND session_id = ?'
  )
  const insertSession = db.prepare(
    `INSERT INTO sessions (tenant, session_id, version, data, total, unfinished, ended, updated_at, expires_at)
     VALUES (@tenant, @session_id, @version, @data, @total, @unfinished, @ended, @updated_at, @expires_at)`
  )
  const updateSession = db.prepare(
    `UPDATE sessions SET version = @version, data = @data, total = @total, unfinished = @unfinished,
       ended = @ended, updated_at = @updated_at, expires_at = @expires_at
     WHERE tenant = @tenant AND session_id = @session_id AND version = @expected`
  )
  const deleteSession = db.prepare('DELETE FROM sessions WHERE tenant = ? AND session_id = ?')
  const deleteHistory = db.prepare('DELETE FROM history WHERE tenant = ? AND session_id = ?')
  const insertHistory = db.prepare(
    'INSERT OR REPLACE INTO history (tenant, session_id, version, at, source, items) VALUES (?, ?, ?, ?, ?, ?)'
  )
  const pruneHistory = db.prepare(
    'DELETE FROM history WHERE tenant = ? AND session_id = ? AND version <= ?'
  )
  const selectHistory = db.prepare<[string, string, number], { version: number; at: number; source: string; items: string }>(
    `SELECT version, at, source, items FROM
       (SELECT * FROM history WHERE tenant = ? AND session_id = ? ORDER BY version DESC LIMIT ?)
     ORDER BY version ASC`
  )
  const listStatements = new Map<string, Database.Statement>()
  const listStatement = (state: ListQuery['state'], withCursor: boolean) => {
    const name = `${state}:${withCursor}`
    let statement = listStatements.get(name)
    if (!statement) {
      const cursorSql = withCursor
        ? 'AND (updated_at < @cursorAt OR (updated_at = @cursorAt AND session_id < @cursorId))'
        : ''
      statement = db.prepare(
        `SELECT data FROM sessions WHERE tenant = @tenant AND expires_at > @now AND ${STATE_SQL[state]} ${cursorSql}
         ORDER BY updated_at DESC, session_id DESC LIMIT @limit`
      )
      listStatements.set(name, statement)
    }
    return statement
  }
  const selectIdempotency = db.prepare<[string], { fingerprint: string; reply: string | null; expires_at: number }>(
    'SELECT fingerprint, reply, expires_at FROM idempotency WHERE scope = ?'
  )
  const upsertIdempotency = db.prepare(
    `INSERT INTO idempotency (scope, fingerprint, reply, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (scope) DO UPDATE SET fingerprint = excluded.fingerprint, reply = excluded.reply,
       expires_at = excluded.expires_at`
  )
  const deleteIdempotency = db.prepare('DELETE FROM idempotency WHERE scope = ?')
  const expiredSessions = db.prepare<[number], { tenant: string; session_id: string }>(
    'SELECT tenant, session_id FROM sessions WHERE expires_at <= ? LIMIT 500'
  )
  const sweepIdempotency = db.prepare('DELETE FROM idempotency WHERE expires_at <= ?')

  const liveRow = (key: SessionKey): SessionRow | undefined => {
    const row = selectSession.get(key.tenant, key.sessionId)
    return row && row.expires_at > options.now() ? row : undefined
  }

  const removeSession = (key: SessionKey) => {
    deleteHistory.run(key.tenant, key.sessionId)
    return deleteSession.run(key.tenant, key.sessionId).changes > 0
  }

  const write = (key: SessionKey, existing: SessionRow | undefined, session: Session, source: string) => {
    const summary = summarize(session)
    const row = {
      tenant: key.tenant,
      session_id: key.sessionId,
      version: session.version,
      data: JSON.stringify(session),
      total: summary.total,
      unfinished: summary.unfinished,
      ended: summary.ended ? 1 : 0,
      updated_at: session.updated_at,
      expires_at: options.now() + options.ttlMs,
    }
    if (existing) {
      if (updateSession.run({ ...row, expected: existing.version }).changes === 0) throw new ConflictRetryError()
    } else {
      insertSession.run(row)
    }
    insertHistory.run(key.tenant, key.sessionId, session.version, session.updated_at, source, JSON.stringify(session.items))
    if (session.version > options.historyLimit) {
      pruneHistory.run(key.tenant, key.sessionId, session.version - options.historyLimit)
    }
  }

  const feed = createChangeFeed()
  const runUpdate = db.transaction(<T>(key: SessionKey, fn: Updater<T>): T => {
    let row = selectSession.get(key.tenant, key.sessionId)
    if (row && row.expires_at <= options.now()) {
      removeSession(key)
      row = undefined
    }
    const current = row ? (JSON.parse(row.data) as Session) : null
    const decision = fn(current)
    if (decision.write) {
      assertNextVersion(current, decision.write.session)
      write(key, row, decision.write.session, decision.write.source)
    }
    return decision.value
  })

  const runSweep = () => {
    const now = options.now()
    db.transaction(() => {
      for (const expired of expiredSessions.all(now)) {
        removeSession({ tenant: expired.tenant, sessionId: expired.session_id })
      }
      sweepIdempotency.run(now)
    }).immediate()
  }
  const sweep = setInterval(() => {
    try {
      runSweep()
    } catch {
      // a busy database skips one sweep; the next one catches up
    }
  }, 60_000)
  sweep.unref()

  return {
    kind: 'sqlite',
    async get(key) {
      const row = liveRow(key)
      return row ? (JSON.parse(row.data) as Session) : null
    },
    async update<T>(key: SessionKey, fn: Updater<T>): Promise<T> {
      let written: { version: number; source: ChangeSource } | undefined
      const value = runUpdate.immediate(key, (current: Session | null) => {
        const decision = fn(current)
        written = decision.write && { version: decision.write.session.version, source: decision.write.source }
        return decision
      }) as T
      if (written) feed.emit({ tenant: key.tenant, session_id: key.sessionId, ...written })
      return value
    },
    async delete(key) {
      const existed = db.transaction(() => {
        const live = liveRow(key) !== undefined
        removeSession(key)
        return live
      }).immediate()
      if (existed) feed.emit({ tenant: key.tenant, session_id: key.sessionId, version: 0, source: 'delete' })
      return existed
    },
    subscribe: feed.subscribe,
    async list(tenant, query): Promise<ListPage> {
      const rows = listStatement(query.state, query.cursor !== undefined).all({
        tenant,
        now: options.now(),
        staleBefore: query.staleBefore,
        cursorAt: query.cursor?.updatedAt,
        cursorId: query.cursor?.sessionId,
        limit: query.limit + 1,
      }) as { data: string }[]
      const sessions = rows.slice(0, query.limit).map((row) => JSON.parse(row.data) as Session)
      const last = sessions[sessions.length - 1]
      const next =
        rows.length > query.limit && last ? { updatedAt: last.updated_at, sessionId: last.session_id } : null
      return { sessions, next }
    },
    async history(key, limit) {
      if (!liveRow(key)) return []
      return selectHistory.all(key.tenant, key.sessionId, limit).map(
        (row): HistoryEntry => ({
          version: row.version,
          at: row.at,
          source: row.source as HistoryEntry['source'],
          items: JSON.parse(row.items),
        })
      )
    },
    async claimIdempotency(scope, fingerprint, ttlMs): Promise<IdempotencyClaim> {
      return db.transaction((): IdempotencyClaim => {
        const row = selectIdempotency.get(scope)
        if (row && row.expires_at > options.now()) {
          return { claimed: false, record: { fingerprint: row.fingerprint, reply: row.reply } }
        }
        upsertIdempotency.run(scope, fingerprint, null, options.now() + ttlMs)
        return { claimed: true }
      }).immediate()
    },
    async completeIdempotency(scope, fingerprint, reply, ttlMs) {
      upsertIdempotency.run(scope, fingerprint, reply, options.now() + ttlMs)
    },
    async releaseIdempotency(scope) {
      deleteIdempotency.run(scope)
    },
    async ping() {
      db.prepare('SELECT 1').get()
    },
    async close() {
      clearInterval(sweep)
      if (db.open) db.close()
    },
  }
}
