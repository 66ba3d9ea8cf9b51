/**
 * @module store/sqlite
 * The embedded default: better-sqlite3 in WAL mode, with group commit. Every mutation is queued;
 * the queue is flushed on `setImmediate` in one `BEGIN IMMEDIATE … COMMIT`, each mutation inside
 * its own SAVEPOINT, so an updater that throws undoes only its own writes. Callers hear back (and
 * the change feed speaks) only after COMMIT: nothing is acknowledged that is not committed. One
 * transaction per event-loop turn instead of one per request is what makes `synchronous=FULL`
 * affordable, and BEGIN IMMEDIATE keeps several processes on one file serialised.
 *
 * No statement uses RETURNING with `.get()`: that commits inside `sqlite3_reset()`, skips the WAL
 * hook, and the WAL is never checkpointed (`reference/perf-baseline.md`).
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { summarize, type HistoryEntry, type Session, type SessionKey } from '../core/session.js'
import { changeEvent, createChangeFeed } from './changes.js'
import { cursorAfter } from './cursor.js'
import {
  assertNextVersion,
  ConflictRetryError,
  type ChangeEvent,
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
  /** Most mutations in one transaction; the rest wait for the next turn. Default 512. */
  maxBatch?: number
}

// Rowid tables: a session row (~1.4 KB of JSON) and a history row (~1 KB) are larger than what
// a WITHOUT ROWID b-tree keeps on its page (about 1 KB of 4 KB), so there every write also
// rewrote overflow pages: 3× the CPU per write and 3× the file (bench/results.md).
const SCHEMA = `
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

const TABLES = ['sessions', 'history', 'idempotency']
const INDEXES = ['sessions_by_update', 'sessions_by_expiry', 'idempotency_by_expiry']

/**
 * Creates the schema, first moving the rows of tables an earlier version made WITHOUT ROWID into
 * rowid tables. One IMMEDIATE transaction: another process opening the file waits, then finds the
 * work done.
 */
function prepareSchema(db: Database.Database) {
  const legacyTables = () =>
    db
      .prepare<[], string>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'history', 'idempotency')
           AND sql LIKE '%WITHOUT ROWID%'`
      )
      .pluck()
      .all()
  if (legacyTables().length === 0) {
    db.exec(SCHEMA)
    return
  }
  db.transaction(() => {
    const legacy = legacyTables()
    for (const index of INDEXES) db.exec(`DROP INDEX IF EXISTS ${index}`)
    for (const table of legacy) db.exec(`ALTER TABLE ${table} RENAME TO ${table}_without_rowid`)
    db.exec(SCHEMA)
    for (const table of TABLES.filter((name) => legacy.includes(name))) {
      db.exec(
        `INSERT INTO ${table} SELECT * FROM ${table}_without_rowid; DROP TABLE ${table}_without_rowid`
      )
    }
  }).immediate()
}

/** Listing filters per state, over the indexed summary columns. */
const STATE_SQL: Record<ListQuery['state'], string> = {
  all: '1',
  ended: 'ended = 1',
  active: 'ended = 0 AND (unfinished > 0 OR total = 0)',
  done: 'ended = 0 AND total > 0 AND unfinished = 0',
  // an observed agent waiting for a person is not stale (no column yet: read from the JSON)
  stale:
    "ended = 0 AND unfinished > 0 AND updated_at < @staleBefore AND json_extract(data, '$.observed.waiting') IS NULL",
}

interface SessionRow {
  version: number
  data: string
  expires_at: number
}

/** A mutation waiting for the next group commit. */
interface QueuedOp {
  /** Runs inside the batch's transaction; throws to undo only itself. */
  run: () => OpResult
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

interface OpResult {
  value: unknown
  /** Emitted after COMMIT. */
  event?: ChangeEvent
}

class StoreClosedError extends Error {
  constructor() {
    super('the SQLite store is closed')
    this.name = 'StoreClosedError'
  }
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
  prepareSchema(db)
  const maxBatch = options.maxBatch ?? 512

  const selectSession = db.prepare<[string, string], SessionRow>(
    'SELECT version, data, expires_at FROM sessions WHERE tenant = ? AND session_id = ?'
  )
  const insertSession = db.prepare<
    [string, string, number, string, number, number, number, number, number]
  >(
    `INSERT INTO sessions (tenant, session_id, version, data, total, unfinished, ended, updated_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
  )
  const updateSession = db.prepare<
    [number, string, number, number, number, number, number, string, string, number]
  >(
    `UPDATE sessions SET version = ?, data = ?, total = ?, unfinished = ?, ended = ?, updated_at = ?,
       expires_at = ?
     WHERE tenant = ? AND session_id = ? AND version = ?`
  )
  const deleteSession = db.prepare('DELETE FROM sessions WHERE tenant = ? AND session_id = ?')
  const deleteHistory = db.prepare('DELETE FROM history WHERE tenant = ? AND session_id = ?')
  const insertHistory = db.prepare(
    'INSERT OR REPLACE INTO history (tenant, session_id, version, at, source, items) VALUES (?, ?, ?, ?, ?, ?)'
  )
  const pruneHistory = db.prepare(
    'DELETE FROM history WHERE tenant = ? AND session_id = ? AND version <= ?'
  )
  const selectExpiry = db
    .prepare<[string, string], number>(
      'SELECT expires_at FROM sessions WHERE tenant = ? AND session_id = ?'
    )
    .pluck()
  const selectHistory = db.prepare<
    [string, string, number],
    { version: number; at: number; source: string; items: string }
  >(
    `SELECT version, at, source, items FROM
       (SELECT * FROM history WHERE tenant = ? AND session_id = ? ORDER BY version DESC LIMIT ?)
     ORDER BY version ASC`
  )
  const countSessions = db.prepare<[string, number], { n: number }>(
    'SELECT COUNT(*) AS n FROM sessions WHERE tenant = ? AND expires_at > ?'
  )
  const listStatements = new Map<string, Database.Statement>()
  /** One prepared statement per combination of filters, made on first use. */
  const listStatement = (query: ListQuery) => {
    const withCursor = query.cursor !== undefined
    const withDialect = query.dialect !== undefined
    const withSince = query.updatedSince !== undefined
    const withSource = query.source !== undefined
    const name = `${query.state}:${withCursor}:${withDialect}:${withSince}:${withSource}`
    let statement = listStatements.get(name)
    if (!statement) {
      const cursorSql = withCursor
        ? 'AND (updated_at < @cursorAt OR (updated_at = @cursorAt AND session_id < @cursorId))'
        : ''
      const dialectSql = withDialect ? "AND json_extract(data, '$.dialect') = @dialect" : ''
      const sinceSql = withSince ? 'AND updated_at >= @updatedSince' : ''
      // no column yet: sessions fed by rounds have no `observed` in their JSON
      const sourceSql = withSource
        ? "AND coalesce(json_extract(data, '$.observed.source'), 'rounds') = @source"
        : ''
      statement = db.prepare(
        `SELECT data FROM sessions WHERE tenant = @tenant AND expires_at > @now AND ${STATE_SQL[query.state]}
         ${cursorSql} ${dialectSql} ${sinceSql} ${sourceSql}
         ORDER BY updated_at DESC, session_id DESC LIMIT @limit`
      )
      listStatements.set(name, statement)
    }
    return statement
  }
  const selectIdempotency = db.prepare<
    [string],
    { fingerprint: string; reply: string | null; expires_at: number }
  >('SELECT fingerprint, reply, expires_at FROM idempotency WHERE scope = ?')
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
  const selectOne = db.prepare('SELECT 1')
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')
  const savepoint = db.prepare('SAVEPOINT op')
  const release = db.prepare('RELEASE op')
  const rollbackTo = db.prepare('ROLLBACK TO op')

  const liveRow = (key: SessionKey): SessionRow | undefined => {
    const row = selectSession.get(key.tenant, key.sessionId)
    return row && row.expires_at > options.now() ? row : undefined
  }

  /** Whether the session is there and unexpired, without reading its data. */
  const isLive = (key: SessionKey): boolean =>
    (selectExpiry.get(key.tenant, key.sessionId) ?? 0) > options.now()

  const removeSession = (key: SessionKey) => {
    deleteHistory.run(key.tenant, key.sessionId)
    return deleteSession.run(key.tenant, key.sessionId).changes > 0
  }

  const write = (
    key: SessionKey,
    existing: SessionRow | undefined,
    session: Session,
    source: string
  ) => {
    const summary = summarize(session)
    const data = JSON.stringify(session)
    const ended = summary.ended ? 1 : 0
    const expiresAt = options.now() + options.ttlMs
    if (existing) {
      const { changes } = updateSession.run(
        session.version,
        data,
        summary.total,
        summary.unfinished,
        ended,
        session.updated_at,
        expiresAt,
        key.tenant,
        key.sessionId,
        existing.version
      )
      // BEGIN IMMEDIATE holds the write lock since the read, so this is a guard, not a race
      if (changes === 0) throw new ConflictRetryError()
    } else {
      insertSession.run(
        key.tenant,
        key.sessionId,
        session.version,
        data,
        summary.total,
        summary.unfinished,
        ended,
        session.updated_at,
        expiresAt
      )
    }
    insertHistory.run(
      key.tenant,
      key.sessionId,
      session.version,
      session.updated_at,
      source,
      JSON.stringify(session.items)
    )
    if (session.version > options.historyLimit) {
      pruneHistory.run(key.tenant, key.sessionId, session.version - options.historyLimit)
    }
  }

  const feed = createChangeFeed()
  let queue: QueuedOp[] = []
  let scheduled = false
  let closed = false

  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(flush)
  }

  /** Runs one batch of queued mutations in one transaction; settles each after COMMIT. */
  function flush() {
    scheduled = false
    if (queue.length === 0) return
    let batch = queue
    if (queue.length > maxBatch) {
      batch = queue.slice(0, maxBatch)
      queue = queue.slice(maxBatch)
      schedule()
    } else {
      queue = []
    }
    if (!db.open) {
      for (const op of batch) op.reject(new StoreClosedError())
      return
    }
    const results: (OpResult | undefined)[] = new Array(batch.length)
    const errors: unknown[] = new Array(batch.length)
    try {
      begin.run()
      for (let i = 0; i < batch.length; i++) {
        savepoint.run()
        try {
          results[i] = batch[i].run()
          release.run()
        } catch (error) {
          errors[i] = error
          // an error that ended the whole transaction (e.g. disk full) fails the batch below
          if (!db.inTransaction) throw error
          rollbackTo.run()
          release.run()
        }
      }
      commit.run()
    } catch (error) {
      if (db.inTransaction) {
        try {
          rollback.run()
        } catch {
          // the transaction is gone either way
        }
      }
      for (let i = 0; i < batch.length; i++) batch[i].reject(errors[i] ?? error)
      return
    }
    for (let i = 0; i < batch.length; i++) {
      const result = results[i]
      if (result?.event) feed.emit(result.event)
    }
    for (let i = 0; i < batch.length; i++) {
      const result = results[i]
      if (result) batch[i].resolve(result.value)
      else batch[i].reject(errors[i])
    }
  }

  /** Queues a mutation for the next group commit. */
  const enqueue = <T>(run: () => OpResult): Promise<T> => {
    if (closed) return Promise.reject(new StoreClosedError())
    return new Promise<T>((resolve, reject) => {
      queue.push({ run, resolve: resolve as (value: unknown) => void, reject })
      schedule()
    })
  }

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
    update<T>(key: SessionKey, fn: Updater<T>): Promise<T> {
      return enqueue<T>(() => {
        let row = selectSession.get(key.tenant, key.sessionId)
        if (row && row.expires_at <= options.now()) {
          removeSession(key)
          row = undefined
        }
        const current = row ? (JSON.parse(row.data) as Session) : null
        const decision = fn(current)
        if (!decision.write) return { value: decision.value }
        const { session, source } = decision.write
        assertNextVersion(current, session)
        write(key, row, session, source)
        return {
          value: decision.value,
          event: changeEvent(key, session.version, source),
        }
      })
    },
    delete(key) {
      return enqueue<boolean>(() => {
        const live = isLive(key)
        removeSession(key)
        return {
          value: live,
          event: live ? changeEvent(key, 0, 'delete') : undefined,
        }
      })
    },
    subscribe: feed.subscribe,
    async countSessions(tenant) {
      return countSessions.get(tenant, options.now())!.n
    },
    async list(tenant, query): Promise<ListPage> {
      const rows = listStatement(query).all({
        tenant,
        now: options.now(),
        staleBefore: query.staleBefore,
        cursorAt: query.cursor?.updatedAt,
        cursorId: query.cursor?.sessionId,
        dialect: query.dialect,
        updatedSince: query.updatedSince,
        source: query.source,
        limit: query.limit + 1,
      }) as { data: string }[]
      const sessions = rows.slice(0, query.limit).map((row) => JSON.parse(row.data) as Session)
      const last = sessions[sessions.length - 1]
      const next = rows.length > query.limit && last ? cursorAfter(last) : null
      return { sessions, next }
    },
    async history(key, limit) {
      if (!isLive(key)) return []
      return selectHistory.all(key.tenant, key.sessionId, limit).map((row): HistoryEntry => ({
        version: row.version,
        at: row.at,
        source: row.source as HistoryEntry['source'],
        items: JSON.parse(row.items),
      }))
    },
    claimIdempotency(scope, fingerprint, ttlMs) {
      return enqueue<IdempotencyClaim>(() => {
        const row = selectIdempotency.get(scope)
        if (row && row.expires_at > options.now()) {
          return {
            value: { claimed: false, record: { fingerprint: row.fingerprint, reply: row.reply } },
          }
        }
        upsertIdempotency.run(scope, fingerprint, null, options.now() + ttlMs)
        return { value: { claimed: true } }
      })
    },
    completeIdempotency(scope, fingerprint, reply, ttlMs) {
      return enqueue<void>(() => {
        upsertIdempotency.run(scope, fingerprint, reply, options.now() + ttlMs)
        return { value: undefined }
      })
    },
    releaseIdempotency(scope) {
      return enqueue<void>(() => {
        deleteIdempotency.run(scope)
        return { value: undefined }
      })
    },
    async ping() {
      selectOne.get()
    },
    async close() {
      if (closed) return
      closed = true
      clearInterval(sweep)
      // what was queued before close is committed (and answered) before the file closes
      while (queue.length > 0) flush()
      if (db.open) db.close()
    },
  }
}
