/**
 * @module store/sqlite/statements
 * Every statement the SQLite store runs, prepared once, with named parameters.
 *
 * No statement uses RETURNING with `.get()`: that commits inside `sqlite3_reset()`, skips the WAL
 * hook, and the WAL is never checkpointed (`test/integration/sqlite-wal.test.ts`).
 */
import type Database from 'better-sqlite3'
import { FILTERED_ORIGIN_FIELDS } from '../../core/origin.js'
import type { SessionKey } from '../../core/session.js'
import type { ListQuery } from '../types.js'
import { EXPIRY_BUCKET_MS, HISTORY_RING_SQL } from './migrations.js'

/** The expiry bucket of a time (ms since the epoch): the sweep's index is on it. */
export const expiryBucket = (expiresAt: number): number => Math.floor(expiresAt / EXPIRY_BUCKET_MS)

/** `@tenant` and `@sessionId`: a SessionKey binds as it is. */
export type KeyParams = SessionKey

export interface SessionRow {
  version: number
  data: string
  expires_at: number
  expiry_bucket: number
  /** How many times the row was written: with the version, which state it holds. */
  writes: number
}

/** Whether and until when a session is there, and which of its states (`SessionRow`). */
export interface LivenessRow {
  version: number
  expires_at: number
  writes: number
}

export interface SessionParams extends KeyParams {
  /** The version the row must still have (UPDATE only). */
  expectedVersion: number
  version: number
  data: string
  /** The session's brief (`store/brief`), JSON: what listings read. */
  brief: string
  total: number
  unfinished: number
  ended: number
  updatedAt: number
  expiresAt: number
  /** `expiresAt`'s bucket (`expiryBucket()`). */
  expiryBucket: number
}

/**
 * A listing's row: its position and its brief ('' only in a row no write of this release made;
 * null from `ListStatements.lastVisited`).
 */
export interface ListRow {
  session_id: string
  updated_at: number
  brief: string | null
}

/** A history row as a page lists it: where its list is, not the list (`selectHistoryItems`). */
export interface HistoryRow {
  row: number
  version: number
  at: number
  source: string
}

export interface IdempotencyRow {
  fingerprint: string
  token: string | null
  reply: string | null
  expires_at: number
}

/**
 * The newest `limit` history rows below a version and above the kept window's floor, newest
 * first, without their lists: the session's slots are found by the primary key's prefix
 * `(tenant, session_id)` (`test/integration/sqlite-schema.test.ts`) and only their small columns
 * sorted. A reader then reads the list of each row it keeps (`selectHistoryItems`), one at a time,
 * and stops at its byte budget. (Selecting the lists here made SQLite sort the `limit` rows with
 * their lists before handing out the first: a page of two 1 MB lists read nine.)
 */
export const HISTORY_PAGE_SQL = `SELECT rowid AS row, version, at, source FROM history
  WHERE tenant = @tenant AND session_id = @sessionId
    AND version < @beforeVersion AND version > @floor
  ORDER BY version DESC LIMIT @limit`

/** Listing filters per state, over the indexed summary columns. */
const STATE_SQL: Record<ListQuery['state'], string> = {
  all: '1',
  ended: 'ended = 1',
  // background work still running keeps a finished list active (core sessionState)
  active:
    "ended = 0 AND (unfinished > 0 OR total = 0 OR json_extract(brief, '$.background') IS NOT NULL)",
  done: "ended = 0 AND total > 0 AND unfinished = 0 AND json_extract(brief, '$.background') IS NULL",
  // an observed agent waiting for a person is waiting, not stale (read from the brief)
  waiting:
    "ended = 0 AND (unfinished > 0 OR total = 0) AND json_extract(brief, '$.waiting') IS NOT NULL",
  stale:
    "ended = 0 AND unfinished > 0 AND updated_at < @staleBefore AND json_extract(brief, '$.waiting') IS NULL",
}

/**
 * A listing's statements: both walk the tenant's live sessions from the cursor on in the listing
 * index's order, over at most `@visit` of them (matching the filters or not).
 */
export interface ListStatements {
  /**
   * The first `@want` matches among the visited rows, with their briefs (never the sessions'
   * data: the brief sits before `data` in the row).
   */
  page: Named<object, ListRow>
  /** The `@visit`-th row, from the index alone; none when fewer are there. */
  lastVisited: Named<object, ListRow>
}

/** A prepared statement bound by one object of named parameters. */
type Named<Params extends object, Result = unknown> = Database.Statement<[Params], Result>

type TombstoneParams = KeyParams & { version: number; expiresAt: number }
type HistoryParams = KeyParams & {
  /** The version modulo the ring's size (`historyRing`): the row a write rewrites. */
  slot: number
  version: number
  at: number
  source: string
  items: string
}
type ClaimParams = { scope: string; fingerprint: string; token: string; expiresAt: number }
type CompleteParams = {
  scope: string
  token: string
  reply: string
  expiresAt: number
  now: number
}

export interface Statements {
  selectSession: Named<KeyParams, SessionRow>
  /** The brief, and the session only where the brief is missing. */
  selectBrief: Named<KeyParams, { brief: string; data: string | null; expires_at: number }>
  /** Whether and until when the session is there, without reading its data. */
  selectLiveness: Named<KeyParams, LivenessRow>
  insertSession: Named<SessionParams>
  /** For a write whose expiry stays in the row's bucket. */
  updateSession: Named<SessionParams>
  updateSessionAndBucket: Named<SessionParams>
  deleteSession: Named<KeyParams>
  countLive: Named<{ tenant: string; now: number }, number>
  /** Writes a version into its slot, in place of the version it held. */
  writeHistory: Named<HistoryParams>
  /**
   * The size of the file's history ring (`layOutHistory`): the slot of a version and the kept
   * window, whatever this process's HISTORY_LIMIT (another process may have laid it out anew).
   */
  historyRing: Database.Statement<[], number>
  deleteHistory: Named<KeyParams>
  /** A page's rows, newest first, without their lists (`HISTORY_PAGE_SQL`). */
  selectHistory: Named<
    KeyParams & { beforeVersion: number; floor: number; limit: number },
    HistoryRow
  >
  /** One history row's list, by its rowid (`HistoryRow.row`). */
  selectHistoryItems: Database.Statement<[number], string>
  selectTombstone: Named<KeyParams, { version: number; expires_at: number }>
  upsertTombstone: Named<TombstoneParams>
  deleteTombstone: Named<KeyParams>
  selectIdempotency: Named<{ scope: string }, IdempotencyRow>
  claimIdempotency: Named<ClaimParams>
  /** Stores the reply under a claim that is still this token's and pending; else changes 0. */
  completeIdempotency: Named<CompleteParams>
  releaseIdempotency: Named<{ scope: string; token: string }>
  expiredSessions: Named<{ now: number; bucket: number }, { tenant: string; session_id: string }>
  sweepIdempotency: Named<{ now: number }>
  sweepTombstones: Named<{ now: number }>
  insertProbe: Named<{ at: number; bytes: number }>
  deleteProbe: Database.Statement<[]>
  selectOne: Database.Statement<[]>
  /** The listing's statements for a combination of filters, prepared on first use. */
  list(query: ListQuery): ListStatements
}

/**
 * The text a brief holds for a member `"name":value` of one of its objects, as `JSON.stringify`
 * writes it (every brief is written so): a condition on that member first looks for it with
 * `instr`, and parses the brief (`json_extract`) only where it is there, so a listing's rows that
 * do not match cost no JSON parse.
 */
const memberText = (name: string, value: string) =>
  `${JSON.stringify(name)}:${JSON.stringify(value)}`

/**
 * The parameters of a listing's brief conditions (`Statements.list` names them): dialect,
 * source, origin fields and labels, each its value and the text `memberText` looks for, in the
 * order the statement takes the labels.
 * @param query - the listing
 */
export function listFilterParams(query: ListQuery): Record<string, string> {
  const params: Record<string, string> = {}
  const member = (param: string, name: string, value: string) => {
    params[param] = value
    params[`${param}Text`] = memberText(name, value)
  }
  if (query.dialect !== undefined) member('dialect', 'dialect', query.dialect)
  if (query.source !== undefined) member('source', 'source', query.source)
  for (const field of FILTERED_ORIGIN_FIELDS) {
    const value = query[field]
    if (value !== undefined) member(`origin_${field}`, field, value)
  }
  Object.entries(query.labels ?? {}).forEach(([name, value], i) => {
    params[`labelPath${i}`] = `$.labels."${name}"`
    member(`labelValue${i}`, name, value)
  })
  return params
}

/** A brief condition: the member's text is there (cheap), then its value parsed (exact). */
const briefCondition = (path: string, param: string) =>
  `AND instr(brief, @${param}Text) > 0 AND json_extract(brief, ${path}) = @${param}`

/**
 * Prepares the store's statements on an open, migrated database.
 * @param db - the database
 */
export function prepareStatements(db: Database.Database): Statements {
  const listStatements = new Map<string, ListStatements>()
  return {
    selectSession: db.prepare<[KeyParams], SessionRow>(
      `SELECT version, data, expires_at, expiry_bucket, writes FROM sessions
       WHERE tenant = @tenant AND session_id = @sessionId`
    ),
    selectBrief: db.prepare<
      [KeyParams],
      { brief: string; data: string | null; expires_at: number }
    >(
      `SELECT brief, CASE brief WHEN '' THEN data END AS data, expires_at FROM sessions
       WHERE tenant = @tenant AND session_id = @sessionId`
    ),
    selectLiveness: db.prepare<[KeyParams], LivenessRow>(
      'SELECT version, expires_at, writes FROM sessions WHERE tenant = @tenant AND session_id = @sessionId'
    ),
    insertSession: db.prepare<[SessionParams]>(
      `INSERT INTO sessions (tenant, session_id, version, data, brief, total, unfinished, ended, updated_at, expires_at, expiry_bucket)
       VALUES (@tenant, @sessionId, @version, @data, @brief, @total, @unfinished, @ended, @updatedAt, @expiresAt, @expiryBucket)`
    ),
    // without expiry_bucket in its SET, SQLite leaves that column's index alone
    updateSession: db.prepare<[SessionParams]>(
      `UPDATE sessions SET version = @version, data = @data, brief = @brief, total = @total,
         unfinished = @unfinished, ended = @ended, updated_at = @updatedAt, expires_at = @expiresAt,
         writes = writes + 1
       WHERE tenant = @tenant AND session_id = @sessionId AND version = @expectedVersion`
    ),
    updateSessionAndBucket: db.prepare<[SessionParams]>(
      `UPDATE sessions SET version = @version, data = @data, brief = @brief, total = @total,
         unfinished = @unfinished, ended = @ended, updated_at = @updatedAt, expires_at = @expiresAt,
         expiry_bucket = @expiryBucket, writes = writes + 1
       WHERE tenant = @tenant AND session_id = @sessionId AND version = @expectedVersion`
    ),
    deleteSession: db.prepare<[KeyParams]>(
      'DELETE FROM sessions WHERE tenant = @tenant AND session_id = @sessionId'
    ),
    countLive: db
      .prepare<[{ tenant: string; now: number }], number>(
        'SELECT COUNT(*) FROM sessions WHERE tenant = @tenant AND expires_at > @now'
      )
      .pluck(),

    writeHistory: db.prepare<[HistoryParams]>(
      `INSERT INTO history (tenant, session_id, slot, version, at, source, items)
       VALUES (@tenant, @sessionId, @slot, @version, @at, @source, @items)
       ON CONFLICT (tenant, session_id, slot) DO UPDATE SET version = excluded.version,
         at = excluded.at, source = excluded.source, items = excluded.items`
    ),
    historyRing: db.prepare<[], number>(HISTORY_RING_SQL).pluck(),
    deleteHistory: db.prepare<[KeyParams]>(
      'DELETE FROM history WHERE tenant = @tenant AND session_id = @sessionId'
    ),
    selectHistory: db.prepare<
      [KeyParams & { beforeVersion: number; floor: number; limit: number }],
      HistoryRow
    >(HISTORY_PAGE_SQL),
    selectHistoryItems: db
      .prepare<[number], string>('SELECT items FROM history WHERE rowid = ?')
      .pluck(),

    selectTombstone: db.prepare<[KeyParams], { version: number; expires_at: number }>(
      'SELECT version, expires_at FROM tombstones WHERE tenant = @tenant AND session_id = @sessionId'
    ),
    upsertTombstone: db.prepare<[TombstoneParams]>(
      `INSERT INTO tombstones (tenant, session_id, version, expires_at)
       VALUES (@tenant, @sessionId, @version, @expiresAt)
       ON CONFLICT (tenant, session_id) DO UPDATE SET version = excluded.version,
         expires_at = excluded.expires_at`
    ),
    deleteTombstone: db.prepare<[KeyParams]>(
      'DELETE FROM tombstones WHERE tenant = @tenant AND session_id = @sessionId'
    ),

    selectIdempotency: db.prepare<[{ scope: string }], IdempotencyRow>(
      'SELECT fingerprint, token, reply, expires_at FROM idempotency WHERE scope = @scope'
    ),
    claimIdempotency: db.prepare<[ClaimParams]>(
      `INSERT INTO idempotency (scope, fingerprint, token, reply, expires_at)
       VALUES (@scope, @fingerprint, @token, NULL, @expiresAt)
       ON CONFLICT (scope) DO UPDATE SET fingerprint = excluded.fingerprint,
         token = excluded.token, reply = NULL, expires_at = excluded.expires_at`
    ),
    completeIdempotency: db.prepare<[CompleteParams]>(
      `UPDATE idempotency SET reply = @reply, expires_at = @expiresAt
       WHERE scope = @scope AND token = @token AND reply IS NULL AND expires_at > @now`
    ),
    releaseIdempotency: db.prepare<[{ scope: string; token: string }]>(
      'DELETE FROM idempotency WHERE scope = @scope AND token = @token AND reply IS NULL'
    ),

    // the index finds the buckets up to now's; the exact expiry picks from the last of them
    expiredSessions: db.prepare<
      [{ now: number; bucket: number }],
      { tenant: string; session_id: string }
    >(
      `SELECT tenant, session_id FROM sessions
       WHERE expiry_bucket <= @bucket AND expires_at <= @now LIMIT 500`
    ),
    sweepIdempotency: db.prepare<[{ now: number }]>(
      'DELETE FROM idempotency WHERE expires_at <= @now'
    ),
    sweepTombstones: db.prepare<[{ now: number }]>(
      'DELETE FROM tombstones WHERE expires_at <= @now'
    ),

    insertProbe: db.prepare<[{ at: number; bytes: number }]>(
      'INSERT OR REPLACE INTO write_probe (id, at, pad) VALUES (1, @at, zeroblob(@bytes))'
    ),
    deleteProbe: db.prepare<[]>('DELETE FROM write_probe WHERE id = 1'),
    selectOne: db.prepare<[]>('SELECT 1'),

    list(query: ListQuery) {
      const withCursor = query.cursor !== undefined
      const withDialect = query.dialect !== undefined
      const withSince = query.updatedSince !== undefined
      const withSource = query.source !== undefined
      // origin fields and labels: from the brief, which the row holds before its data
      const originFields = FILTERED_ORIGIN_FIELDS.filter((field) => query[field] !== undefined)
      const labelCount = Object.keys(query.labels ?? {}).length
      const name = `${query.state}:${withCursor}:${withDialect}:${withSince}:${withSource}:${originFields.join(',')}:${labelCount}`
      let statement = listStatements.get(name)
      if (!statement) {
        // the range: bounds on the index's order (the cursor, updated_since, stale's bound),
        // so the rows before them are never visited
        const cursorSql = withCursor
          ? 'AND updated_at <= @cursorAt AND (updated_at < @cursorAt OR session_id < @cursorId)'
          : ''
        const sinceSql = withSince ? 'AND updated_at >= @updatedSince' : ''
        const staleSql = query.state === 'stale' ? 'AND updated_at < @staleBefore' : ''
        // the filters: every visited row counts against the visit bound, matching or not
        const dialectSql = withDialect ? briefCondition("'$.dialect'", 'dialect') : ''
        const sourceSql = withSource ? briefCondition("'$.source'", 'source') : ''
        const originSql = originFields
          .map((field) => briefCondition(`'$.origin.${field}'`, `origin_${field}`))
          .join(' ')
        // a label's path is a parameter (`$.labels."name"`): names are checked, never spliced in
        const labelSql = Array.from({ length: labelCount }, (_, i) =>
          briefCondition(`@labelPath${i}`, `labelValue${i}`)
        ).join(' ')
        const range = `FROM sessions WHERE tenant = @tenant AND expires_at > @now ${cursorSql} ${sinceSql} ${staleSql}
           ORDER BY updated_at DESC, session_id DESC`
        statement = {
          // the visited rows are filtered inside SQLite: only the matches come out
          page: db.prepare(
            `SELECT session_id, updated_at, brief FROM (SELECT session_id, updated_at,
               CASE WHEN ${STATE_SQL[query.state]} ${dialectSql} ${sourceSql} ${originSql} ${labelSql}
                 THEN brief END AS brief
               ${range} LIMIT @visit)
             WHERE brief IS NOT NULL LIMIT @want`
          ),
          // the index alone, stepping over the visited rows
          lastVisited: db.prepare(
            `SELECT session_id, updated_at, NULL AS brief ${range} LIMIT 1 OFFSET @visit - 1`
          ),
        }
        listStatements.set(name, statement)
      }
      return statement
    },
  }
}
