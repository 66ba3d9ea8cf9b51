/**
 * @module http/deps
 * What the app is built from; tests pass their own.
 */
import type { Logger } from 'pino'
import type { SessionStore } from '../store/types.js'
import type { KeyTable } from './auth.js'

export interface AppDeps {
  store: SessionStore
  logger: Logger
  keys: KeyTable
  bodyLimitBytes: number
  staleAfterMs: number
  historyLimit: number
  idempotencyTtlMs: number
  now: () => number
  /** True once shutdown began: readiness answers 503. */
  isDraining: () => boolean
  /** The committed OpenAPI document served at /openapi.json; null to generate it. */
  openapiDocument: string | null
}
