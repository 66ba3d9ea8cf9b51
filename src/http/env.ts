/**
 * @module http/env
 * The context variables every handler can read.
 */
import type { Logger } from 'pino'
import type { RequestIdVariables } from 'hono/request-id'
import type { Role } from './auth.js'

export interface AppEnv {
  Variables: RequestIdVariables & {
    tenant: string
    role: Role
    logger: Logger
  }
}
