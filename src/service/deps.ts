/**
 * @module service/deps
 * What a use case runs on, passed explicitly: no HTTP context, no framework.
 */
import type { AuditEntry } from '../core/people.js'
import type { Session } from '../core/session.js'
import type { RoundOutcome } from '../dialects/round.js'
import type { SessionStore } from '../store/types.js'
import type { ServiceLimits } from './limits.js'

export interface ServiceDeps {
  store: SessionStore
  /** The clock, in ms since the epoch. */
  now: () => number
  /** The caps in force. */
  limits: ServiceLimits
  /** How long an Idempotency-Key's reply is kept. */
  idempotencyTtlMs: number
  /** Called with every round stored (metrics). */
  onRound?: (outcome: RoundOutcome) => void
  /** Called with every list a person edited (metrics). */
  onEdit?: (session: Session) => void
  /** How long audit entries are kept (`AUDIT_TTL_DAYS`, ms); 90 days when absent (service/audit). */
  auditTtlMs?: number
  /** Told when an audit entry could not be stored (the log). */
  onAuditError?: (error: unknown, entry: AuditEntry) => void
}
