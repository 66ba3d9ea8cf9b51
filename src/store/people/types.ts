/**
 * @module store/people/types
 * What a store keeps of people (docs/people.md): personal tokens (by the sha256 of their
 * secret, never the secret) and the audit trail. Kept in the store, not in a process, so a fleet
 * shares them: a token minted on one instance works on all, and a revoke is immediate everywhere.
 */
import type { AuditCursor, AuditEntry, AuditFilter, TokenRole } from '../../core/people.js'

/** A personal token as stored. */
export interface TokenRecord {
  /** Public id (`tok_…`): what listings show and DELETE names. */
  id: string
  tenant: string
  /** The person it acts for. */
  user: string
  name: string
  role: TokenRole
  /** Hex sha256 of the secret. */
  hash: string
  /** Epoch ms. */
  created_at: number
  /** Epoch ms; null: never expires. */
  expires_at: number | null
}

/** One page of an audit listing, newest first. */
export interface AuditPage {
  entries: AuditEntry[]
  /** Where the next page starts; null at the end. */
  next: AuditCursor | null
}

/** An audit listing's query. */
export interface AuditQuery extends AuditFilter {
  limit: number
  cursor?: AuditCursor
}

/** How many stored entries a listing with filters reads at most before it answers a page. */
export const AUDIT_SCAN_LIMIT = 5000

export interface PeopleStore {
  /** Stores a new token. */
  createToken(record: TokenRecord): Promise<void>
  /** The live token whose secret hashes to `hash` (any tenant), or null (unknown, revoked or expired). */
  findToken(hash: string): Promise<TokenRecord | null>
  /** A tenant's live tokens, newest first; only `user`'s when given. */
  listTokens(tenant: string, user?: string): Promise<TokenRecord[]>
  /** Revokes a token: the record it was, or null when the tenant has none of that id. */
  revokeToken(tenant: string, id: string): Promise<TokenRecord | null>
  /** Records an action, kept until `expiresAt` (epoch ms; `AUDIT_TTL_DAYS`). */
  appendAudit(entry: AuditEntry, expiresAt: number): Promise<void>
  /**
   * A tenant's audit entries, newest first (then id descending), not expired. With a filter the
   * page may hold fewer than `limit` entries with a `next` cursor: a store reads at most
   * `AUDIT_SCAN_LIMIT` entries per page.
   */
  listAudit(tenant: string, query: AuditQuery): Promise<AuditPage>
}
