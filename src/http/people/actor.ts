/**
 * @module http/people/actor
 * Who did it: the caller of a request as the audit trail names them (its verified person, how
 * they were recognised), and the adapter's one call to record an action.
 */
import type { Context } from 'hono'
import type { AuditDetail } from '../../core/people.js'
import { recordAudit, type AuditDeps } from '../../service/audit.js'
import type { AppEnv } from '../context.js'
import { ServiceError } from '../problem.js'

/**
 * Records a human action of this request in the tenant's audit trail (`service/audit`).
 * @param c - the request's context (tenant, keyUser, via)
 * @param deps - the store, the clock, the retention
 * @param action - e.g. `session.edit`
 * @param target - what it was done to
 * @param detail - what else is worth keeping
 */
export function audit(
  c: Context<AppEnv>,
  deps: AuditDeps,
  action: string,
  target: string | null,
  detail: AuditDetail = null
) {
  return recordAudit(deps, {
    tenant: c.get('tenant'),
    user: c.get('keyUser') ?? null,
    via: c.get('via') ?? 'open',
    action,
    target,
    detail,
  })
}

/** The caller of a token operation: tenant, role and verified person. */
export const callerOf = (c: Context<AppEnv>) => ({
  tenant: c.get('tenant'),
  role: c.get('role'),
  user: c.get('keyUser'),
  via: c.get('via'),
})

/**
 * A listing's `?user=`: `me` is the caller's own verified person (SPEC: `?user=me`), anything
 * else itself.
 * @param c - the request's context
 * @param user - the query's value
 * @throws ServiceError `no-user` for `me` when the caller is no person
 */
export function userFilter(c: Context<AppEnv>, user: string | undefined): string | undefined {
  if (user !== 'me') return user
  const own = c.get('keyUser')
  if (!own) {
    throw new ServiceError(
      'no-user',
      '?user=me names the caller, who is no person here: sign in, or use a personal token or a key with a user.',
      { errors: [{ pointer: '/query/user', detail: 'the caller has no user' }] }
    )
  }
  return own
}
