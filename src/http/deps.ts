/**
 * @module http/deps
 * What the app is built from; tests pass their own.
 */
import type { Logger } from 'pino'
import type { SessionStore } from '../store/types.js'
import type { Resolver } from '../alerts/target.js'
import type { KeyTable } from './auth.js'
import type { SignInSettings } from './people/settings.js'
import { countRound, type Metrics } from './metrics.js'
import type { WriteHealth } from './store-health.js'
import type { ServiceDeps } from '../service/deps.js'
import { limitsOf, type ServiceLimits } from '../service/limits.js'

export { DEFAULT_LIMITS, limitsOf, type ServiceLimits } from '../service/limits.js'

/** What the webhook routes need besides the store. */
export interface WebhookSettings {
  /** `WEBHOOK_ALLOW_PRIVATE`. */
  allowPrivate: boolean
  /** `MAX_WEBHOOKS_PER_TENANT`. */
  maxPerTenant: number
  /** `PUBLIC_URL`, or null. */
  publicUrl: string | null
  /** How names resolve (tests pass their own). */
  resolver?: Resolver
  /** Tells the delivery worker something is due now. */
  wake?: () => void
}

/** Answering agents from elsewhere (docs/decisions.md). */
export interface DecisionSettings {
  /** `DECISION_WAIT_SECONDS` in ms: the hold where the agent shows its own prompt meanwhile. */
  waitMs: number
  /** `DECISION_HOLD_SECONDS` in ms: the hold where it shows none until the hook returns. */
  holdMs: number
  /** `DECISIONS_OPEN`: open access may answer, from loopback. */
  open: boolean
  /** Slack interactivity; absent: no buttons, and the route answers 404. */
  slack?: SlackSettings
}

/** `SLACK_SIGNING_SECRET`, `SLACK_BOT_TOKEN`, `SLACK_API_URL`. */
export interface SlackSettings {
  signingSecret: string
  botToken?: string
  /** Slack's Web API base URL (a local stand-in in tests). */
  apiUrl?: string
}

/** The decision defaults: 300 s and 20 s holds, no open answers. */
export const DEFAULT_DECISIONS: DecisionSettings = { waitMs: 300_000, holdMs: 20_000, open: false }

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
  /** Event streams gather changes this long before sending them (default 100 ms). */
  sseFlushMs?: number
  /** What one stream topic may write per second before its windows lengthen (default 64 MiB). */
  sseFanoutBytesPerSecond?: number
  /** Aborted at shutdown: event streams close. */
  shutdownSignal?: AbortSignal
  /** Where metrics go; a fresh registry when absent. */
  metrics?: Metrics
  /** Caps on lists, rounds and sessions; defaults when absent. */
  limits?: Partial<ServiceLimits>
  /**
   * Writes (every method but GET and HEAD) per minute per tenant; 0 or absent turns the limit
   * off. The counters are the store's shared ones when it has them (Redis: one budget for the
   * fleet), else in process.
   */
  rateLimitPerMinute?: number
  /** Reads (GET, HEAD) per minute per tenant, a budget of their own; 0 or absent: off. */
  readRateLimitPerMinute?: number
  /** Origins allowed to call the API from a browser; none when empty. */
  corsOrigins?: string[]
  /**
   * Host names a loopback listener answers to besides the loopback names (`ALLOWED_HOSTS`, and
   * `PUBLIC_URL`'s host): a reverse proxy on the same machine passes its public name.
   */
  allowedHosts?: string[]
  /** Webhook settings (docs/configuration.md, WEBHOOK_*); defaults when absent. */
  webhooks?: WebhookSettings
  /** Decision points and answers (docs/decisions.md); defaults when absent. */
  decisions?: DecisionSettings
  /** How long audit entries are kept (`AUDIT_TTL_DAYS`, ms); 90 days when absent. */
  auditTtlMs?: number
  /** Sign-in with OpenID Connect (docs/people.md); absent: keys and tokens only. */
  signIn?: SignInSettings
  /** Set by createApp: whether the store's last write failed (readiness). */
  writeHealth?: WriteHealth
}

/**
 * The use cases' dependencies (service/deps) of the app's: the same store and clock, the caps in
 * force, and the metrics as hooks.
 * @param deps - the app's dependencies (with the metrics createApp made)
 */
export function serviceDepsOf(deps: AppDeps): ServiceDeps {
  const metrics = deps.metrics
  return {
    store: deps.store,
    now: deps.now,
    limits: limitsOf(deps),
    idempotencyTtlMs: deps.idempotencyTtlMs,
    onRound: metrics && ((outcome) => countRound(metrics, outcome)),
    onEdit: metrics && ((session) => metrics.operatorEdits.inc({ dialect: session.dialect })),
    auditTtlMs: deps.auditTtlMs,
    onAuditError: (err, entry) =>
      deps.logger.error({ err, action: entry.action, tenant: entry.tenant }, 'audit entry lost'),
  }
}
