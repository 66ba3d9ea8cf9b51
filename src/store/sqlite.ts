/**
 * @module store/sqlite
 * The embedded default: better-sqlite3 in WAL mode, with group commit (`sqlite/group-commit.ts`).
 * The schema comes from numbered migrations (`sqlite/migrations.ts`), the statements from
 * `sqlite/statements.ts`. Storage faults (disk full, read-only, corrupt file, I/O errors) are
 * StoreUnavailableError, never a bare SQLite error.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { stateColumns, type HistoryEntry, type Session, type SessionKey } from '../core/session.js'
import { changeEvent, createChangeFeed } from './changes.js'
import { cursorAfter } from './cursor.js'
import { briefOf, parseBrief } from './brief.js'
import {
  assertNextVersion,
  ConflictRetryError,
  IdempotencyClaimLostError,
  QuotaExceededError,
  type IdempotencyClaim,
  type ListPage,
  type SessionStore,
  type StoreLogger,
  type StoreOptions,
  type HistoryText,
  type ListCursor,
  type ListQuery,
  type UpdateDecision,
  type UpdateOptions,
  type Updater,
  historyBytes,
} from './types.js'
import { asStoreError } from './sqlite/faults.js'
import {
  DEFAULT_AUTOCHECKPOINT_PAGES,
  STORE_JOURNAL_SIZE_LIMIT,
  startCheckpointer,
  type Checkpointer,
} from './sqlite/checkpointer.js'
import { createGroupCommit, type OpResult } from './sqlite/group-commit.js'
import { fitHistoryLimit, migrate } from './sqlite/migrations.js'
import { createSqliteAlerts } from './sqlite/alerts.js'
import { createSqlitePeople } from './sqlite/people.js'
import { alertTransitions, type Transition } from '../core/transitions.js'
import {
  expiryBucket,
  listFilterParams,
  prepareStatements,
  type SessionParams,
  type SessionRow,
  type Statements,
} from './sqlite/statements.js'

export interface SqliteOptions extends StoreOptions {
  path: string
  /** `normal` survives a process crash; `full` also survives power loss. */
  synchronous: 'normal' | 'full'
  /** Most mutations in one transaction; the rest wait for the next turn. Default 512. */
  maxBatch?: number
  /**
   * About the most bytes one transaction writes (its first write always goes); the rest wait for
   * the next turn. Default `DEFAULT_BATCH_BYTES`.
   */
  maxBatchBytes?: number
  /** Where the store says which migration steps it ran, and that its checkpoint thread stopped. */
  logger?: StoreLogger
  /**
   * WAL checkpoints in a worker thread (`sqlite/checkpointer.ts`) instead of inside a COMMIT on
   * the event loop. Default true; a `:memory:` database has no WAL and never starts one.
   */
  checkpointThread?: boolean
}

/**
 * What one group commit writes at most, about: one of the largest sessions (MAX_SESSION_BYTES
 * by default, and its history row), so that the loop is held for one such write at a time.
 */
export const DEFAULT_BATCH_BYTES = 2 * 1024 * 1024

/** How long the checkpoint thread lets WAL frames gather after a commit. */
const CHECKPOINT_INTERVAL_MS = 20

/**
 * Opens the file, brings its schema up to date and prepares the statements; a file that cannot
 * be used says which and why.
 */
function openDatabase(options: SqliteOptions): { db: Database.Database; sql: Statements } {
  let db: Database.Database | undefined
  try {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })
    db = new Database(options.path, { timeout: 5000 })
    db.pragma('journal_mode = WAL')
    db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
    db.pragma(`journal_size_limit = ${STORE_JOURNAL_SIZE_LIMIT}`)
    const ran = migrate(db, { historyLimit: options.historyLimit })
    if (ran.length > 0) {
      options.logger?.info(
        { path: options.path, steps: ran.map((m) => `${m.version}: ${m.name}`) },
        'SQLite schema migrated'
      )
    }
    fitHistory(db, options)
    return { db, sql: prepareStatements(db) }
  } catch (error) {
    if (db?.open) db.close()
    const code = (error as { code?: string }).code
    throw new Error(
      `cannot open the SQLite store at ${options.path} (SQLITE_PATH): ${(error as Error).message}${code ? ` (${code})` : ''}`,
      { cause: error }
    )
  }
}

/**
 * Lays the history out again when HISTORY_LIMIT changed since the file was last opened. A file
 * that cannot be read or written here (damaged pages, a read-only volume) opens as it is: its
 * requests answer for it, and a history page may miss versions of the window until a start that
 * can lay it out.
 */
function fitHistory(db: Database.Database, options: SqliteOptions) {
  try {
    const from = fitHistoryLimit(db, options.historyLimit)
    if (from !== undefined) {
      options.logger?.info(
        { path: options.path, from, to: options.historyLimit },
        'SQLite history laid out again for HISTORY_LIMIT'
      )
    }
  } catch (error) {
    options.logger?.warn(
      { err: error, path: options.path },
      'the SQLite history could not be laid out for HISTORY_LIMIT'
    )
  }
}

/** A brief as stored, else (a row no write of this release made) the session's, read whole. */
const briefOfRow = (row: { brief: string; data: string | null }) =>
  parseBrief(row.brief) ?? (row.data === null ? null : briefOf(JSON.parse(row.data) as Session))

/** The text a write stores: the session's JSON, its brief's, and its list's. */
interface SessionText {
  data: string
  brief: string
  /** '' for a quiet write, which stores no history entry. */
  items: string
}

/**
 * A session serialised once: its list's JSON goes into the session's as it is, and into the
 * history row.
 * @param session - the session to store
 * @param quiet - no history entry (its list is not needed apart)
 */
function serialise(session: Session, quiet = false): SessionText {
  const { items, ...rest } = session
  const itemsJson = JSON.stringify(items)
  const restJson = JSON.stringify(rest)
  return {
    data: `{"items":${itemsJson}${restJson === '{}' ? '}' : `,${restJson.slice(1)}`}`,
    brief: JSON.stringify(briefOf(session)),
    items: quiet ? '' : itemsJson,
  }
}

/** A write decided on a row: before its transaction (`readAhead`) or inside it. */
interface ReadAhead<T> {
  /** The row it was decided on; undefined for a session that was not there. */
  row: Pick<SessionRow, 'version' | 'expiry_bucket' | 'writes'> | undefined
  versionFloor: number
  decision: UpdateDecision<T>
  /** The decision's write, serialised; null when it writes nothing. */
  text: SessionText | null
  /** The alert transitions of the write (`core/transitions`), for the outbox. */
  transitions: Transition[]
}

/** A text longer than this takes milliseconds to parse: a history page parses it in a turn of its own. */
const LARGE_TEXT = 64 * 1024

/**
 * Sessions one listing call visits at most (matching its filters or not) before it answers a
 * short page with a cursor: a visit that must read the brief costs a few µs (a row lookup, and a
 * JSON parse where the filter's text is in the brief), so a page of a filter few sessions match
 * holds the event loop for a few ms however large the tenant (bench/sqlite-listing.mjs).
 */
export const LIST_VISIT_BUDGET = 1000

/** How much the write probe writes (`checkWritable`). */
const PROBE_BYTES = 256 * 1024

/** Runs a read; a storage fault becomes StoreUnavailableError. */
function reading<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    throw asStoreError(error, false)
  }
}

/**
 * Opens (creating or migrating if needed) the SQLite store.
 * @param options - path, durability, TTL and history bound
 * @throws Error naming the path when the file cannot be opened or migrated
 */
export function createSqliteStore(options: SqliteOptions): SessionStore {
  const { db, sql } = openDatabase(options)
  const feed = createChangeFeed()
  let checkpointer: Checkpointer | undefined
  if (options.checkpointThread !== false && options.path !== ':memory:') {
    const stopped = (error: Error) => {
      checkpointer = undefined
      options.logger?.warn(
        { err: error, path: options.path },
        'the SQLite checkpoint thread stopped: checkpoints run on commit again'
      )
    }
    try {
      checkpointer = startCheckpointer(db, options.path, {
        intervalMs: CHECKPOINT_INTERVAL_MS,
        restartFrames: DEFAULT_AUTOCHECKPOINT_PAGES,
        synchronous: options.synchronous,
        onStopped: stopped,
      })
    } catch (error) {
      // no thread (none could start): the store checkpoints as SQLite does by default
      stopped(error as Error)
    }
  }
  const commits = createGroupCommit(db, {
    maxBatch: options.maxBatch ?? 512,
    maxBatchBytes: options.maxBatchBytes ?? DEFAULT_BATCH_BYTES,
    emit: feed.emit,
    onCommit: () => checkpointer?.committed(),
    holdWrites: () => checkpointer?.holdWrites() ?? false,
  })
  const alerts = createSqliteAlerts(db, commits, options.now)
  /** The outbox rows of a write, when alerts are on (`StoreOptions.staleAfterMs`). */
  const transitionsOf = (current: Session | null, decision: UpdateDecision<unknown>) =>
    decision.write && options.staleAfterMs !== undefined
      ? alertTransitions(current, decision.write.session, options.staleAfterMs)
      : []

  // statements take the session key itself as their @tenant and @sessionId
  const removeSession = (key: SessionKey) => {
    sql.deleteHistory.run(key)
    return sql.deleteSession.run(key).changes > 0
  }

  /** The version a new session must follow: its unexpired tombstone's, else 0. */
  const floorOf = (key: SessionKey): number => {
    const tombstone = sql.selectTombstone.get(key)
    return tombstone && tombstone.expires_at > options.now() ? tombstone.version : 0
  }

  /**
   * The brief of a listed row without one: its session's, read whole (rows of an older release);
   * read in the listing's turn, so the row is there.
   */
  const briefFromSession = (key: SessionKey) =>
    briefOf(JSON.parse(sql.selectSession.get(key)!.data) as Session)

  /** The file's history ring (read each time: another process on the file may resize it). */
  const ringOf = () => sql.historyRing.get() ?? options.historyLimit

  /**
   * Writes a session (serialised by `serialise`, outside the transaction) and, unless quiet,
   * its history entry.
   */
  const write = (
    key: SessionKey,
    existing: Pick<SessionRow, 'version' | 'expiry_bucket'> | undefined,
    session: Session,
    source: string,
    quiet: boolean,
    text: SessionText
  ) => {
    const columns = stateColumns(session)
    const expiresAt = options.now() + options.ttlMs
    // parameter objects as literals of one shape: spreading them cost more than the binding
    const row: SessionParams = {
      tenant: key.tenant,
      sessionId: key.sessionId,
      version: session.version,
      data: text.data,
      brief: text.brief,
      total: columns.total,
      unfinished: columns.unfinished,
      ended: columns.ended ? 1 : 0,
      updatedAt: session.updated_at,
      expiresAt,
      expiryBucket: expiryBucket(expiresAt),
      expectedVersion: existing ? existing.version : 0,
    }
    if (existing) {
      const update =
        existing.expiry_bucket === row.expiryBucket ? sql.updateSession : sql.updateSessionAndBucket
      const { changes } = update.run(row)
      // BEGIN IMMEDIATE holds the write lock since the read, so this is a guard, not a race
      if (changes === 0) throw new ConflictRetryError()
    } else {
      sql.insertSession.run(row)
    }
    // a quiet write keeps the version: its slot holds that version's list already
    if (quiet) return
    sql.writeHistory.run({
      tenant: key.tenant,
      sessionId: key.sessionId,
      slot: session.version % ringOf(),
      version: session.version,
      at: session.updated_at,
      source,
      items: text.items,
    })
  }

  /**
   * The updater's decision on `row` (the live row as read, or none), checked and serialised; the
   * row is kept as its version and counters only, not its text.
   */
  const decide = <T>(
    key: SessionKey,
    row: SessionRow | undefined,
    fn: Updater<T>
  ): ReadAhead<T> => {
    const current = row ? (JSON.parse(row.data) as Session) : null
    const versionFloor = row ? 0 : floorOf(key)
    const decision = fn(current, { versionFloor })
    const write = decision.write
    if (write) assertNextVersion(current, write.session, versionFloor, write.quiet)
    return {
      row: row && { version: row.version, expiry_bucket: row.expiry_bucket, writes: row.writes },
      versionFloor,
      decision,
      text: write ? serialise(write.session, write.quiet) : null,
      transitions: transitionsOf(current, decision),
    }
  }

  /**
   * The update as it ran before read-ahead: read, decide and write inside the transaction. For a
   * write whose read-ahead found the row changed (or could not decide).
   */
  const updateInside = <T>(
    key: SessionKey,
    fn: Updater<T>,
    updateOptions: UpdateOptions<T> | undefined
  ): OpResult => {
    const now = options.now()
    let row = sql.selectSession.get(key)
    if (row && row.expires_at <= now) {
      removeSession(key)
      row = undefined
    }
    return commitDecision(key, decide(key, row, fn), updateOptions)
  }

  /** Stores a decision made on `row` (still the file's, under the write lock). */
  const commitDecision = <T>(
    key: SessionKey,
    { row, versionFloor, decision, text, transitions }: ReadAhead<T>,
    updateOptions: UpdateOptions<T> | undefined
  ): OpResult => {
    const now = options.now()
    const claim = updateOptions?.idempotency
    if (claim) {
      // the reply goes in with the change, or neither does (the savepoint)
      const { changes } = sql.completeIdempotency.run({
        scope: claim.scope,
        token: claim.token,
        reply: claim.reply(decision.value),
        expiresAt: now + claim.ttlMs,
        now,
      })
      if (changes === 0) throw new IdempotencyClaimLostError()
    }
    if (!decision.write) return { value: decision.value }
    const { session, source, quiet = false } = decision.write
    const cap = updateOptions?.maxSessionsPerTenant
    // under BEGIN IMMEDIATE: no other writer, here or in another process, counts meanwhile
    if (!row && cap && sql.countLive.get({ tenant: key.tenant, now })! >= cap) {
      throw new QuotaExceededError(cap)
    }
    write(key, row, session, source, quiet, text!)
    if (versionFloor > 0) sql.deleteTombstone.run(key)
    // the outbox rows go in with the change, or neither does (the savepoint)
    if (transitions.length > 0) alerts.append(key, transitions)
    return { value: decision.value, event: changeEvent(key, session.version, source, quiet) }
  }

  /**
   * Reads, decides and serialises a write before its transaction, on the file's committed state,
   * so that the transaction (which holds the event loop and every other write) only checks that
   * the row is still the one read and copies the prepared text. Null when the updater threw or
   * the row is expired: the update then runs inside.
   */
  const readAhead = <T>(key: SessionKey, fn: Updater<T>): ReadAhead<T> | null => {
    try {
      const row = sql.selectSession.get(key)
      if (row && row.expires_at <= options.now()) return null
      return decide(key, row, fn)
    } catch {
      return null
    }
  }

  /** Whether the file still holds what a read-ahead read (under the write lock). */
  const stillAsRead = (key: SessionKey, ahead: ReadAhead<unknown>): boolean => {
    const live = sql.selectLiveness.get(key)
    if (!ahead.row) return live === undefined && floorOf(key) === ahead.versionFloor
    return (
      live !== undefined &&
      live.expires_at > options.now() &&
      live.version === ahead.row.version &&
      live.writes === ahead.row.writes
    )
  }

  const runSweep = () => {
    const now = options.now()
    db.transaction(() => {
      for (const expired of sql.expiredSessions.all({ now, bucket: expiryBucket(now) })) {
        removeSession({ tenant: expired.tenant, sessionId: expired.session_id })
      }
      sql.sweepIdempotency.run({ now })
      sql.sweepTombstones.run({ now })
    }).immediate()
  }
  const sweep = setInterval(() => {
    try {
      runSweep()
    } catch {
      // a busy (or full) database skips one sweep; the next one catches up
    }
  }, 60_000)
  sweep.unref()

  /** `historyText`'s page, synchronously. */
  const historyRows = (
    key: SessionKey,
    limit: number,
    beforeVersion: number | undefined,
    maxBytes = Infinity
  ): HistoryText[] => {
    // one read transaction: the version and the rows of one snapshot, whatever another
    // process commits meanwhile; the page's rows newest first without their lists, then each
    // kept row's list read on its own until the budget is passed, so a page of large lists
    // reads about its budget
    const kept = reading(
      db.transaction(() => {
        const row = sql.selectLiveness.get(key)
        if (!row || row.expires_at <= options.now()) return []
        const rows = sql.selectHistory.all({
          tenant: key.tenant,
          sessionId: key.sessionId,
          beforeVersion: beforeVersion ?? Number.MAX_SAFE_INTEGER,
          floor: row.version - ringOf(),
          limit,
        })
        const texts: HistoryText[] = []
        let bytes = 0
        for (const entry of rows) {
          const items = sql.selectHistoryItems.get(entry.row)
          // the same snapshot as the rows: always there, but `get` cannot say so
          if (items === undefined) continue
          texts.push({
            version: entry.version,
            at: entry.at,
            source: entry.source as HistoryEntry['source'],
            items,
          })
          bytes += historyBytes(items)
          if (bytes > maxBytes) break
        }
        return texts
      })
    )
    return kept.reverse()
  }

  /**
   * A page of a listing: the tenant's sessions from the cursor on, in the index's order, at most
   * `LIST_VISIT_BUDGET` of them visited (matching or not), so that a filter few sessions match
   * holds the event loop for a bounded time however large the tenant. A page that reached the
   * bound before it was full ends short, with a cursor after the last session it visited. One
   * read transaction: the page and that position come from one snapshot.
   */
  const listPage = db.transaction((tenant: string, query: ListQuery): ListPage => {
    const statements = sql.list(query)
    const visit = Math.max(LIST_VISIT_BUDGET, query.limit + 1)
    const params = {
      tenant,
      now: options.now(),
      staleBefore: query.staleBefore,
      cursorAt: query.cursor?.updatedAt,
      cursorId: query.cursor?.sessionId,
      updatedSince: query.updatedSince,
      ...listFilterParams(query),
      visit,
      want: query.limit + 1,
    }
    const hits = statements.page.all(params)
    const sessions = hits
      .slice(0, query.limit)
      .map(
        (row) => parseBrief(row.brief) ?? briefFromSession({ tenant, sessionId: row.session_id })
      )
    if (hits.length > query.limit) return { sessions, next: cursorAfter(sessions[query.limit - 1]) }
    // fewer matches than the page holds: the end of the tenant's sessions, or the visit bound,
    // after which the next page goes on
    const last = statements.lastVisited.get(params)
    const next: ListCursor | null = last
      ? { updatedAt: last.updated_at, sessionId: last.session_id }
      : null
    return { sessions, next }
  })

  let closed = false
  // The SessionStore interface is async; these methods read synchronously (better-sqlite3), and `async` is
  // what turns their throws (StoreUnavailableError from a storage fault) into the rejected promises the interface promises.
  /* eslint-disable @typescript-eslint/require-await */
  return {
    kind: 'sqlite',
    alerts: alerts.store,
    people: createSqlitePeople(db, commits, options.now),
    async get(key) {
      const row = reading(() => sql.selectSession.get(key))
      return row && row.expires_at > options.now() ? (JSON.parse(row.data) as Session) : null
    },
    async brief(key) {
      const row = reading(() => sql.selectBrief.get(key))
      if (!row || row.expires_at <= options.now()) return null
      return briefOfRow(row)
    },
    update<T>(key: SessionKey, fn: Updater<T>, updateOptions?: UpdateOptions<T>): Promise<T> {
      const ahead = readAhead(key, fn)
      const bytes = ahead?.text ? ahead.text.data.length + ahead.text.items.length : 0
      return commits.enqueue<T>(() => {
        if (ahead && stillAsRead(key, ahead)) return commitDecision(key, ahead, updateOptions)
        // another writer came between (or the read-ahead could not decide): decide again here
        return updateInside(key, fn, updateOptions)
      }, bytes)
    },
    delete(key) {
      return commits.enqueue<boolean>(() => {
        const now = options.now()
        const row = sql.selectLiveness.get(key)
        const live = row !== undefined && row.expires_at > now
        removeSession(key)
        if (!live) return { value: false }
        sql.upsertTombstone.run({
          tenant: key.tenant,
          sessionId: key.sessionId,
          version: row.version,
          expiresAt: now + options.ttlMs,
        })
        return { value: true, event: changeEvent(key, 0, 'delete') }
      })
    },
    subscribe: feed.subscribe,
    async countSessions(tenant) {
      return reading(() => sql.countLive.get({ tenant, now: options.now() })!)
    },
    async list(tenant, query): Promise<ListPage> {
      return reading(() => listPage(tenant, query))
    },
    async historyText(key, limit, beforeVersion, maxBytes) {
      return historyRows(key, limit, beforeVersion, maxBytes)
    },
    async history(key, limit, beforeVersion, maxBytes) {
      const texts = historyRows(key, limit, beforeVersion, maxBytes)
      // a turn of the loop per large list parsed, not one for the whole page
      const entries: HistoryEntry[] = []
      for (const text of texts) {
        if (entries.length > 0 && text.items.length > LARGE_TEXT) await nextTurn()
        entries.push({ ...text, items: JSON.parse(text.items) as HistoryEntry['items'] })
      }
      return entries
    },
    claimIdempotency(scope, fingerprint, ttlMs) {
      return commits.enqueue<IdempotencyClaim>(() => {
        const now = options.now()
        const row = sql.selectIdempotency.get({ scope })
        if (row && row.expires_at > now) {
          return {
            value: { claimed: false, record: { fingerprint: row.fingerprint, reply: row.reply } },
          }
        }
        const token = randomUUID()
        sql.claimIdempotency.run({ scope, fingerprint, token, expiresAt: now + ttlMs })
        return { value: { claimed: true, token } }
      })
    },
    releaseIdempotency(scope, token) {
      return commits.enqueue<void>(() => {
        sql.releaseIdempotency.run({ scope, token })
        return { value: undefined }
      })
    },
    async ping() {
      reading(() => sql.selectOne.get())
    },
    checkWritable() {
      // a row in, a row out: its pages still go through COMMIT and the -wal file. The row is as
      // large as a large write, because a full disk can still take a small one: a failed
      // transaction leaves its frames' room at the end of the -wal file, and the next one
      // reuses it
      return commits.enqueue<void>(() => {
        sql.insertProbe.run({ at: options.now(), bytes: PROBE_BYTES })
        sql.deleteProbe.run()
        return { value: undefined }
      })
    },
    async close() {
      if (closed) return
      closed = true
      clearInterval(sweep)
      // what was queued before close is committed (and answered) before the file closes
      commits.close()
      // the thread's connection closes first, so that closing the last one checkpoints and
      // removes the WAL as it always did
      await checkpointer?.close()
      if (db.open) db.close()
    },
  }
  /* eslint-enable @typescript-eslint/require-await */
}
