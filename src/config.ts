/**
 * @module config
 * The environment, parsed once into typed values (lists split, key specs parsed, caps checked
 * against the ceilings the request schemas allow). Nothing else reads `process.env`.
 */
import { z } from 'zod'
import { KEY_PREFIX_PATTERN, TENANT_PATTERN } from './core/ids.js'
import { parseRoles } from './service/people/claims.js'
import type { SignInSettings } from './http/people/settings.js'
import { LIMIT_CEILINGS } from './core/limits.js'
import { parseAuthKeys, type KeyTable } from './http/auth.js'
import { DEFAULT_LIMITS, type DecisionSettings, type ServiceLimits } from './http/deps.js'
import { parseRetrySchedule } from './alerts/retry-schedule.js'

/**
 * A number as a person writes it in decimal (`80`, `-1`, `80.5`, spaces around): anything else
 * (`0x10`, `1e3`, `Infinity`) is not a number here, though JavaScript's `Number()` reads it.
 */
const decimalNumber = () =>
  z.preprocess(
    (value) =>
      typeof value === 'string' && !/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(value.trim())
        ? Number.NaN
        : value,
    z.coerce.number({ error: 'Invalid input: expected number, in decimal digits' })
  )
const wholeNumber = () => decimalNumber().pipe(z.number().int())
const int = (min: number, max: number, fallback: number) =>
  decimalNumber().pipe(z.number().int().min(min).max(max)).default(fallback)
const positiveInt = (fallback: number) =>
  decimalNumber().pipe(z.number().int().positive()).default(fallback)

/** A comma-separated list: entries trimmed, empty ones dropped. */
const list = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
  )

const EnvSchema = z
  .object({
    PORT: int(0, 65535, 8080),
    // unset: `listenHost` decides (all interfaces with keys, loopback in open access)
    HOST: z.string().optional(),
    STORE: z.enum(['sqlite', 'memory', 'redis', 'postgres']).default('sqlite'),
    SQLITE_PATH: z.string().min(1).default('./data/agent-todos.db'),
    SQLITE_SYNC: z.enum(['normal', 'full']).default('normal'),
    SQLITE_CHECKPOINTS: z.enum(['thread', 'commit']).default('thread'),
    REDIS_URL: z.string().optional(),
    DATABASE_URL: z.string().optional(),
    PG_POOL_SIZE: int(1, 1000, 10),
    REDIS_CLUSTER_NODES: list,
    REDIS_KEY_PREFIX: z
      .string()
      .regex(KEY_PREFIX_PATTERN, 'letters, digits and . _ : - only (no braces)')
      .default('at'),
    AUTH_KEYS: z
      .string()
      .optional()
      .transform((spec, ctx): KeyTable => {
        try {
          return parseAuthKeys(spec)
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message })
          return z.NEVER
        }
      }),
    AUTH_KEYS_FILE: z.string().optional(),
    RATE_LIMIT_PER_MINUTE: wholeNumber().pipe(z.number().min(0)).default(0),
    READ_RATE_LIMIT_PER_MINUTE: wholeNumber().pipe(z.number().min(0)).default(0),
    MAX_STREAMS_PER_TENANT: wholeNumber().pipe(z.number().min(0)).default(100),
    MAX_STREAM_BACKLOG_BYTES: wholeNumber().pipe(z.number().min(65_536)).default(4_194_304),
    MAX_ITEMS: int(1, LIMIT_CEILINGS.maxItems, DEFAULT_LIMITS.maxItems),
    MAX_CONTENT_LENGTH: int(1, LIMIT_CEILINGS.maxContentLength, DEFAULT_LIMITS.maxContentLength),
    // an item without metadata is 2 levels deep (the item, its `blocks` array)
    MAX_JSON_DEPTH: int(2, LIMIT_CEILINGS.maxJsonDepth, DEFAULT_LIMITS.maxJsonDepth),
    MAX_SESSION_BYTES: int(1024, LIMIT_CEILINGS.maxSessionBytes, DEFAULT_LIMITS.maxSessionBytes),
    MAX_TOOL_CALLS: int(1, LIMIT_CEILINGS.maxToolCalls, DEFAULT_LIMITS.maxToolCalls),
    MAX_SESSIONS_PER_TENANT: wholeNumber()
      .pipe(z.number().min(0))
      .default(DEFAULT_LIMITS.maxSessionsPerTenant),
    CORS_ORIGINS: list,
    ALLOWED_HOSTS: list,
    PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    SESSION_TTL_SECONDS: positiveInt(604_800),
    STALE_AFTER_SECONDS: positiveInt(900),
    BODY_LIMIT_BYTES: positiveInt(1_048_576),
    HISTORY_LIMIT: positiveInt(50),
    SHUTDOWN_GRACE_MS: positiveInt(10_000),
    WEBHOOK_ALLOW_PRIVATE: z
      .enum(['true', 'false'], { error: 'true or false' })
      .default('false')
      .transform((flag) => flag === 'true'),
    WEBHOOK_TIMEOUT_MS: int(100, 120_000, 10_000),
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .optional()
      .transform((spec, ctx): number[] => {
        try {
          return parseRetrySchedule(spec)
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message })
          return z.NEVER
        }
      }),
    MAX_WEBHOOKS_PER_TENANT: int(0, 10_000, 20),
    // decisions (docs/decisions.md)
    DECISION_WAIT_SECONDS: int(1, 3600, 300),
    DECISION_HOLD_SECONDS: int(1, 600, 20),
    DECISIONS_OPEN: z
      .enum(['true', 'false'], { error: 'true or false' })
      .default('false')
      .transform((flag) => flag === 'true'),
    SLACK_SIGNING_SECRET: z.string().min(8).optional(),
    SLACK_BOT_TOKEN: z.string().min(8).optional(),
    SLACK_API_URL: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
    // people (docs/people.md): sign-in with OpenID Connect, the sign-in cookie, the audit trail
    OIDC_ISSUER: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
    OIDC_CLIENT_ID: z.string().optional(),
    OIDC_CLIENT_SECRET: z.string().optional(),
    OIDC_CLIENT_SECRET_FILE: z.string().optional(),
    OIDC_SCOPES: z.string().default('openid email profile'),
    OIDC_USER_CLAIM: z.string().min(1).default('email'),
    OIDC_TENANT: z.string().regex(TENANT_PATTERN, 'a tenant name').optional(),
    OIDC_TENANT_CLAIM: z.string().min(1).optional(),
    OIDC_GROUPS_CLAIM: z.string().min(1).default('groups'),
    OIDC_ROLES: z
      .string()
      .optional()
      .transform((spec, ctx) => {
        try {
          return parseRoles(spec)
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message })
          return z.NEVER
        }
      }),
    OIDC_DEFAULT_ROLE: z.enum(['admin', 'agent', 'viewer']).default('viewer'),
    AUTH_SESSION_SECRET: z.string().min(32, 'at least 32 characters').optional(),
    AUTH_SESSION_HOURS: decimalNumber()
      .pipe(
        z
          .number()
          .positive()
          .max(24 * 90)
      )
      .default(12),
    AUDIT_TTL_DAYS: positiveInt(90),
  })
  .transform((env) => ({
    ...env,
    // the service counts in milliseconds; the environment in seconds
    SESSION_TTL_MS: env.SESSION_TTL_SECONDS * 1000,
    STALE_AFTER_MS: env.STALE_AFTER_SECONDS * 1000,
  }))

export type Config = z.infer<typeof EnvSchema>

/**
 * The listen address: `HOST`, else `0.0.0.0` with keys and `127.0.0.1` in open access (docs/configuration.md),
 * so that a service anyone may use without a key is not on the network unless `HOST` says so.
 * @param config - the parsed configuration
 * @param access - whether the service runs in open access (no keys from `AUTH_KEYS` or its file)
 */
export function listenHost(config: Config, access: { openAccess: boolean }): string {
  return config.HOST ?? (access.openAccess ? '127.0.0.1' : '0.0.0.0')
}

/**
 * The names the service answers to besides the loopback names (on a loopback socket, and on every
 * socket in open access): `ALLOWED_HOSTS` and the host of `PUBLIC_URL` (a reverse proxy on the
 * same machine passes its public name).
 * @param config - the parsed configuration
 */
export function allowedHosts(config: Config): string[] {
  const hosts = [...config.ALLOWED_HOSTS]
  if (config.PUBLIC_URL) hosts.push(new URL(config.PUBLIC_URL).hostname)
  return hosts
}

/**
 * Parses the environment.
 * @param env - usually `process.env`
 * @throws Error listing every invalid variable
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // set to nothing (or only spaces) is unset, as a shell's `PORT= npm start` means
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value === undefined || value.trim() !== '')
  )
  const result = EnvSchema.safeParse(present)
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`)
  }
  return result.data
}

/**
 * The caps the configuration sets, as the app takes them.
 * @param config - the parsed configuration
 */
export function serviceLimits(config: Config): ServiceLimits {
  return {
    maxItems: config.MAX_ITEMS,
    maxContentLength: config.MAX_CONTENT_LENGTH,
    maxJsonDepth: config.MAX_JSON_DEPTH,
    maxSessionBytes: config.MAX_SESSION_BYTES,
    maxToolCalls: config.MAX_TOOL_CALLS,
    maxSessionsPerTenant: config.MAX_SESSIONS_PER_TENANT,
    maxStreamsPerTenant: config.MAX_STREAMS_PER_TENANT,
    maxStreamBacklogBytes: config.MAX_STREAM_BACKLOG_BYTES,
  }
}

/**
 * The decision settings (docs/decisions.md): the two holds in ms, `DECISIONS_OPEN`, and Slack's
 * interactivity when `SLACK_SIGNING_SECRET` is set.
 * @param config - the parsed environment
 */
export function decisionSettings(config: Config): DecisionSettings {
  return {
    waitMs: config.DECISION_WAIT_SECONDS * 1000,
    holdMs: config.DECISION_HOLD_SECONDS * 1000,
    open: config.DECISIONS_OPEN,
    ...(config.SLACK_SIGNING_SECRET
      ? {
          slack: {
            signingSecret: config.SLACK_SIGNING_SECRET,
            ...(config.SLACK_BOT_TOKEN ? { botToken: config.SLACK_BOT_TOKEN } : {}),
            ...(config.SLACK_API_URL ? { apiUrl: config.SLACK_API_URL } : {}),
          },
        }
      : {}),
  }
}

/**
 * Sign-in with OpenID Connect as the app takes it, or undefined when `OIDC_ISSUER` is not set.
 * @param config - the parsed configuration
 * @param readFile - reads `OIDC_CLIENT_SECRET_FILE` (tests pass their own)
 * @throws Error naming what sign-in lacks (client id, session secret, PUBLIC_URL)
 */
export function signInSettings(
  config: Config,
  readFile: (path: string) => string
): SignInSettings | undefined {
  if (!config.OIDC_ISSUER) return undefined
  const missing = [
    !config.OIDC_CLIENT_ID && 'OIDC_CLIENT_ID',
    !config.AUTH_SESSION_SECRET && 'AUTH_SESSION_SECRET (32+ characters)',
    !config.PUBLIC_URL && 'PUBLIC_URL (the redirect URI is PUBLIC_URL/auth/callback)',
  ].filter(Boolean)
  if (missing.length > 0) {
    throw new Error(`invalid configuration:\n  OIDC_ISSUER is set; set also ${missing.join(', ')}`)
  }
  const secret =
    config.OIDC_CLIENT_SECRET ??
    (config.OIDC_CLIENT_SECRET_FILE ? readFile(config.OIDC_CLIENT_SECRET_FILE).trim() : undefined)
  const publicUrl = config.PUBLIC_URL!
  return {
    oidc: {
      issuer: config.OIDC_ISSUER,
      clientId: config.OIDC_CLIENT_ID!,
      clientSecret: secret || undefined,
      scopes: config.OIDC_SCOPES,
      redirectUri: `${publicUrl.replace(/\/+$/, '')}/auth/callback`,
      userClaim: config.OIDC_USER_CLAIM,
      tenant: config.OIDC_TENANT,
      tenantClaim: config.OIDC_TENANT_CLAIM,
      groupsClaim: config.OIDC_GROUPS_CLAIM,
      roles: config.OIDC_ROLES,
      defaultRole: config.OIDC_DEFAULT_ROLE,
    },
    cookies: {
      secret: config.AUTH_SESSION_SECRET!,
      hours: config.AUTH_SESSION_HOURS,
      publicUrl,
    },
  }
}
