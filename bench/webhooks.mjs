// Alerts (issue 25): how long from a session's transition to its webhook delivery, and what
// alerts cost a round. Starts the real server (src/server.ts through tsx) on a fresh SQLite file
// and a receiver in this process.
// A: transitions at a steady rate (default 1,000 a minute): each a PUT that makes a new session
//    `done`; the latency is from the PUT's reply (the change committed) to the delivery's arrival.
// B: rounds at full speed (concurrency 8, 100 sessions, every other round finishes the list, so
//    half the rounds make a `done` transition), the server's CPU per round read from /proc:
//    without a webhook (the outbox rows are written and dispatched to nobody) and with one
//    subscribed to every event.
// Usage: node bench/webhooks.mjs [seconds of A, default 30] [rounds of B, default 4000]
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort, procTicks, ROOT } from './lib.mjs'

const SECONDS = Number(process.argv[2] ?? 30)
const ROUNDS = Number(process.argv[3] ?? 4000)
const PER_MINUTE = 1000
const TICK_MS = 1000 / Number(process.env.CLK_TCK ?? 100)

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

async function startReceiver(onDelivery) {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      onDelivery(JSON.parse(body), performance.now())
      res.writeHead(204).end()
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}/hook`, close: () => server.close() }
}

async function startService(dir) {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      STORE: 'sqlite',
      SQLITE_PATH: path.join(dir, `store-${port}.db`),
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { url, pid: child.pid, stop: () => child.kill('SIGTERM') }
}

const json = async (url, method, body) => {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : null
}

async function latency(dir) {
  const acked = new Map()
  const latencies = []
  const receiver = await startReceiver((event, at) => {
    const sent = acked.get(event.data.session.session_id)
    if (sent !== undefined) latencies.push(at - sent)
  })
  const service = await startService(dir)
  await json(`${service.url}/v1/webhooks`, 'POST', { url: receiver.url, events: ['session.done'] })
  const total = Math.round((SECONDS * PER_MINUTE) / 60)
  const gap = 60_000 / PER_MINUTE
  const start = performance.now()
  for (let i = 0; i < total; i++) {
    const due = start + i * gap
    const wait = due - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const id = `lat-${i}`
    await json(`${service.url}/v1/sessions/${id}/todos`, 'PUT', {
      items: [{ id: '1', content: 'the step', status: 'completed' }],
    })
    acked.set(id, performance.now())
  }
  const until = performance.now() + 30_000
  while (latencies.length < total && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  service.stop()
  receiver.close()
  const sorted = [...latencies].sort((a, b) => a - b)
  return {
    transitions: total,
    delivered: sorted.length,
    p50_ms: Math.round(quantile(sorted, 0.5)),
    p99_ms: Math.round(quantile(sorted, 0.99)),
    max_ms: Math.round(sorted[sorted.length - 1]),
  }
}

async function roundCpu(dir, withWebhook) {
  let deliveries = 0
  const receiver = await startReceiver(() => deliveries++)
  const service = await startService(dir)
  if (withWebhook) {
    await json(`${service.url}/v1/webhooks`, 'POST', { url: receiver.url, events: ['*'] })
  }
  const list = (done) => [
    { id: '1', text: 'Plan', status: 'completed' },
    { id: '2', text: 'Build', status: done ? 'completed' : 'in_progress' },
  ]
  let next = 0
  const worker = async () => {
    for (let i = next++; i < ROUNDS; i = next++) {
      await json(`${service.url}/v1/sessions/cpu-${i % 100}/rounds`, 'POST', {
        tool_calls: [
          { id: `t${i}`, name: 'todo', input: { items: list(Math.floor(i / 100) % 2 === 1) } },
        ],
      })
    }
  }
  // warm-up: the first rounds compile and fill caches
  const warm = ROUNDS
  next = 0
  await Promise.all(Array.from({ length: 8 }, worker))
  const before = procTicks(service.pid)
  const t0 = performance.now()
  next = 0
  // the same sessions again: every other round of a session flips its list done / not done
  await Promise.all(Array.from({ length: 8 }, worker))
  const wall = performance.now() - t0
  const ticks = procTicks(service.pid) - before
  service.stop()
  receiver.close()
  return {
    webhook: withWebhook,
    rounds: warm,
    cpu_us_per_round: Math.round(((ticks * TICK_MS) / ROUNDS) * 1000),
    rounds_per_s: Math.round(ROUNDS / (wall / 1000)),
    deliveries,
  }
}

const dir = mkdtempSync(path.join(tmpdir(), 'agent-todos-bench-webhooks-'))
try {
  console.log(JSON.stringify({ latency: await latency(dir) }))
  for (const withWebhook of [false, true, false, true]) {
    console.log(JSON.stringify({ round_cpu: await roundCpu(dir, withWebhook) }))
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
