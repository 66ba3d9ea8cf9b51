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
import { ROLES, type AppEnv, type Role } from './context.js'
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

/**
 * Authenticates `/v1` requests and sets `tenant` and `role`. Keys are compared by their sha256,
 * so the comparison's timing says nothing about a key's characters.
 * @param keys - the key table; empty for open access
 * @param options - `viewerWrites: 'let-route-decide'` for a route whose POSTs may be reads (MCP)
 */
export function authenticate(
  keys: KeyTable,
  options: { viewerWrites?: 'refuse' | 'let-route-decide' } = {}
): MiddlewareHandler<AppEnv> {
  if (keys.size === 0) {
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
  return async function authenticate(c, next) {
    let passed = false
    try {
      return await bearer(c, async () => {
        passed = true
        const write = budgetOf(c.req.method) === 'write'
        if (c.get('role') === 'viewer' && write && options.viewerWrites !== 'let-route-decide') {
          throw new ServiceError('forbidden', 'This key is read-only (role viewer).')
        }
        await next()
      })
    } catch (error) {
      // hono's bearerAuth refuses with an HTTPException carrying its WWW-Authenticate header
      if (passed || !(error instanceof HTTPException)) throw error
      return bearerRefusal(c, error)
    }
  }
}

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
