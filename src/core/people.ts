/**
 * @module core/people
 * Who did something (docs/people.md): how a request was authenticated, and the audit entry a
 * person's action leaves. Pure types and rules; the stores keep them, the service writes them.
 */

/**
 * How the caller was recognised: a bearer key (`AUTH_KEYS`, `AUTH_KEYS_FILE`), a personal token
 * (`atk_…`), a sign-in cookie (OpenID Connect), or open access (no keys configured).
 */
export const VIAS = ['key', 'token', 'oidc', 'open'] as const
export type Via = (typeof VIAS)[number]

/**
 * How the person of an audit entry came in: a request's `via`, or `slack` for an answer given by a
 * Slack click (verified by Slack's signature, the person by their email).
 */
export const AUDIT_VIAS = [...VIAS, 'slack'] as const
export type AuditVia = (typeof AUDIT_VIAS)[number]

/** The roles a personal token may carry (never admin: a token acts for its person's agents). */
export const TOKEN_ROLES = ['agent', 'viewer'] as const
export type TokenRole = (typeof TOKEN_ROLES)[number]

/** The prefix of every personal token: only such bearers are looked up in the store. */
export const TOKEN_PREFIX = 'atk_'

/** What an audit entry's detail may hold: a sentence or a small JSON object. */
export type AuditDetail = string | Record<string, unknown> | null

/** One recorded human action. */
export interface AuditEntry {
  id: string
  /** Epoch ms. */
  at: number
  tenant: string
  /** The person (a verified user: key, token or sign-in); null when nobody is named (open access, a key without a user). */
  user: string | null
  via: AuditVia
  /** What was done: `session.edit`, `session.end`, `session.delete`, `webhook.create`, `token.create`, `auth.login`, … */
  action: string
  /** What it was done to (a session id, a webhook id, a token id); null when nothing in particular. */
  target: string | null
  detail: AuditDetail
}

/** A position in an audit listing (newest first): the last entry of the previous page. */
export interface AuditCursor {
  at: number
  id: string
}

/** Whether an entry comes after the cursor in the newest-first order. */
export const isAfterAuditCursor = (entry: AuditCursor, cursor: AuditCursor): boolean =>
  entry.at < cursor.at || (entry.at === cursor.at && entry.id < cursor.id)

/** Newest first, then by id descending: the order every store lists audit entries in. */
export const compareAuditDesc = (a: AuditCursor, b: AuditCursor): number =>
  b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** The conditions of an audit listing. */
export interface AuditFilter {
  user?: string
  action?: string
}

/** Whether an entry matches a listing's conditions (exact match). */
export const matchesAudit = (entry: AuditEntry, filter: AuditFilter): boolean =>
  (filter.user === undefined || entry.user === filter.user) &&
  (filter.action === undefined || entry.action === filter.action)
