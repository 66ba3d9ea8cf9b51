/**
 * @module config
 * The environment, parsed once. Nothing else reads `process.env`.
 */
import { z } from 'zod'

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  STORE: z.enum(['sqlite', 'memory', 'redis']).default('sqlite'),
  SQLITE_PATH: z.string().min(1).default('./data/agent-todos.db'),
  SQLITE_SYNC: z.enum(['normal', 'full']).default('normal'),
  REDIS_URL: z.string().optional(),
  REDIS_CLUSTER_NODES: z.string().optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'letters, digits and . _ : - only (no braces)')
    .default('at'),
  AUTH_KEYS: z.string().optional(),
  AUTH_KEYS_FILE: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  MAX_ITEMS: positiveInt(500),
  MAX_CONTENT_LENGTH: positiveInt(10_000),
  MAX_TOOL_CALLS: z.coerce.number().int().min(1).max(128).default(128),
  MAX_SESSIONS_PER_TENANT: z.coerce.number().int().min(0).default(0),
  MAX_STREAMS_PER_TENANT: z.coerce.number().int().min(0).default(100),
  MAX_STREAM_BACKLOG_BYTES: z.coerce.number().int().min(65_536).default(4_194_304),
  CORS_ORIGINS: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SESSION_TTL_SECONDS: positiveInt(604_800),
  STALE_AFTER_SECONDS: positiveInt(900),
  BODY_LIMIT_BYTES: positiveInt(1_048_576),
  HISTORY_LIMIT: positiveInt(50),
  SHUTDOWN_GRACE_MS: positiveInt(10_000),
})

export type Config = z.infer<typeof EnvSchema>

/**
 * Parses the environment.
 * @param env - usually `process.env`
 * @throws Error listing every invalid variable
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''))
  const result = EnvSchema.safeParse(present)
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`)
  }
  return result.data
}
