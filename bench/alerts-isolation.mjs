// Issue 25: "a receiver that never answers changes another tenant's round p99 by less than 10 %".
// One server process (dist/server.js, SQLite on a fresh file, WEBHOOK_ALLOW_PRIVATE, the default
// WEBHOOK_TIMEOUT_MS of 10 s), two tenants:
//   A (admin key) has a webhook on `*` whose target accepts the connection and never answers;
//     while "flowing", A sends rounds that flip a session's list between done and not done at
//     A_RATE rounds a second (half of them a `done` transition: a delivery that hangs 10 s, then
//     retried on the schedule: the worker keeps 4 attempts of A in flight and a growing backlog)
//   B (agent key) sends bench/run.mjs's s03 round (the 5-item todo write) at a fixed pace,
//     B_RATE a second over 64 sessions, open loop: each round's latency is from its scheduled
//     time to its reply, so a stall shows even when the client falls behind.
// Phases of PHASE_S seconds alternate quiet (A sends nothing) and flowing, PAIRS times; B's p50
// and p99 per phase, and the paired ratios flowing / quiet.
// With COMPARE=webhook, A's rounds flow in every phase and the phases differ by A's webhook
// alone: "quiet" deletes it first (its pending deliveries go with it), "flowing" creates it again.
// Usage: node bench/alerts-isolation.mjs [pairs, default 3] [phase seconds, default 20]
//        env A_RATE (default 20), B_RATE (default 50)
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import path from 'node:path'
import { median, startTarget } from './lib.mjs'
import { ROUND_TODO_BODY } from './workload.mjs'

const PAIRS = Number(process.argv[2] ?? 3)
const PHASE_S = Number(process.argv[3] ?? 20)
const A_RATE = Number(process.env.A_RATE ?? 20)
const B_RATE = Number(process.env.B_RATE ?? 50)
const BY_WEBHOOK = process.env.COMPARE === 'webhook'
const SESSIONS = 64
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

// accepts, reads, never answers (held until the server's attempt times out)
const held = new Set()
let accepted = 0
const hanging = createServer((socket) => {
  accepted++
  held.add(socket)
  socket.on('data', () => undefined)
  socket.on('close', () => held.delete(socket))
  socket.on('error', () => undefined)
})
await new Promise((resolve) => hanging.listen(0, '127.0.0.1', resolve))

const dir = mkdtempSync(path.join(tmpdir(), 'alerts-isolation-'))
const service = await startTarget('service', {
  STORE: 'sqlite',
  SQLITE_PATH: path.join(dir, 'store.db'),
  WEBHOOK_ALLOW_PRIVATE: 'true',
  AUTH_KEYS: 'a:admin:tenant-a-key,b:agent:tenant-b-key',
})
const base = `http://127.0.0.1:${service.port}`
const call = async (method, route, key, body) => {
  const res = await fetch(base + route, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`)
  return text
}
let webhookId = null
const createWebhook = async () => {
  const made = await call(
    'POST',
    '/v1/webhooks',
    'tenant-a-key',
    JSON.stringify({ url: `http://127.0.0.1:${hanging.address().port}/hook`, events: ['*'] })
  )
  webhookId = JSON.parse(made).id
}
await createWebhook()

const flip = (done, id) =>
  JSON.stringify({
    tool_calls: [
      {
        id,
        name: 'todo',
        input: {
          items: [
            { id: '1', text: 'Plan', status: 'completed' },
            { id: '2', text: 'Build', status: done ? 'completed' : 'in_progress' },
          ],
        },
      },
    ],
  })

/** Sends `send(i)` at `rate` a second for `seconds`, open loop; latencies from schedule. */
async function paced(rate, seconds, send) {
  const latencies = []
  let failures = 0
  const pending = []
  const start = performance.now()
  const total = Math.round(rate * seconds)
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
    pending.push(
      send(i).then(
        () => latencies.push(performance.now() - due),
        () => failures++
      )
    )
  }
  await Promise.all(pending)
  return { latencies: latencies.sort((a, b) => a - b), failures }
}

let aSerial = 0
const aRounds = (seconds) =>
  paced(A_RATE, seconds, (i) => {
    const n = aSerial++
    return call(
      'POST',
      `/v1/sessions/a${i % 8}/rounds`,
      'tenant-a-key',
      flip(Math.floor(n / 8) % 2 === 1, `a${n}`)
    )
  })
const bRounds = (seconds) =>
  paced(B_RATE, seconds, (i) =>
    call('POST', `/v1/sessions/b${i % SESSIONS}/rounds`, 'tenant-b-key', ROUND_TODO_BODY)
  )

// warm-up: both tenants' sessions exist, the process is warm, A's backlog has begun
await Promise.all([aRounds(5), bRounds(5)])
const rows = []
for (let pair = 0; pair < PAIRS; pair++) {
  for (const flowing of pair % 2 ? [true, false] : [false, true]) {
    const load = os.loadavg()[0]
    if (BY_WEBHOOK && flowing && webhookId === null) await createWebhook()
    if (BY_WEBHOOK && !flowing && webhookId !== null) {
      await call('DELETE', `/v1/webhooks/${webhookId}`, 'tenant-a-key')
      webhookId = null
    }
    const b =
      flowing || BY_WEBHOOK
        ? (await Promise.all([bRounds(PHASE_S), aRounds(PHASE_S)]))[0]
        : await bRounds(PHASE_S)
    const row = {
      pair,
      phase: flowing ? 'flowing' : 'quiet',
      rounds: b.latencies.length,
      failures: b.failures,
      p50: quantile(b.latencies, 0.5),
      p99: quantile(b.latencies, 0.99),
      heldConnections: held.size,
      load,
    }
    rows.push(row)
    console.log(
      `pair ${pair} ${row.phase.padEnd(7)} B rounds ${row.rounds} (failed ${row.failures})  p50 ${row.p50.toFixed(2)} ms  p99 ${row.p99.toFixed(2)} ms  receiver: ${accepted} connections accepted, ${held.size} held open  load ${load.toFixed(1)}`
    )
  }
}
const ratios = (key) =>
  Array.from({ length: PAIRS }, (_, pair) => {
    const of = (phase) => rows.find((r) => r.pair === pair && r.phase === phase)[key]
    return of('flowing') / of('quiet')
  })
for (const key of ['p50', 'p99']) {
  const r = ratios(key).sort((a, b) => a - b)
  console.log(
    `B ${key} flowing / quiet: median ${median(r).toFixed(3)} (${r[0].toFixed(2)}–${r.at(-1).toFixed(2)}); pooled quiet ${median(rows.filter((x) => x.phase === 'quiet').map((x) => x[key])).toFixed(2)} ms, flowing ${median(rows.filter((x) => x.phase === 'flowing').map((x) => x[key])).toFixed(2)} ms`
  )
}
await service.stop()
for (const socket of held) socket.destroy()
hanging.close()
rmSync(dir, { recursive: true, force: true })
