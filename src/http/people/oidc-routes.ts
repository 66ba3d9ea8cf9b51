/**
 * @module http/people/oidc-routes
 * The sign-in's browser routes (docs/people.md), outside `/v1` and the OpenAPI document:
 * - `GET /auth/login?return_to=/…` → 302 to the identity provider, the pending sign-in (state,
 *   nonce, PKCE verifier) in a sealed ten-minute cookie (so any instance ends it);
 * - `GET /auth/callback` → the code exchanged and the ID token checked (service/people/oidc),
 *   then the sealed sign-in cookie and a 302 back; any refusal is a 401 problem and sets nothing;
 * - `POST /auth/logout` → the cookie cleared, 204.
 * Sign-ins and sign-outs are in the audit trail.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { recordAudit, type AuditDeps } from '../../service/audit.js'
import type { Oidc } from '../../service/people/oidc.js'
import { ServiceError } from '../../service/errors.js'
import type { AppEnv } from '../context.js'
import { problem } from '../problem.js'
import type { SessionCookies } from './session-cookie.js'

/** What the sign-in routes run on. */
export interface SignInRoutesDeps {
  oidc: Oidc
  cookies: SessionCookies
  audit: AuditDeps
  /** Whether a request's Origin is the service's own (or absent). */
  ownOrigin: (c: Context<AppEnv>) => boolean
}

/** A path of this service to return to: `/…`, never `//host` or a URL elsewhere. */
const safeReturn = (value: string | undefined) =>
  value && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) ? value : '/'

const NO_STORE = { 'Cache-Control': 'no-store' }

/**
 * Registers `/auth/login`, `/auth/callback` and `/auth/logout`.
 * @param app - the app
 * @param deps - the flow, the cookies, the audit
 */
export function registerSignInRoutes(app: OpenAPIHono<AppEnv>, deps: SignInRoutesDeps) {
  app.get('/auth/login', async (c) => {
    const { url, pending } = await deps.oidc.start(safeReturn(c.req.query('return_to')))
    c.header('Set-Cookie', deps.cookies.pending(pending), { append: true })
    c.header('Cache-Control', 'no-store')
    return c.redirect(url.href, 302)
  })

  app.get('/auth/callback', async (c) => {
    const pending = deps.cookies.readPending(c)
    // whatever happens next, this sign-in attempt is over
    const done = { 'Set-Cookie': deps.cookies.pendingDone(), ...NO_STORE }
    if (!pending) {
      return problem(
        c,
        'sign-in-refused',
        'No sign-in of this browser is under way (or it is older than ten minutes): start again at /auth/login.',
        { headers: done }
      )
    }
    let person
    try {
      person = await deps.oidc.finish(new URL(c.req.url), pending)
    } catch (error) {
      if (error instanceof ServiceError) {
        return problem(c, error.code, error.message, { headers: { ...error.headers, ...done } })
      }
      throw error
    }
    await recordAudit(deps.audit, {
      tenant: person.tenant,
      user: person.user,
      via: 'oidc',
      action: 'auth.login',
      target: null,
      detail: { role: person.role },
    })
    c.header('Set-Cookie', deps.cookies.pendingDone(), { append: true })
    c.header('Set-Cookie', deps.cookies.signIn(person), { append: true })
    c.header('Cache-Control', 'no-store')
    return c.redirect(pending.returnTo, 302)
  })

  app.post('/auth/logout', async (c) => {
    if (!deps.ownOrigin(c)) {
      return problem(c, 'csrf-refused', "Signing out takes the service's own Origin.")
    }
    const session = deps.cookies.read(c)
    if (session && session !== 'invalid') {
      await recordAudit(deps.audit, {
        tenant: session.tenant,
        user: session.user,
        via: 'oidc',
        action: 'auth.logout',
        target: null,
      })
    }
    return c.body(null, 204, { 'Set-Cookie': deps.cookies.signOut(), ...NO_STORE })
  })
}

/** The answer of a sign-in route when sign-in is not configured. */
export function registerSignInOff(app: OpenAPIHono<AppEnv>) {
  const off = (c: Context<AppEnv>) =>
    problem(
      c,
      'sign-in-not-configured',
      'Sign-in is not configured here (OIDC_ISSUER, OIDC_CLIENT_ID, AUTH_SESSION_SECRET, PUBLIC_URL).'
    )
  app.get('/auth/login', off)
  app.get('/auth/callback', off)
  app.post('/auth/logout', off)
}
