/**
 * Webhook tests' pieces: a real local receiver that verifies every delivery with the
 * `standardwebhooks` package, and an app with its alert worker on one store.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { Webhook } from 'standardwebhooks'
import { createServerAlerts } from '../src/http/alerts.js'
import { parseAuthKeys } from '../src/http/auth.js'
import { createMetrics } from '../src/http/metrics.js'
import type { Resolver } from '../src/alerts/target.js'
import { createMemoryStore } from '../src/store/memory.js'
import type { SessionStore } from '../src/store/types.js'
import { makeTestApp } from './helpers.js'

export interface Delivery {
  headers: IncomingHttpHeaders
  body: string
  json: any
}

/** A receiver on 127.0.0.1; `reply` decides each answer (its status). */
export async function startReceiver(reply: (index: number) => number | 'hang' = () => 200) {
  const received: Delivery[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const index = received.length
      let json: unknown = null
      try {
        json = JSON.parse(body)
      } catch {
        // kept as text
      }
      received.push({ headers: req.headers, body, json })
      const status = reply(index)
      if (status === 'hang') return
      res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(status === 200 ? 'ok' : 'nope')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    received,
    url: `http://127.0.0.1:${port}/hook`,
    port,
    /** Deliveries of one type. */
    of: (type: string) => received.filter((d) => d.json?.type === type),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * Verifies a delivery with `standardwebhooks`: throws when its signature does not hold.
 * @param secret - the webhook's secret
 * @param delivery - what the receiver got
 */
export function verify(secret: string, delivery: Delivery): unknown {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  })
}

export interface AlertHarnessOptions {
  authKeys?: string
  allowPrivate?: boolean
  resolver?: Resolver
  retrySchedule?: number[]
  staleAfterMs?: number
  maxPerTenant?: number
  timeoutMs?: number
  store?: SessionStore
}

/** An app and its running alert worker on a memory store (real clock). */
export function startAlertApp(options: AlertHarnessOptions = {}) {
  const now = Date.now
  const staleAfterMs = options.staleAfterMs ?? 900_000
  const store =
    options.store ??
    createMemoryStore({ ttlMs: 7 * 24 * 3600 * 1000, historyLimit: 50, now, staleAfterMs })
  const metrics = createMetrics()
  const logger = pino({ level: 'silent' })
  const worker = createServerAlerts({
    store,
    metrics,
    logger,
    now,
    staleAfterMs,
    timeoutMs: options.timeoutMs ?? 2000,
    retrySchedule: options.retrySchedule ?? [5, 30],
    allowPrivate: options.allowPrivate ?? true,
    publicUrl: 'https://todos.example.com',
    resolver: options.resolver,
    pollMs: 25,
    staleScanMs: 50,
  })
  const t = makeTestApp({
    store,
    logger,
    metrics,
    keys: parseAuthKeys(options.authKeys),
    staleAfterMs,
    now,
    webhooks: {
      allowPrivate: options.allowPrivate ?? true,
      maxPerTenant: options.maxPerTenant ?? 20,
      publicUrl: 'https://todos.example.com',
      resolver: options.resolver,
      wake: () => worker.wake(),
    },
  })
  worker.start()
  /** `t.call` with the key as a Bearer token. */
  const call = (method: string, path: string, body?: unknown, key?: string) =>
    t.call(method, path, body, key ? { authorization: `Bearer ${key}` } : {})
  return { app: t.app, store, worker, metrics, call, stop: () => worker.stop(1000) }
}
