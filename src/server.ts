#!/usr/bin/env node
/**
 * @module server
 * The composition root: configuration → store → app → listen → graceful shutdown.
 */
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { serve } from '@hono/node-server'
import pino from 'pino'
import {
  allowedHosts,
  decisionSettings,
  listenHost,
  loadConfig,
  serviceLimits,
  signInSettings,
} from './config.js'
import { auditTtlMs } from './service/audit.js'
import { loadKeysFile } from './http/auth.js'
import { createApp } from './http/app.js'
import { createMetrics } from './http/metrics.js'
import { openStore } from './store/index.js'
import { createServerAlerts } from './http/alerts.js'

const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000

function committedOpenApi(): string | null {
  try {
    return readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8')
  } catch {
    return null
  }
}

/**
 * What the log says about open access: who can reach it, and what a container needs (its own
 * 127.0.0.1 is out of reach of a published port).
 */
function openAccessWarning(host: string): string {
  const names = "localhost, 127.0.0.1, PUBLIC_URL's host and ALLOWED_HOSTS"
  const reach = /^(127\.|::1$|localhost$)/.test(host)
    ? `listening on ${host} only, so only this machine can reach it (in a container: HOST=0.0.0.0, and ALLOWED_HOSTS=<the names people use> unless they use localhost)`
    : `listening on ${host}: anyone who can reach this port can read and edit every session; requests under another Host than ${names} are refused (DNS rebinding)`
  return `AUTH_KEYS is not set: open access, every request acts as tenant "default"; ${reach}. Set AUTH_KEYS to require keys.`
}

async function main() {
  const config = loadConfig(process.env)
  const logger = pino({
    level: config.LOG_LEVEL,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        'key',
        'token',
      ],
      censor: '[redacted]',
    },
  })
  const keys = new Map([
    ...config.AUTH_KEYS,
    ...(config.AUTH_KEYS_FILE ? loadKeysFile(config.AUTH_KEYS_FILE) : []),
  ])
  const signIn = signInSettings(config, (path) => readFileSync(path, 'utf8'))
  // open access: no keys and no sign-in (with sign-in, a request without a credential is refused)
  const openAccess = keys.size === 0 && !signIn
  const host = listenHost(config, { openAccess })
  if (openAccess) logger.warn({ host }, openAccessWarning(host))
  const metrics = createMetrics({ defaultMetrics: true })
  const store = await openStore({
    onConflict: () => metrics.casConflicts.inc(),
    kind: config.STORE,
    sqlitePath: config.SQLITE_PATH,
    sqliteSync: config.SQLITE_SYNC,
    sqliteCheckpoints: config.SQLITE_CHECKPOINTS,
    redisUrl: config.REDIS_URL,
    redisClusterNodes:
      config.REDIS_CLUSTER_NODES.length > 0 ? config.REDIS_CLUSTER_NODES : undefined,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    databaseUrl: config.DATABASE_URL,
    pgPoolSize: config.PG_POOL_SIZE,
    logger,
    ttlMs: config.SESSION_TTL_MS,
    historyLimit: config.HISTORY_LIMIT,
    now: Date.now,
    // alert transitions go into the outbox with each write (docs/alerts.md)
    staleAfterMs: config.STALE_AFTER_MS,
  })
  const alertWorker = createServerAlerts({
    store,
    metrics,
    logger,
    now: Date.now,
    staleAfterMs: config.STALE_AFTER_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    publicUrl: config.PUBLIC_URL ?? null,
    slackButtons: config.SLACK_SIGNING_SECRET !== undefined,
  })

  let draining = false
  const shutdownController = new AbortController()
  const app = createApp({
    sseHeartbeatMs: 15_000,
    limits: serviceLimits(config),
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    readRateLimitPerMinute: config.READ_RATE_LIMIT_PER_MINUTE,
    corsOrigins: config.CORS_ORIGINS,
    allowedHosts: allowedHosts(config),
    shutdownSignal: shutdownController.signal,
    metrics,
    store,
    logger,
    keys,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    staleAfterMs: config.STALE_AFTER_MS,
    historyLimit: config.HISTORY_LIMIT,
    idempotencyTtlMs: IDEMPOTENCY_TTL_MS,
    now: Date.now,
    isDraining: () => draining,
    openapiDocument: committedOpenApi(),
    signIn,
    auditTtlMs: auditTtlMs(config.AUDIT_TTL_DAYS),
    webhooks: {
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      maxPerTenant: config.MAX_WEBHOOKS_PER_TENANT,
      publicUrl: config.PUBLIC_URL ?? null,
      wake: () => alertWorker.wake(),
    },
    decisions: decisionSettings(config),
  })

  const server = serve({ fetch: app.fetch, port: config.PORT, hostname: host }, (info) => {
    logger.info({ port: info.port, host, store: store.kind }, 'listening')
  }) as Server
  alertWorker.start()

  const shutdown = (signal: string) => {
    if (draining) return
    draining = true
    shutdownController.abort()
    logger.info({ signal }, 'draining: readiness is 503, finishing in-flight requests')
    const force = setTimeout(() => {
      logger.warn('grace period over: closing remaining connections')
      server.closeAllConnections()
    }, config.SHUTDOWN_GRACE_MS)
    force.unref()
    // the worker stops taking work at once; its attempts in flight end within the grace period
    const workerStopped = alertWorker.stop(config.SHUTDOWN_GRACE_MS)
    server.close((error) => {
      clearTimeout(force)
      void workerStopped
        .then(() => store.close())
        .catch((err) => logger.error({ err }, 'store close failed'))
        .then(() => {
          logger.info('stopped')
          logger.flush()
          process.exit(error ? 1 : 0)
        })
    })
    server.closeIdleConnections()
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
