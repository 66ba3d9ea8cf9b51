/**
 * @module http/people
 * People (docs/people.md): personal tokens, the audit trail, and how a request's caller is
 * recognised by a token (`tokenAuth`). The sign-in (OpenID Connect) is `http/people/oidc`.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { tokenHash } from '../../service/people/tokens.js'
import type { SessionStore } from '../../store/types.js'
import type { Context } from 'hono'
import type { PeopleAuth, Principal } from '../auth.js'
import { createOidc } from '../../service/people/oidc.js'

export type { SignInSettings } from './settings.js'
import { registerSignInOff, registerSignInRoutes } from './oidc-routes.js'
import { sessionCookies } from './session-cookie.js'
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
 * People for one app: how requests are recognised besides keys (personal tokens; with sign-in
 * configured, the sign-in cookie and its CSRF rule), and the routes (tokens, audit, sign-in).
 * @param deps - the app's dependencies
 */
export function createPeople(deps: AppDeps) {
  const signIn = deps.signIn
  const cookies = signIn && sessionCookies(signIn.cookies, deps.now)
  const ownOrigin = ownOriginOf(signIn?.cookies.publicUrl)
  const auth: PeopleAuth = {
    token: tokenAuth(deps.store),
    ...(cookies ? { session: (c) => cookies.read(c), ownOrigin } : {}),
  }
  return {
    auth,
    /** Registers the token and audit routes, and the sign-in's. */
    register(app: OpenAPIHono<AppEnv>) {
      const service = serviceDepsOf(deps)
      app.openapiRoutes(
        [createToken, listTokens, revokeToken, listAuditTrail].map((op) => op(service))
      )
      if (signIn && cookies) {
        const oidc = createOidc(signIn.oidc, deps.now)
        registerSignInRoutes(app, { oidc, cookies, audit: service, ownOrigin })
      } else {
        registerSignInOff(app)
      }
    },
  }
}

/**
 * Whether a request's Origin is the service's own: `PUBLIC_URL`'s origin, or (without one) the
 * origin the request was sent to. A request without Origin (a same-origin GET, a script) passes
 * here; a cookie write needs the CSRF token besides.
 */
function ownOriginOf(publicUrl: string | undefined) {
  const own = publicUrl ? new URL(publicUrl).origin : undefined
  return (c: Context<AppEnv>) => {
    const origin = c.req.header('origin')
    if (origin === undefined) return true
    return origin === (own ?? new URL(c.req.url).origin)
  }
}
