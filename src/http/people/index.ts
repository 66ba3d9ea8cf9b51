/**
 * @module http/people
 * People (SPEC §3 People): personal tokens, the audit trail, and how a request's caller is
 * recognised by a token (`tokenAuth`). The sign-in (OpenID Connect) is `http/people/oidc`.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { tokenHash } from '../../service/people/tokens.js'
import type { SessionStore } from '../../store/types.js'
import type { PeopleAuth, Principal } from '../auth.js'
import type { AppEnv } from '../context.js'
import { serviceDepsOf, type AppDeps } from '../deps.js'
import { listAuditTrail } from './audit-route.js'
import { createToken, listTokens, revokeToken } from './tokens.js'

/**
 * The lookup of a personal token: the store's record by the secret's sha256 (no cache, so a
 * revoke is refused at once on every instance).
 * @param store - the store (its people records)
 */
export function tokenAuth(store: SessionStore) {
  const people = store.people
  if (!people) return undefined
  return async (secret: string): Promise<Principal | null> => {
    const record = await people.findToken(tokenHash(secret))
    if (!record) return null
    return { tenant: record.tenant, role: record.role, user: record.user, via: 'token' }
  }
}

/**
 * How the app recognises people besides keys: personal tokens (when the store keeps them) and,
 * with OpenID Connect configured, the sign-in cookie.
 * @param deps - the app's dependencies
 */
export function peopleAuth(deps: AppDeps): PeopleAuth {
  return { token: tokenAuth(deps.store) }
}

/**
 * Registers the token and audit routes.
 * @param app - the app
 * @param deps - the app's dependencies
 */
export function registerPeopleRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  const service = serviceDepsOf(deps)
  app.openapiRoutes([createToken, listTokens, revokeToken, listAuditTrail].map((op) => op(service)))
}
