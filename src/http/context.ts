/**
 * @module http/context
 * The hono context of every handler: the variables it can read (`c.get`), set by the request
 * id, auth and logging middleware.
 */
import type { Logger } from 'pino'
import type { RequestIdVariables } from 'hono/request-id'
import type { Via } from '../core/people.js'

export type { Via } from '../core/people.js'

/** What a key may do: `admin` all an agent may and the tenant's webhooks, `agent` reads and
 * writes, `viewer` only reads. */
export type Role = 'admin' | 'agent' | 'viewer'

/** The roles, most powerful first. */
export const ROLES = ['admin', 'agent', 'viewer'] as const satisfies readonly Role[]

export interface AppEnv {
  Variables: RequestIdVariables & {
    tenant: string
    role: Role
    /**
     * The *verified* person of the request, when there is one: an `AUTH_KEYS_FILE` key's user, a
     * personal token's user, or the signed-in person (OIDC). It wins over the `X-Agent-User`
     * header; whatever a header says is never here.
     */
    keyUser?: string
    /** How the caller was recognised: `key`, `token` (`atk_…`), `oidc` (a sign-in cookie), `open`. */
    via: Via
    /** Signed in (via oidc): the X-CSRF-Token of this sign-in, for `GET /v1/whoami`. */
    csrfToken?: string
    logger: Logger
  }
}
