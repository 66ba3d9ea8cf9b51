// What the alert outbox costs a round (issue 25: at most 5 % of the round's server CPU with no
// webhook configured, at most 15 % with one), in process like bench/ab-inproc.mjs: compiled
// builds of two checkouts answer `app.request()` rounds in one process, variants alternating
// batch by batch, the process's CPU per round taken for each batch.
// Variants:
//   pre   — the build before alerts (no outbox, no worker)
//   none  — the build with alerts, its worker running, no webhook (each transition's outbox row
//           is written in the write's step and dispatched to nobody)
//   hook  — the same with one webhook on `*` to a receiver in this process answering 200
//           (WEBHOOK_ALLOW_PRIVATE): the worker's deliveries (body, signature, the connection per
//           attempt, the attempt's store writes) run in this process, so their CPU is in the
//           figure, and so is the receiver's (small: it reads the body and answers 200)
// Each batch's window ends once the deliveries its rounds caused have arrived and the worker has
// had 100 ms to settle them (every variant waits the same 100 ms), so a variant's deliveries are
// not counted in another's batch. Each batch starts after a full collection (--expose-gc); the
// first batch of each variant is a warm-up.
// Scenarios: s03 — bench/run.mjs's round (the 5-item todo write, the same list every round; the
// first round of each of the 64 sessions creates it), flip — every round moves its session's
// list between done and not done, so every second round makes a `done` transition (a delivery
// with the webhook): far more alerts than a real fleet sends, the worst case.
// Usage: node --expose-gc bench/ab-alerts.mjs <memory|sqlite> <s03|flip> <batches> <per-batch>
//          pre=<checkout> now=<checkout>   (each checkout built: its dist/)
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { builtApp, loadBuilt, median } from './lib.mjs'
import { ROUND_TODO_BODY } from './workload.mjs'

const [storeKind, scenario, batches, perBatch, ...specs] = process.argv.slice(2)
const SESSIONS = 64
const dirs = Object.fromEntries(specs.map((spec) => spec.split('=')))
const tmp = mkdtempSync(path.join(tmpdir(), 'ab-alerts-'))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

let received = 0
const receiver = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    received++
    res.writeHead(200).end()
  })
})
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`

const flipBody = (done, id) =>
  JSON.stringify({
    tool_calls: [
      {
        id,
        name: 'todo',
        input: {
          items: [
            { id: '1', text: 'Plan the change', status: 'completed' },
            { id: '2', text: 'Build the change', status: done ? 'completed' : 'in_progress' },
          ],
        },
      },
    ],
  })

async function variant(name, dir, alerts, webhook) {
  const dist = path.resolve(dir, 'dist')
  const load = (file) => loadBuilt(dist, file)
  const { openStore } = await load('store/index.js')
  const { createMetrics } = await load('http/metrics.js')
  const now = () => Date.now()
  const logger = pino({ level: 'silent' })
  const store = await openStore({
    kind: storeKind,
    sqlitePath: path.join(tmp, `${name}.db`),
    sqliteSync: 'normal',
    sqliteCheckpoints: 'thread',
    ttlMs: 24 * 3600 * 1000,
    historyLimit: 50,
    now,
    staleAfterMs: 900_000,
  })
  const metrics = createMetrics()
  let worker = null
  if (alerts) {
    const { createServerAlerts } = await load('http/alerts.js')
    worker = createServerAlerts({
      store,
      metrics,
      logger,
      now,
      staleAfterMs: 900_000,
      timeoutMs: 10_000,
      retrySchedule: [5, 30, 120, 600, 3600, 10800],
      allowPrivate: true,
      publicUrl: null,
    })
  }
  const app = await builtApp(dist, {
    store,
    logger,
    metrics,
    now,
    ...(alerts
      ? {
          webhooks: {
            allowPrivate: true,
            maxPerTenant: 20,
            publicUrl: null,
            wake: () => worker.wake(),
          },
        }
      : {}),
  })
  worker?.start()
  const call = async (method, route, body, expect) => {
    const res = await app.request(route, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body,
    })
    if (res.status !== expect) throw new Error(`${name}: ${res.status} ${await res.text()}`)
    await res.arrayBuffer()
  }
  if (webhook) {
    await call('POST', '/v1/webhooks', JSON.stringify({ url: receiverUrl, events: ['*'] }), 201)
  }
  const rounds = new Map()
  let serial = 0
  let expected = 0
  const round = async (i) => {
    const session = `s${i % SESSIONS}`
    const k = rounds.get(session) ?? 0
    rounds.set(session, k + 1)
    let body = ROUND_TODO_BODY
    if (scenario === 'flip') {
      body = flipBody(k % 2 === 1, `t${serial++}`)
      if (webhook && k % 2 === 1) expected++
    }
    await call('POST', `/v1/sessions/${session}/rounds`, body, 200)
  }
  // the sessions exist before the runs
  for (let i = 0; i < SESSIONS; i++) await round(i)
  return {
    name,
    round,
    expected: () => expected,
    cpu: [],
    close: async () => {
      await worker?.stop(1000)
      await store.close()
    },
  }
}

const variants = [
  await variant('pre', dirs.pre, false, false),
  await variant('none', dirs.now, true, false),
  await variant('hook', dirs.now, true, true),
]
const collect = globalThis.gc ?? (() => {})
let lagged = 0
for (let b = -1; b < Number(batches); b++) {
  for (const v of b % 2 ? [...variants].reverse() : variants) {
    collect()
    const start = process.cpuUsage()
    for (let i = 0; i < Number(perBatch); i++) await v.round(i)
    // the deliveries this batch caused arrive (hook), then 100 ms for the worker to settle them
    const until = performance.now() + 30_000
    while (received < v.expected() && performance.now() < until) await sleep(5)
    if (received < v.expected()) lagged++
    await sleep(100)
    const used = process.cpuUsage(start)
    if (b >= 0) v.cpu.push((used.user + used.system) / Number(perBatch))
  }
}
const [first] = variants
console.log(
  `${storeKind} ${scenario}: ${batches} batches of ${perBatch} rounds, in process${globalThis.gc ? '' : ' (no --expose-gc)'}; deliveries received ${received}${lagged ? `, ${lagged} batches ended before their deliveries arrived` : ''}`
)
for (const v of variants) {
  const ratios = v.cpu.map((c, i) => c / first.cpu[i]).sort((a, b) => a - b)
  console.log(
    `${v.name.padEnd(6)} ${median(v.cpu).toFixed(1).padStart(7)} µs CPU/round  × ${first.name} (paired median) ${median(ratios).toFixed(3)} (${ratios[0].toFixed(2)}–${ratios.at(-1).toFixed(2)})`
  )
}
for (const v of variants) await v.close()
receiver.close()
rmSync(tmp, { recursive: true, force: true })
