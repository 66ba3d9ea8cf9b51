/**
 * @module http/context
 * The hono context of every handler: the variables it can read (`c.get`), set by the request
 * id, auth and logging middleware.
 */
import type { Logger } from 'pino'
import type { RequestIdVariables } from 'hono/request-id'

/** What a key may do: `admin` all an agent may and the tenant's webhooks, `agent` reads and
 * writes, `viewer` only reads. */
export type Role = 'admin' | 'agent' | 'viewer'

/** The roles, most powerful first. */
export const ROLES = ['admin', 'agent', 'viewer'] as const satisfies readonly Role[]

export interface AppEnv {
  Variables: RequestIdVariables & {
    tenant: string
    role: Role
    /** The user an `AUTH_KEYS_FILE` key belongs to, when it names one: it wins over headers. */
    keyUser?: string
    logger: Logger
  }
}
