/**
 * @module service/audit
 * The audit trail (docs/people.md): every human action — a list edit, an end, a delete, a
 * decision, a webhook or token change, a sign-in — recorded as
 * `{id, at, tenant, user, via, action, target, detail}` in the store (so a fleet shares it), kept
 * `AUDIT_TTL_DAYS`, listed newest first to admins.
 *
 * `recordAudit` is the one way to write an entry: adapters (HTTP routes, the sign-in, decisions)
 * call it after the action succeeded, with who did it (`keyUser` and `via` of the request).
 */
import { randomBytes } from 'node:crypto'
import type { AuditCursor, AuditDetail, AuditEntry, AuditVia } from '../core/people.js'
import type { AuditPage } from '../store/people/types.js'
import type { SessionStore } from '../store/types.js'

/** `AUDIT_TTL_DAYS`'s default. */
export const DEFAULT_AUDIT_TTL_DAYS = 90

const DAY_MS = 24 * 3600 * 1000

/** What recording an action needs. */
export interface AuditDeps {
  store: Pick<SessionStore, 'people'>
  /** The clock, epoch ms. */
  now: () => number
  /** How long an entry is kept (`AUDIT_TTL_DAYS` in ms); 90 days when absent. */
  auditTtlMs?: number
  /** Told when an entry could not be stored (the action itself stands; the log says so). */
  onAuditError?: (error: unknown, entry: AuditEntry) => void
}

/** One action as an adapter reports it. */
export interface AuditRecord {
  tenant: string
  /** The verified person (`keyUser`), or null/undefined when nobody is named. */
  user?: string | null
  via: AuditVia
  /** `session.edit`, `session.end`, `session.delete`, `webhook.create`, `webhook.delete`, `webhook.rotate`, `token.create`, `token.revoke`, `auth.login`, `auth.logout`, `decision.answer`, … */
  action: string
  /** The session id, webhook id, token id… the action was done to. */
  target?: string | null
  detail?: AuditDetail
}

/**
 * An audit id: the time in hex (so ids of one millisecond sort among themselves by creation
 * only loosely, but never collide) and 8 random bytes.
 */
const auditId = (at: number) =>
  `aud_${at.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`

/**
 * Records one human action in the tenant's audit trail. Never throws: a store that cannot write
 * loses the entry, and `onAuditError` is told (the action it describes has happened already).
 * @param deps - the store, the clock, the retention
 * @param record - who did what to what
 * @returns the entry as stored, or null when the store keeps no audit or failed
 */
export async function recordAudit(
  deps: AuditDeps,
  record: AuditRecord
): Promise<AuditEntry | null> {
  const people = deps.store.people
  if (!people) return null
  const at = deps.now()
  const entry: AuditEntry = {
    id: auditId(at),
    at,
    tenant: record.tenant,
    user: record.user ?? null,
    via: record.via,
    action: record.action,
    target: record.target ?? null,
    detail: record.detail ?? null,
  }
  try {
    await people.appendAudit(entry, at + (deps.auditTtlMs ?? DEFAULT_AUDIT_TTL_DAYS * DAY_MS))
    return entry
  } catch (error) {
    deps.onAuditError?.(error, entry)
    return null
  }
}

/**
 * A page of the tenant's audit trail, newest first.
 * @param deps - the store
 * @param tenant - whose trail
 * @param query - filters, page size and where to start
 */
export function listAudit(
  deps: Pick<AuditDeps, 'store'>,
  tenant: string,
  query: { user?: string; action?: string; limit: number; cursor?: AuditCursor }
): Promise<AuditPage> {
  const people = deps.store.people
  if (!people) return Promise.resolve({ entries: [], next: null })
  return people.listAudit(tenant, query)
}

/** Days as ms (`AUDIT_TTL_DAYS`). */
export const auditTtlMs = (days: number) => days * DAY_MS
