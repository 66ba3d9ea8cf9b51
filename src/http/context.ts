/**
 * @module http/context
 * The hono context of every handler: the variables it can read (`c.get`), set by the request
 * id, auth and logging middleware.
 */
import type { Logger } from 'pino'
import type { RequestIdVariables } from 'hono/request-id'

/** What a key may do: `agent` reads and writes, `viewer` only reads. */
export type Role = 'agent' | 'viewer'

export interface AppEnv {
  Variables: RequestIdVariables & {
    tenant: string
    role: Role
    logger: Logger
  }
}
