/**
 * @module http/origin-headers
 * What a delivery's headers say of its origin: `X-Agent-User`, `X-Agent-Host`, `X-Agent-Repo`,
 * `X-Agent-Branch` (the hook forwarder, the settings snippet and `agent-todos observe` send
 * them). A caller that is a verified person (`AUTH_KEYS_FILE` entries' `user`, a personal token, a
 * sign-in) fixes the user, marked verified: it goes first, so no one posts as someone else.
 */
import type { Context } from 'hono'
import type { OriginHints } from '../core/origin.js'
import type { AppEnv } from './context.js'
import { requestHeader } from './route-input.js'

/** The origin headers and the field each fills. */
export const ORIGIN_HEADERS = {
  'x-agent-user': 'user',
  'x-agent-host': 'host',
  'x-agent-repo': 'repo',
  'x-agent-branch': 'branch',
} as const

/**
 * The request's origin hints, strongest first: the key's own user, then the headers.
 * @param c - the request's context
 */
export function originHintsOf(c: Context<AppEnv>): OriginHints[] {
  const headers: OriginHints = {}
  for (const [name, field] of Object.entries(ORIGIN_HEADERS)) {
    const value = requestHeader(c, name)
    if (value !== undefined) headers[field] = value
  }
  // keyUser is verified (a keys-file user, a token's, a sign-in's): never a header
  const keyUser = c.get('keyUser')
  return keyUser ? [{ user: keyUser, verified: true }, headers] : [headers]
}
