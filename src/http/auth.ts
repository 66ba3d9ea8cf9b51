/**
 * @module http/auth
 * Bearer keys: each key belongs to one tenant with one role.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import type { Context, MiddlewareHandler } from 'hono'
import { bearerAuth } from 'hono/bearer-auth'
import { HTTPException } from 'hono/http-exception'
import { ROLES, type AppEnv, type Role, type Via } from './context.js'
import { TOKEN_PREFIX } from '../core/people.js'
import { problem, ServiceError } from './problem.js'
import { TENANT_PATTERN } from '../core/ids.js'
import { budgetOf } from './rate-limit.js'

export interface ApiKey {
  tenant: string
  role: Role
  /** The person the key belongs to (`AUTH_KEYS_FILE` only): origins name them, whatever headers say. */
  user?: string
}

/** Keys by the hex sha256 of their secret; empty means open access as tenant `default`. */
export type KeyTable = ReadonlyMap<string, ApiKey>

export const DEFAULT_TENANT = 'default'

/** Hex sha256 of a key's secret. */
export const hashKey = (secret: string) => createHash('sha256').update(secret).digest('hex')

/**
 * Parses `AUTH_KEYS`: comma-separated `tenant:role:key`.
 * @param spec - the variable's value
 * @throws Error naming the bad entry (by position, never by secret)
 */
export function parseAuthKeys(spec: string | undefined): KeyTable {
  const table = new Map<string, ApiKey>()
  if (!spec?.trim()) return table
  spec.split(',').forEach((entry, index) => {
    const [tenant, role, ...rest] = entry.trim().split(':')
    const secret = rest.join(':')
    if (
      !tenant ||
      !TENANT_PATTERN.test(tenant) ||
      !(ROLES as readonly string[]).includes(role) ||
      secret.length < 8
    ) {
      throw new Error(
        `AUTH_KEYS entry ${index + 1} must be tenant:role:key with role admin, agent or viewer and a key of 8+ characters`
      )
    }
    table.set(hashKey(secret), { tenant, role: role as Role })
  })
  return table
}

const KeysFile = z.object({
  keys: z
    .array(
      z.object({
        tenant: z.string().regex(TENANT_PATTERN),
        role: z.enum(ROLES),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, 'the hex sha256 of the key'),
        name: z.string().optional(),
        user: z.string().min(1).max(256).optional(),
      })
    )
    .min(1),
})

/**
 * Reads `AUTH_KEYS_FILE`: `{"keys": [{"tenant", "role", "sha256", "name"?, "user"?}]}`, the
 * sha256 (hex) of each key, so the file holds no secret; `user` names the person a key belongs to. Create an entry with
 * `printf %s "$KEY" | sha256sum`.
 * @param path - the file
 * @throws Error naming the file and what is wrong with it
 */
export function loadKeysFile(path: string): KeyTable {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new Error(`AUTH_KEYS_FILE ${path}: ${(error as Error).message}`, { cause: error })
  }
  const result = KeysFile.safeParse(parsed)
  if (!result.success) {
    const issue = result.error.issues[0]
    throw new Error(`AUTH_KEYS_FILE ${path}: ${issue.path.join('.')}: ${issue.message}`)
  }
  return new Map(
    result.data.keys.map((key) => [
      key.sha256,
      { tenant: key.tenant, role: key.role, ...(key.user ? { user: key.user } : {}) },
    ])
  )
}

/**
 * Finds a key by its secret, comparing the secret's hash with every known hash in constant time
 * (no early exit), so timing tells nothing about which keys exist.
 */
function findKey(known: readonly KnownKey[], token: string): ApiKey | undefined {
  const digest = createHash('sha256').update(token).digest()
  let found: ApiKey | undefined
  for (const { sha256, key } of known) {
    if (timingSafeEqual(digest, sha256) && !found) found = key
  }
  return found
}

/** A key's sha256 as bytes, decoded once rather than on every request. */
interface KnownKey {
  sha256: Buffer
  key: ApiKey
}

/** Who a request is, once recognised (a key, a personal token, a sign-in). */
export interface Principal {
  tenant: string
  role: Role
  /** The verified person; absent for a key without a user. */
  user?: string
  via: Via
}

/** A signed-in person, as the sign-in cookie names them, with what a write must send. */
export interface CookieSession extends Principal {
  /** The X-CSRF-Token a write with this cookie must send. */
  csrfToken: string
}

/** How people are recognised besides keys (docs/people.md); each part optional. */
export interface PeopleAuth {
  /**
   * The owner of a personal token (`atk_…`, looked up in the store by its hash), or null when
   * it is unknown, revoked or expired.
   */
  token?: (secret: string) => Promise<Principal | null>
  /**
   * The signed-in person of the request's sign-in cookie: null without one, `'invalid'` for a
   * cookie that does not unseal or has expired.
   */
  session?: (c: Context<AppEnv>) => CookieSession | 'invalid' | null
  /** Whether a cookie write's Origin is the service's own. */
  ownOrigin?: (c: Context<AppEnv>) => boolean
}

/** The header a write with the sign-in cookie carries (the value `GET /v1/whoami` gives). */
export const CSRF_HEADER = 'x-csrf-token'

/** Routes where a viewer may write: its own personal tokens (their route checks the role). */
const VIEWER_WRITABLE = /^\/v1\/tokens(?:\/|$)/

/** Sets what the rest of the request reads of its caller. */
function setPrincipal(c: Context<AppEnv>, who: Principal) {
  c.set('tenant', who.tenant)
  c.set('role', who.role)
  c.set('via', who.via)
  if (who.user) c.set('keyUser', who.user)
}

/**
 * Authenticates `/v1` requests and sets `tenant`, `role`, `via` and (for a person) `keyUser`.
 * Keys are compared by their sha256, so the comparison's timing says nothing about a key's
 * characters. Only a bearer that starts `atk_` is looked up in the store (a personal token), so a
 * key's request costs what it did; without an Authorization header, the sign-in cookie is read.
 * @param keys - the key table; empty (and no sign-in) for open access
 * @param options - `viewerWrites: 'let-route-decide'` for a route whose POSTs may be reads (MCP);
 *   `people`: tokens and sign-in cookies
 */
export function authenticate(
  keys: KeyTable,
  options: { viewerWrites?: 'refuse' | 'let-route-decide'; people?: PeopleAuth } = {}
): MiddlewareHandler<AppEnv> {
  const people = options.people
  if (keys.size === 0 && !people?.session) {
    return async function openAccess(c, next) {
      c.set('tenant', DEFAULT_TENANT)
      c.set('role', 'agent')
      c.set('via', 'open')
      await next()
    }
  }
  const known = [...keys].map(([sha256, key]) => ({ sha256: Buffer.from(sha256, 'hex'), key }))
  const bearer: MiddlewareHandler<AppEnv> = bearerAuth({
    verifyToken: (token, c) => {
      const key = findKey(known, token)
      if (!key) return false
      c.set('tenant', key.tenant)
      c.set('role', key.role)
      c.set('via', 'key')
      if (key.user) c.set('keyUser', key.user)
      return true
    },
  })
  /** The role rule every way in shares: a viewer reads only. */
  const guarded = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    const write = budgetOf(c.req.method) === 'write'
    if (
      c.get('role') === 'viewer' &&
      write &&
      options.viewerWrites !== 'let-route-decide' &&
      !VIEWER_WRITABLE.test(c.req.path)
    ) {
      const what = c.get('via') === 'key' ? 'This key' : 'This token or sign-in'
      throw new ServiceError('forbidden', `${what} is read-only (role viewer).`)
    }
    await next()
  }
  return async function authenticate(c, next) {
    const header = c.req.header('authorization')
    if (people?.token && header?.startsWith(TOKEN_BEARER)) {
      const who = await people.token(header.slice('Bearer '.length))
      if (!who) return tokenRefusal(c)
      setPrincipal(c, who)
      return guarded(c, next)
    }
    if (header === undefined && people?.session) {
      const session = people.session(c)
      if (session === 'invalid') return sessionRefusal(c)
      if (session) {
        checkCookieWrite(c, session, people)
        setPrincipal(c, session)
        c.set('csrfToken', session.csrfToken)
        return guarded(c, next)
      }
    }
    let passed = false
    try {
      return await bearer(c, async () => {
        passed = true
        await guarded(c, next)
      })
    } catch (error) {
      // hono's bearerAuth refuses with an HTTPException carrying its WWW-Authenticate header
      if (passed || !(error instanceof HTTPException)) throw error
      return bearerRefusal(c, error)
    }
  }
}

/** What starts the Authorization header of a personal token. */
const TOKEN_BEARER = `Bearer ${TOKEN_PREFIX}`

/**
 * A write with the sign-in cookie must come from the service's own page: its Origin, and the
 * X-CSRF-Token of its session (a cross-site form or fetch can send the cookie, never the token).
 * @throws ServiceError `csrf-refused`
 */
function checkCookieWrite(c: Context<AppEnv>, session: CookieSession, people: PeopleAuth) {
  if (budgetOf(c.req.method) !== 'write') return
  if (people.ownOrigin && !people.ownOrigin(c)) {
    throw new ServiceError(
      'csrf-refused',
      "A write with the sign-in cookie needs the service's own Origin header."
    )
  }
  const sent = c.req.header(CSRF_HEADER)
  if (!sent || !sameSecret(sent, session.csrfToken)) {
    throw new ServiceError(
      'csrf-refused',
      'A write with the sign-in cookie needs the X-CSRF-Token that GET /v1/whoami gives.'
    )
  }
}

/** Whether two secrets are equal, compared in constant time. */
function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** The 401 of a personal token that is unknown, revoked or expired. */
const tokenRefusal = (c: Context<AppEnv>) =>
  problem(c, 'unauthorized', 'This personal token is unknown, revoked or expired.', {
    headers: { 'www-authenticate': 'Bearer realm="agent-todos", error="invalid_token"' },
  })

/** The 401 of a sign-in cookie that does not unseal or has expired. */
const sessionRefusal = (c: Context<AppEnv>) =>
  problem(c, 'unauthorized', 'The sign-in has expired or is not valid: sign in again.', {
    headers: { 'www-authenticate': 'Bearer realm="agent-todos"' },
  })

/**
 * The problem answer of a refusal of hono's bearerAuth: 401 without a valid key, 400 for an
 * Authorization header that is not `Bearer <key>`; its WWW-Authenticate header kept.
 */
function bearerRefusal(c: Context<AppEnv>, error: HTTPException): Response {
  const headers: Record<string, string> = {}
  const challenge = error.res?.headers.get('www-authenticate')
  if (challenge) headers['www-authenticate'] = challenge
  const detail =
    error.status === 401
      ? 'A valid Authorization: Bearer <key> header is required.'
      : 'The Authorization header must read "Bearer <key>".'
  return problem(c, 'unauthorized', detail, { status: error.status, headers })
}
