/**
 * @module http/people/session-cookie
 * The sign-in cookie (docs/people.md): `HttpOnly`, `SameSite=Lax`, `Secure` when `PUBLIC_URL` is
 * https (then named with the `__Host-` prefix, so no subdomain can set it), sealed
 * (`http/people/seal`), living `AUTH_SESSION_HOURS`. It holds the person (user, tenant, role), a
 * session id (the CSRF token is its HMAC) and its expiry; nothing is kept on the server.
 */
import { randomBytes } from 'node:crypto'
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import type { PersonRole } from '../../service/people/claims.js'
import type { PendingLogin } from '../../service/people/oidc.js'
import type { CookieSession } from '../auth.js'
import type { AppEnv } from '../context.js'
import { csrfTokenOf, deriveKey, sealer } from './seal.js'

/** What the cookie settings need. */
export interface CookieSettings {
  /** `AUTH_SESSION_SECRET`. */
  secret: string
  /** `AUTH_SESSION_HOURS`. */
  hours: number
  /** `PUBLIC_URL`: https makes the cookies Secure. */
  publicUrl: string
}

/** The sealed session's fields. */
interface SealedSession {
  sid: string
  u: string
  t: string
  r: PersonRole
  /** Epoch ms. */
  exp: number
}

const ROLES = new Set(['admin', 'agent', 'viewer'])

const isSession = (value: unknown): value is SealedSession => {
  const v = value as SealedSession | null
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.sid === 'string' &&
    typeof v.u === 'string' &&
    typeof v.t === 'string' &&
    ROLES.has(v.r) &&
    typeof v.exp === 'number'
  )
}

/**
 * The sign-in cookies of one service.
 * @param settings - the secret, the lifetime, the public URL
 * @param now - the clock
 */
export function sessionCookies(settings: CookieSettings, now: () => number) {
  const secure = new URL(settings.publicUrl).protocol === 'https:'
  const name = secure ? '__Host-agent-todos' : 'agent-todos-session'
  const loginName = secure ? '__Host-agent-todos-login' : 'agent-todos-login'
  const sessions = sealer(settings.secret, 'session')
  const logins = sealer(settings.secret, 'login')
  const csrfKey = deriveKey(settings.secret, 'csrf')
  const flags = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
  const cookie = (cookieName: string, value: string, maxAgeSeconds: number) =>
    `${cookieName}=${value}; Max-Age=${maxAgeSeconds}; ${flags}`

  return {
    /** The `Set-Cookie` of a new sign-in. */
    signIn(person: { user: string; tenant: string; role: PersonRole }): string {
      const maxAge = Math.round(settings.hours * 3600)
      const sealed: SealedSession = {
        sid: randomBytes(16).toString('base64url'),
        u: person.user,
        t: person.tenant,
        r: person.role,
        exp: now() + maxAge * 1000,
      }
      return cookie(name, sessions.seal(sealed), maxAge)
    },
    /** The `Set-Cookie` that ends it. */
    signOut: () => cookie(name, '', 0),
    /**
     * The signed-in person of a request: null without the cookie, `'invalid'` for one that
     * does not open or has expired.
     */
    read(c: Context<AppEnv>): CookieSession | 'invalid' | null {
      const text = getCookie(c, name)
      if (text === undefined) return null
      const value = sessions.open(text)
      if (!isSession(value) || value.exp <= now()) return 'invalid'
      return {
        tenant: value.t,
        role: value.r,
        user: value.u,
        via: 'oidc',
        csrfToken: csrfTokenOf(csrfKey, value.sid),
      }
    },
    /** The `Set-Cookie` of a pending sign-in (ten minutes; read by `/auth/callback` only). */
    pending: (login: PendingLogin) =>
      `${loginName}=${logins.seal(login)}; Max-Age=600; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
    /** The `Set-Cookie` that drops the pending sign-in. */
    pendingDone: () => cookie(loginName, '', 0),
    /** The pending sign-in of this browser, or null. */
    readPending(c: Context<AppEnv>): PendingLogin | null {
      const text = getCookie(c, loginName)
      const value = text === undefined ? null : (logins.open(text) as PendingLogin | null)
      return value && typeof value.state === 'string' && typeof value.verifier === 'string'
        ? value
        : null
    },
  }
}

export type SessionCookies = ReturnType<typeof sessionCookies>
