/**
 * @module service/decisions-audit
 * A thin seam until `service/audit` (the people branch: `recordAudit(deps, {tenant, user, via,
 * action, target, detail})`) is merged: decisions are audited through it then, and this file
 * goes. Until then an answer's audit entry goes to the sink the app gives (its log).
 */

/** One audit entry (docs/people.md: `{id, at, tenant, user, via, action, target, detail}`). */
export interface AuditEntry {
  tenant: string
  user: string | null
  via: string
  action: string
  target: string
  detail: Record<string, unknown>
}

/** Where audit entries go. */
export type AuditSink = (entry: AuditEntry) => void | Promise<void>

/**
 * Records an audit entry; a sink that fails does not undo the answer (it is in the session's
 * history already).
 * @param sink - where entries go, or none
 * @param entry - the entry
 */
export async function recordAudit(sink: AuditSink | undefined, entry: AuditEntry): Promise<void> {
  try {
    await sink?.(entry)
  } catch {
    // the answer stands: the history keeps it
  }
}
