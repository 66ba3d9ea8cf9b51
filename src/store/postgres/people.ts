/**
 * @module store/postgres/people
 * The PostgreSQL store's personal tokens (by the sha256 of their secret) and audit trail, shared
 * by a fleet: a token minted on one instance works on all, and a revoke is immediate everywhere.
 * Filters run in the database, so a filtered audit page reads only what it returns.
 */
import type pg from 'pg'
import type { AuditEntry } from '../../core/people.js'
import type { AuditPage, PeopleStore, TokenRecord } from '../people/types.js'
import { pgGuarded } from './faults.js'

interface TokenRow {
  id: string
  tenant: string
  person: string
  name: string
  role: TokenRecord['role']
  hash: string
  created_at: string
  expires_at: string | null
}

const TOKEN_COLUMNS = 'id, tenant, person, name, role, hash, created_at, expires_at'

const toToken = (row: TokenRow): TokenRecord => ({
  id: row.id,
  tenant: row.tenant,
  user: row.person,
  name: row.name,
  role: row.role,
  hash: row.hash,
  created_at: Number(row.created_at),
  expires_at: row.expires_at === null ? null : Number(row.expires_at),
})

/**
 * The PostgreSQL people store.
 * @param pool - the store's pool
 * @param now - the store's clock
 */
export function createPostgresPeople(pool: pg.Pool, now: () => number): PeopleStore {
  const q = <R extends pg.QueryResultRow>(text: string, values: unknown[]) =>
    pgGuarded(() => pool.query<R>(text, values))
  const live = '(expires_at IS NULL OR expires_at > $2)'

  return {
    async createToken(record) {
      await q(
        `INSERT INTO people_tokens (${TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          record.id,
          record.tenant,
          record.user,
          record.name,
          record.role,
          record.hash,
          record.created_at,
          record.expires_at,
        ]
      )
    },
    async findToken(hash) {
      const { rows } = await q<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM people_tokens WHERE hash = $1 AND ${live}`,
        [hash, now()]
      )
      return rows[0] ? toToken(rows[0]) : null
    },
    async listTokens(tenant, user) {
      const { rows } = await q<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM people_tokens WHERE tenant = $1 AND ${live}
           AND ($3::text IS NULL OR person = $3) ORDER BY created_at DESC, id DESC`,
        [tenant, now(), user ?? null]
      )
      return rows.map(toToken)
    },
    async revokeToken(tenant, id) {
      const { rows } = await q<TokenRow>(
        `DELETE FROM people_tokens WHERE tenant = $1 AND id = $2 RETURNING ${TOKEN_COLUMNS}`,
        [tenant, id]
      )
      const row = rows[0]
      if (!row) return null
      const record = toToken(row)
      return record.expires_at === null || record.expires_at > now() ? record : null
    },
    async appendAudit(entry, expiresAt) {
      await q(
        `INSERT INTO people_audit (tenant, id, at, person, action, entry, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          entry.tenant,
          entry.id,
          entry.at,
          entry.user,
          entry.action,
          JSON.stringify(entry),
          expiresAt,
        ]
      )
    },
    async listAudit(tenant, query): Promise<AuditPage> {
      const { rows } = await q<{ entry: string }>(
        `SELECT entry FROM people_audit
         WHERE tenant = $1 AND expires_at > $2
           AND ($3::text IS NULL OR person = $3) AND ($4::text IS NULL OR action = $4)
           AND ($5::bigint IS NULL OR at < $5 OR (at = $5 AND id < $6))
         ORDER BY at DESC, id DESC LIMIT $7`,
        [
          tenant,
          now(),
          query.user ?? null,
          query.action ?? null,
          query.cursor?.at ?? null,
          query.cursor?.id ?? '',
          query.limit + 1,
        ]
      )
      const entries = rows.slice(0, query.limit).map((row) => JSON.parse(row.entry) as AuditEntry)
      const last = entries[entries.length - 1]
      return {
        entries,
        next: rows.length > query.limit && last ? { at: last.at, id: last.id } : null,
      }
    },
  }
}
