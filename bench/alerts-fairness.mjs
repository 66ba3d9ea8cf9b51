// Issue 32 (items 3, 7a, 8d): another tenant's delivery latency while one tenant holds 1,000 due
// deliveries to a dead receiver. One server process (dist/server.js; STORE=sqlite on a fresh
// file or STORE=redis under a key prefix of its own, dropped after), WEBHOOK_ALLOW_PRIVATE, the
// default WEBHOOK_TIMEOUT_MS of 10 s, two tenants:
//   busy  — a webhook whose target accepts the connection and never answers; 1,000
//           `POST /v1/webhooks/{id}/test` make 1,000 due deliveries (the worker keeps 4 of them
//           in flight, each held 10 s, the rest due behind them)
//   quiet — a webhook to a receiver answering 204; SAMPLES times, one after the other, a
//           `POST /v1/webhooks/{id}/test`, timed from the request to the delivery's arrival
//           (a delivery not there within 30 s counts as missed)
// Prints the quiet tenant's p50, p99 and max (target: p99 < 2 s).
// Usage: node bench/alerts-fairness.mjs <sqlite|redis> [samples, default 100] [dist, default dist]
//        (dist: a compiled checkout's dist/, e.g. an older build to compare)
import { createServer } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import path from 'node:path'
import { dropRedisPrefix, REDIS_URL, ROOT, startTarget } from './lib.mjs'

const [storeKind = 'sqlite', samplesArg = '100', distArg = 'dist'] = process.argv.slice(2)
const SAMPLES = Number(samplesArg)
const BACKLOG = 1000
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

// the dead receiver: accepts, reads, never answers
const held = new Set()
const dead = createTcpServer((socket) => {
  held.add(socket)
  socket.on('data', () => undefined)
  socket.on('close', () => held.delete(socket))
  socket.on('error', () => undefined)
})
await new Promise((resolve) => dead.listen(0, '127.0.0.1', resolve))

// the quiet tenant's receiver: when each delivery id arrived (it may come before the reply)
const arrivals = new Map()
const waiters = new Map()
const live = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(204).end()
    const id = String(req.headers['webhook-id'])
    arrivals.set(id, performance.now())
    waiters.get(id)?.()
  })
})
await new Promise((resolve) => live.listen(0, '127.0.0.1', resolve))

const dir = mkdtempSync(path.join(tmpdir(), 'alerts-fairness-'))
const prefix = `bench-alerts-fair-${process.pid}`
const env =
  storeKind === 'redis'
    ? { STORE: 'redis', REDIS_URL, REDIS_KEY_PREFIX: prefix }
    : { STORE: 'sqlite', SQLITE_PATH: path.join(dir, 'store.db') }
const service = await startTarget(
  'service',
  { ...env, WEBHOOK_ALLOW_PRIVATE: 'true', AUTH_KEYS: 'busy:admin:busy-key,quiet:admin:quiet-key' },
  [],
  path.resolve(ROOT, distArg)
)
const base = `http://127.0.0.1:${service.port}`
const call = async (method, route, key, body) => {
  const res = await fetch(base + route, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`)
  return JSON.parse(text)
}

const busy = await call('POST', '/v1/webhooks', 'busy-key', {
  url: `http://127.0.0.1:${dead.address().port}/hook`,
  events: ['*'],
})
for (let i = 0; i < BACKLOG; i += 50) {
  await Promise.all(
    Array.from({ length: 50 }, () => call('POST', `/v1/webhooks/${busy.id}/test`, 'busy-key'))
  )
}
const quiet = await call('POST', '/v1/webhooks', 'quiet-key', {
  url: `http://127.0.0.1:${live.address().port}/hook`,
  events: ['*'],
})
const latencies = []
let missed = 0
const load = os.loadavg()[0]
for (let i = 0; i < SAMPLES; i++) {
  const start = performance.now()
  const { delivery_id: id } = await call('POST', `/v1/webhooks/${quiet.id}/test`, 'quiet-key')
  if (!arrivals.has(id)) {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 30_000)
      waiters.set(id, () => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
  waiters.delete(id)
  if (arrivals.has(id)) latencies.push(arrivals.get(id) - start)
  else missed++
}
latencies.sort((a, b) => a - b)
const f = (x) => (x === undefined ? '–' : `${x.toFixed(1)} ms`)
console.log(
  `${storeKind} (${distArg}): busy tenant ${BACKLOG} due to a dead receiver (${held.size} held open); quiet tenant ${latencies.length}/${SAMPLES} delivered (${missed} not within 30 s): p50 ${f(quantile(latencies, 0.5))}  p99 ${f(quantile(latencies, 0.99))}  max ${f(latencies.at(-1))}  load ${load.toFixed(1)}`
)
await service.stop()
for (const socket of held) socket.destroy()
dead.close()
live.close()
rmSync(dir, { recursive: true, force: true })
if (storeKind === 'redis') await dropRedisPrefix(prefix)
