/**
 * @module service/people/claims
 * Who a signed-in person is, from their ID token's claims and the `OIDC_*` settings (docs/api.md
 * People): `user` = the `OIDC_USER_CLAIM` claim (default `email`); tenant = `OIDC_TENANT`, else
 * the `OIDC_TENANT_CLAIM` claim; role = the first `OIDC_ROLES` entry (`group=role`, in order)
 * whose group is among the `OIDC_GROUPS_CLAIM` claim's (default `groups`), else
 * `OIDC_DEFAULT_ROLE` (default `viewer`). No tenant: nobody is signed in (403).
 */
import { TENANT_PATTERN } from '../../core/ids.js'
import { ServiceError } from '../errors.js'

export type PersonRole = 'admin' | 'agent' | 'viewer'

/** How claims name a person (the `OIDC_*` settings). */
export interface ClaimRules {
  userClaim: string
  /** One tenant for everyone; else `tenantClaim`. */
  tenant?: string
  tenantClaim?: string
  groupsClaim: string
  /** `OIDC_ROLES`, in order: the first group the person is in decides. */
  roles: readonly (readonly [group: string, role: PersonRole])[]
  defaultRole: PersonRole
}

/** A signed-in person. */
export interface Person {
  user: string
  tenant: string
  role: PersonRole
}

/** A claim as a string ('' when absent or not a string or number). */
const text = (value: unknown): string =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : ''

/** A groups claim as a list: an array of strings, or one string (some providers send one). */
function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(text).filter(Boolean)
  const one = text(value)
  return one ? [one] : []
}

/**
 * The person the claims name.
 * @param claims - the ID token's claims (with the userinfo's, where the token lacks some)
 * @param rules - the `OIDC_*` settings
 * @throws ServiceError `sign-in-refused` without the user claim; `sign-in-no-tenant` without a
 *   (valid) tenant
 */
export function personOf(claims: Record<string, unknown>, rules: ClaimRules): Person {
  const user = text(claims[rules.userClaim])
  if (!user || user.length > 256) {
    throw new ServiceError(
      'sign-in-refused',
      `The identity provider's answer has no usable '${rules.userClaim}' claim (OIDC_USER_CLAIM).`
    )
  }
  const tenant = rules.tenant ?? (rules.tenantClaim ? text(claims[rules.tenantClaim]) : '')
  if (!tenant || !TENANT_PATTERN.test(tenant)) {
    throw new ServiceError(
      'sign-in-no-tenant',
      rules.tenantClaim
        ? `The identity provider's answer names no valid tenant in its '${rules.tenantClaim}' claim (OIDC_TENANT_CLAIM).`
        : 'No tenant for signed-in people: set OIDC_TENANT or OIDC_TENANT_CLAIM.'
    )
  }
  const groups = new Set(groupsOf(claims[rules.groupsClaim]))
  const role = rules.roles.find(([group]) => groups.has(group))?.[1] ?? rules.defaultRole
  return { user, tenant, role }
}

/**
 * Parses `OIDC_ROLES`: comma-separated `group=role` (role admin, agent or viewer), in order.
 * @throws Error naming the bad entry
 */
export function parseRoles(spec: string | undefined): [string, PersonRole][] {
  if (!spec?.trim()) return []
  return spec.split(',').map((entry, index) => {
    const at = entry.lastIndexOf('=')
    const group = entry.slice(0, at).trim()
    const role = entry.slice(at + 1).trim()
    if (at < 1 || !group || !['admin', 'agent', 'viewer'].includes(role)) {
      throw new Error(
        `OIDC_ROLES entry ${index + 1} must be group=role with role admin, agent or viewer`
      )
    }
    return [group, role as PersonRole]
  })
}
