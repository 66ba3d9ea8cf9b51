/**
 * @module agent-todos
 * The package root: the service as a library. Importing it starts nothing and writes nothing;
 * the server is the `agent-todos-server` bin (`dist/server.js`, `npm start`).
 *
 * @example
 * ```ts
 * import { createApp, createMemoryStore, parseAuthKeys } from 'agent-todos'
 * import pino from 'pino'
 *
 * const store = createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: Date.now })
 * const app = createApp({
 *   store,
 *   logger: pino({ level: 'silent' }),
 *   keys: parseAuthKeys(undefined),
 *   bodyLimitBytes: 1 << 20,
 *   staleAfterMs: 900_000,
 *   historyLimit: 50,
 *   idempotencyTtlMs: 86_400_000,
 *   now: Date.now,
 *   isDraining: () => false,
 *   openapiDocument: null,
 *   sseHeartbeatMs: 15_000,
 * })
 * const res = await app.request('/v1/tools?dialect=s03&format=anthropic')
 * ```
 */
export { createApp, OPENAPI_CONFIG, type App } from './http/app.js'
export type { AppDeps, ServiceLimits } from './http/deps.js'
export { DEFAULT_LIMITS } from './http/deps.js'
export { parseAuthKeys, loadKeysFile } from './http/auth.js'
export { createMetrics } from './http/metrics.js'
export { generateOpenApi } from './http/openapi.js'

export { openStore, type StoreConfig } from './store/index.js'
export { createMemoryStore } from './store/memory.js'
export { createSqliteStore, type SqliteOptions } from './store/sqlite.js'
export {
  createRedisStore,
  type RedisSessionStore,
  type RedisStoreOptions,
} from './store/redis/index.js'
export {
  ConflictRetryError,
  StoreUnavailableError,
  type ChangeEvent,
  type ChangeListener,
  type IdempotencyClaim,
  type IdempotencyRecord,
  type ListCursor,
  type ListPage,
  type ListQuery,
  type SessionStore,
  type SharedCounters,
  type StoreLogger,
  type StoreOptions,
  type UpdateDecision,
  type Updater,
} from './store/types.js'

export { STATUSES, makeItem, type Item, type Status } from './core/items.js'
export { computeProgress, type Progress } from './core/progress.js'
export type { ReminderPolicy, ReminderSettings } from './core/reminder.js'
export {
  ENDED_OUTCOMES,
  type Ended,
  type EndedOutcome,
  type HistoryEntry,
  type Session,
  type SessionKey,
} from './core/session.js'

export { DEFAULT_DIALECT, DIALECTS, DIALECT_NAMES, getDialect } from './dialects/registry.js'
export {
  applyRound,
  DialectConflictError,
  type RoundOutcome,
  type RoundRequest,
  type ToolCall,
  type ToolResult,
} from './dialects/round.js'
export type { CallContext, CallResult, Dialect, DialectState, ToolSpec } from './dialects/types.js'

export {
  formatTool,
  STRICT_FORMATS,
  TOOL_FORMATS,
  toolInputSchema,
  strictInputSchema,
  type StrictFormat,
  type ToolFormat,
} from './tools/formats.js'
