/**
 * @module store/sqlite/people
 * The SQLite store's personal tokens and audit trail (migration 11): one table of keys and values,
 * `people(k, v)`, ordered by key (the file's first page, which holds the schema, had room for one
 * short table only):
 * - `t/<sha256 of the secret>` → the token's record (JSON): a token is found by one key lookup;
 * - `a/<tenant>/<at, 15 digits>/<id>` → `{…entry, exp}`: a tenant's trail is one key range,
 *   newest first by reading it backwards, swept by time on every append.
 * Writes go through the store's group commit, like a session write; reads run on the connection.
 */
import type Database from 'better-sqlite3'
import type { AuditCursor, AuditEntry } from '../../core/people.js'
import type { AuditPage, PeopleStore, TokenRecord } from '../people/types.js'
import type { GroupCommit } from './group-commit.js'
import { asStoreError } from './faults.js'

/** Expired audit rows one append sweeps at most (the rest go with the next appends). */
const SWEEP_ROWS = 64

const tokenKey = (hash: string) => `t/${hash}`
// '/' sorts before '0': `a/<tenant>0` ends the tenant's range (a tenant name has no '/')
const auditFrom = (tenant: string) => `a/${tenant}/`
const auditTo = (tenant: string) => `a/${tenant}0`
const auditKey = (tenant: string, at: AuditCursor) =>
  `a/${tenant}/${String(at.at).padStart(15, '0')}/${at.id}`

interface AuditParams {
  from: string
  to: string
  user: string | null
  action: string | null
  now: number
  limit: number
}

/** Prepares the statements of an open, migrated database. */
function prepare(db: Database.Database) {
  return {
    put: db.prepare<{ k: string; v: string }>(
      'INSERT OR REPLACE INTO people (k, v) VALUES (@k, @v)'
    ),
    get: db.prepare<{ k: string }, string>('SELECT v FROM people WHERE k = @k').pluck(),
    remove: db.prepare<{ k: string }>('DELETE FROM people WHERE k = @k'),
    // a range scan: a tenant has a few tokens a person, and only listings and revokes read them so
    tenantTokens: db
      .prepare<{ tenant: string }, string>(
        `SELECT v FROM people WHERE k >= 't/' AND k < 't0' AND v ->> '$.tenant' = @tenant`
      )
      .pluck(),
    sweepAudit: db.prepare<{ from: string; to: string }>(
      `DELETE FROM people WHERE k IN
         (SELECT k FROM people WHERE k >= @from AND k < @to LIMIT ${SWEEP_ROWS})`
    ),
    listAudit: db
      .prepare<AuditParams, string>(
        `SELECT v FROM people WHERE k >= @from AND k < @to AND v ->> '$.exp' > @now
           AND (@user IS NULL OR v ->> '$.user' = @user)
           AND (@action IS NULL OR v ->> '$.action' = @action)
         ORDER BY k DESC LIMIT @limit`
      )
      .pluck(),
  }
}

/**
 * The SQLite people store.
 * @param db - the store's open, migrated database
 * @param commits - the store's group commit
 * @param now - the store's clock
 */
export function createSqlitePeople(
  db: Database.Database,
  commits: GroupCommit,
  now: () => number
): PeopleStore {
  const sql = prepare(db)
  const read = <T>(run: () => T): T => {
    try {
      return run()
    } catch (error) {
      throw asStoreError(error, false)
    }
  }
  const write = <T>(run: () => T) => commits.enqueue<T>(() => ({ value: run() }))
  const live = (record: TokenRecord) => record.expires_at === null || record.expires_at > now()
  const parse = (data: string) => JSON.parse(data) as TokenRecord
  const tokensOf = (tenant: string) => sql.tenantTokens.all({ tenant }).map(parse)

  /* eslint-disable @typescript-eslint/require-await */
  return {
    createToken(record) {
      return write(() => {
        sql.put.run({ k: tokenKey(record.hash), v: JSON.stringify(record) })
      })
    },
    async findToken(hash) {
      const data = read(() => sql.get.get({ k: tokenKey(hash) }))
      if (data === undefined) return null
      const record = parse(data)
      return live(record) ? record : null
    },
    async listTokens(tenant, user) {
      return read(() => tokensOf(tenant))
        .filter((record) => live(record) && (user === undefined || record.user === user))
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
    },
    revokeToken(tenant, id) {
      return write(() => {
        const record = tokensOf(tenant).find((token) => token.id === id)
        if (!record) return null
        sql.remove.run({ k: tokenKey(record.hash) })
        return live(record) ? record : null
      })
    },
    appendAudit(entry, expiresAt) {
      return write(() => {
        // the tenant's entries older than one lifetime (AUDIT_TTL_DAYS is the same for all)
        const before = { at: now() - (expiresAt - entry.at), id: '' }
        sql.sweepAudit.run({ from: auditFrom(entry.tenant), to: auditKey(entry.tenant, before) })
        sql.put.run({
          k: auditKey(entry.tenant, entry),
          v: JSON.stringify({ ...entry, exp: expiresAt }),
        })
      })
    },
    async listAudit(tenant, query): Promise<AuditPage> {
      const rows = read(() =>
        sql.listAudit.all({
          from: auditFrom(tenant),
          to: query.cursor ? auditKey(tenant, query.cursor) : auditTo(tenant),
          user: query.user ?? null,
          action: query.action ?? null,
          now: now(),
          limit: query.limit + 1,
        })
      )
      const entries = rows.slice(0, query.limit).map((data) => {
        const { exp: _exp, ...entry } = JSON.parse(data) as AuditEntry & { exp: number }
        return entry
      })
      const last = entries.at(-1)
      return {
        entries,
        next: rows.length > query.limit && last ? { at: last.at, id: last.id } : null,
      }
    },
  }
}
