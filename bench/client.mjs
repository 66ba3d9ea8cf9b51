// The load generator, run in its own process (pinned to core 1 by bench/run.mjs).
// Usage: node bench/client.mjs '<plan JSON>'
//   plan: { port, connections, warmup, duration, seed, runs: [{ name, scenario, prefix?, pool?,
//           sequential?, cycle?, start?, amount?, duration?, warmup?, connections?, rate? }] }
//   sequential: session ids prefix+start, prefix+start+1, … (cycle: modulo pool); else random in pool
// `seed` first writes one round to each of the POOL read sessions (g0…g999), so GET 304 matches
// version 1; a scenario marked `seed` (ingest-dup) first gets its body once per session. For each run: a warm-up pass, then `MEASURE_START <name>` on stderr, the measured
// pass, `MEASURE_END <name>`, and one JSON line on stdout. Latency comes from autocannon's
// `response` event (fractional ms), kept per response for exact percentiles.
import autocannon from 'autocannon'
import { POOL, ROUND_TODO_BODY, SCENARIOS } from './workload.mjs'

const plan = JSON.parse(process.argv[2])
const base = `http://127.0.0.1:${plan.port}`

async function seed() {
  let next = 0
  const worker = async () => {
    while (next < POOL) {
      const n = next++
      const res = await fetch(`${base}/v1/sessions/g${n}/rounds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: ROUND_TODO_BODY,
      })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`seeding g${n}: HTTP ${res.status}`)
    }
  }
  await Promise.all(Array.from({ length: 25 }, worker))
}

function options(run, duration) {
  const scenario = SCENARIOS[run.scenario]
  const prefix = run.prefix ?? scenario.prefix
  const pool = run.pool ?? POOL
  let counter = run.start ?? 0
  const o = {
    url: base,
    connections: run.connections ?? plan.connections,
    pipelining: 1,
    timeout: 10,
    requests: [
      {
        method: scenario.method,
        headers: {
          ...(scenario.body ? { 'content-type': 'application/json' } : {}),
          ...scenario.headers,
        },
        body: scenario.body,
        setupRequest: (req) => {
          const n = run.sequential
            ? run.cycle
              ? counter++ % pool
              : counter++
            : (Math.random() * pool) | 0
          req.path = scenario.route(`${prefix}${n}`)
          if (scenario.bodyFor) req.body = scenario.bodyFor(`${prefix}${n}`)
          return req
        },
      },
    ],
  }
  // an open pace (requests per second over all connections) instead of as fast as answered
  if (run.rate) o.overallRate = run.rate
  if (run.amount) o.amount = run.amount
  else o.duration = duration
  return o
}

const cannon = (o, onResponse) =>
  new Promise((resolve, reject) => {
    const instance = autocannon(o, (error, result) => (error ? reject(error) : resolve(result)))
    if (onResponse) instance.on('response', onResponse)
  })

/** Sends each session of a `seed` scenario its body once (the state its measured pass repeats). */
async function seedScenario(scenario, prefix, pool) {
  let next = 0
  const worker = async () => {
    while (next < pool) {
      const sid = `${prefix}${next++}`
      const res = await fetch(`${base}${scenario.route(sid)}`, {
        method: scenario.method,
        headers: { 'content-type': 'application/json' },
        body: scenario.bodyFor(sid),
      })
      await res.arrayBuffer()
      if (res.status !== scenario.expect) throw new Error(`seeding ${sid}: HTTP ${res.status}`)
    }
  }
  await Promise.all(Array.from({ length: 25 }, worker))
}

if (plan.seed) await seed()
for (const run of plan.runs) {
  const scenario = SCENARIOS[run.scenario]
  if (scenario.seed) await seedScenario(scenario, run.prefix ?? scenario.prefix, run.pool ?? POOL)
}
const latencies = new Float64Array(4_000_000)
for (const run of plan.runs) {
  const scenario = SCENARIOS[run.scenario]
  const warmup = run.warmup ?? plan.warmup
  if (warmup > 0) await cannon(options({ ...run, amount: undefined, sequential: false }, warmup))
  let ok = 0
  let bad = 0
  let bytes = 0
  const statuses = {}
  process.stderr.write(`MEASURE_START ${run.name}\n`)
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  const result = await cannon(
    options(run, run.duration ?? plan.duration),
    (_client, status, resBytes, ms) => {
      if (status === scenario.expect) {
        if (ok < latencies.length) latencies[ok] = ms
        ok++
        bytes += resBytes
      } else {
        bad++
        statuses[status] = (statuses[status] ?? 0) + 1
      }
    }
  )
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  const cpu = process.cpuUsage(cpu0)
  process.stderr.write(`MEASURE_END ${run.name}\n`)
  const n = Math.min(ok, latencies.length)
  const sorted = latencies.subarray(0, n).sort()
  const pct = (p) => (n ? sorted[Math.min(n - 1, Math.floor((p / 100) * n))] : NaN)
  console.log(
    JSON.stringify({
      name: run.name,
      scenario: run.scenario,
      rps: ok / (result.duration || wall),
      ok,
      bad,
      statuses,
      errors: result.errors,
      timeouts: result.timeouts,
      p50: pct(50),
      p90: pct(90),
      p99: pct(99),
      max: n ? sorted[n - 1] : NaN,
      avgBytes: ok ? bytes / ok : 0,
      wall,
      clientCpuPct: (100 * (cpu.user + cpu.system)) / 1e6 / wall,
    })
  )
}
