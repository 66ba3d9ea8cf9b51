/**
 * @module http/deps
 * What the app is built from; tests pass their own.
 */
import type { Logger } from 'pino'
import type { SessionStore } from '../store/types.js'
import type { KeyTable } from './auth.js'
import type { Metrics } from './metrics.js'

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
  /** Heartbeat comments on event streams, every this many ms. */
  sseHeartbeatMs: number
  /** Aborted at shutdown: event streams close. */
  shutdownSignal?: AbortSignal
  /** Where metrics go; a fresh registry when absent. */
  metrics?: Metrics
}
