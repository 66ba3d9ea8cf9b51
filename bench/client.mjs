// The load generator, run in its own process (pinned to core 1 by bench/run.mjs).
// Usage: node bench/client.mjs '<plan JSON>'
//   plan: { port, connections, warmup, duration, seed, runs: [{ name, scenario, prefix?, pool?,
//           sequential?, cycle?, start?, amount?, duration?, warmup?, connections?, rate? }] }
//   sequential: session ids prefix+start, prefix+start+1, … (cycle: modulo pool); else random in pool
//   rate: an open loop of that many requests per second (node:http) instead of autocannon
//   burst: that many requests released at once, one per socket, again `gap` ms (default 20) after
//          the last answer (raw sockets) instead of autocannon
// `seed` first writes one round to each of the POOL read sessions (g0…g999), so GET 304 matches
// version 1; a scenario marked `seed` (ingest-dup) first gets its body once per session. For each run: a warm-up pass, then `MEASURE_START <name>` on stderr, the measured
// pass, `MEASURE_END <name>`, and one JSON line on stdout. Latency comes from autocannon's
// `response` event (fractional ms), kept per response for exact percentiles.
import http from 'node:http'
import net from 'node:net'
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
  if (run.amount) o.amount = run.amount
  else o.duration = duration
  return o
}

const cannon = (o, onResponse) =>
  new Promise((resolve, reject) => {
    const instance = autocannon(o, (error, result) => (error ? reject(error) : resolve(result)))
    if (onResponse) instance.on('response', onResponse)
  })

/**
 * An open-loop pass: `run.rate` requests per second whatever the answers, over at most
 * `connections` keep-alive sockets (a request that finds them all busy waits, and the wait counts
 * in its latency). Not autocannon's `overallRate`: its ticks count as latency (a p50 of 5 ms at
 * 100 req/s against 0.1 ms at one connection, here).
 */
function openLoop(run, duration, onResponse = () => {}) {
  const scenario = SCENARIOS[run.scenario]
  const prefix = run.prefix ?? scenario.prefix
  const pool = run.pool ?? POOL
  const agent = new http.Agent({ keepAlive: true, maxSockets: run.connections ?? plan.connections })
  let sent = 0
  let inFlight = 0
  let errors = 0
  let stopped = false
  const start = performance.now()
  return new Promise((resolve) => {
    const settle = () => {
      if (!stopped || inFlight > 0) return
      agent.destroy()
      resolve({ duration: (performance.now() - start) / 1000, errors, timeouts: 0 })
    }
    const send = () => {
      const sid = `${prefix}${(Math.random() * pool) | 0}`
      const body = scenario.bodyFor ? scenario.bodyFor(sid) : scenario.body
      const headers = { ...scenario.headers }
      if (body !== undefined) {
        headers['content-type'] = 'application/json'
        headers['content-length'] = Buffer.byteLength(body)
      }
      const t = performance.now()
      inFlight++
      const req = http.request(
        {
          agent,
          host: '127.0.0.1',
          port: plan.port,
          method: scenario.method,
          path: scenario.route(sid),
          headers,
        },
        (res) => {
          let bytes = 0
          res.on('data', (chunk) => (bytes += chunk.length))
          res.on('end', () => {
            inFlight--
            onResponse(null, res.statusCode, bytes, performance.now() - t)
            settle()
          })
        }
      )
      req.on('error', () => {
        errors++
        inFlight--
        settle()
      })
      req.end(body)
    }
    const timer = setInterval(() => {
      const elapsed = performance.now() - start
      const due = Math.min(Math.floor((elapsed / 1000) * run.rate), Math.floor(duration * run.rate))
      while (sent < due) {
        sent++
        send()
      }
      if (elapsed >= duration * 1000) {
        clearInterval(timer)
        stopped = true
        settle()
      }
    }, 1)
  })
}

/**
 * Reads HTTP/1.1 responses off a keep-alive socket, one at a time: `next()` resolves with the
 * status and body length of the next whole response (bodies framed by Content-Length, as the
 * service and the ceiling frame theirs).
 */
function responses(socket) {
  let buffer = Buffer.alloc(0)
  let waiting = null
  const parse = () => {
    if (!waiting) return
    const end = buffer.indexOf('\r\n\r\n')
    if (end < 0) return
    const head = buffer.subarray(0, end).toString('latin1')
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN)
    if (!Number.isFinite(length)) return waiting.reject(new Error('no Content-Length'))
    if (buffer.length < end + 4 + length) return
    buffer = buffer.subarray(end + 4 + length)
    const settle = waiting.resolve
    waiting = null
    settle({ status: Number(head.slice(9, 12)), bytes: length })
  }
  socket.on('data', (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk
    parse()
  })
  const fail = (error) => waiting?.reject(error ?? new Error('socket closed'))
  socket.on('error', fail)
  socket.on('close', () => fail())
  return {
    next: () =>
      new Promise((resolve, reject) => {
        waiting = { resolve, reject }
        parse()
      }),
  }
}

/**
 * Bursts: `run.burst` requests released at once, one per keep-alive socket, and the next burst
 * `run.gap` ms (default 20) after the last answer: what the server does when that many agents'
 * hooks land together, each request timed from its own write. Every request's text is built
 * before its burst and the sockets are raw, so the client's own work stays out of the latencies.
 */
async function burstLoop(run, duration, onResponse = () => {}) {
  const scenario = SCENARIOS[run.scenario]
  const prefix = run.prefix ?? scenario.prefix
  const pool = run.pool ?? POOL
  const gap = run.gap ?? 20
  const headers = Object.entries(scenario.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  const sockets = await Promise.all(
    Array.from(
      { length: run.burst },
      () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(plan.port, '127.0.0.1', () => resolve(socket))
          socket.setNoDelay(true)
          socket.once('error', reject)
        })
    )
  )
  const readers = sockets.map(responses)
  let errors = 0
  const start = performance.now()
  try {
    while (performance.now() - start < duration * 1000) {
      const texts = sockets.map(() => {
        const sid = `${prefix}${(Math.random() * pool) | 0}`
        const body = scenario.bodyFor ? scenario.bodyFor(sid) : (scenario.body ?? '')
        const type = body ? 'content-type: application/json\r\n' : ''
        return `${scenario.method} ${scenario.route(sid)} HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}${type}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      })
      const answers = sockets.map((socket, i) => {
        const answer = readers[i].next()
        const t = performance.now()
        socket.write(texts[i])
        return answer.then(
          ({ status, bytes }) => onResponse(null, status, bytes, performance.now() - t),
          () => errors++
        )
      })
      await Promise.all(answers)
      if (errors) break
      await new Promise((resolve) => setTimeout(resolve, gap))
    }
  } finally {
    for (const socket of sockets) socket.destroy()
  }
  return { duration: (performance.now() - start) / 1000, errors, timeouts: 0 }
}

/** A pass of a run: autocannon as fast as answered, open-loop at `run.rate`, or in bursts. */
const drive = (run, duration, onResponse) =>
  run.burst
    ? burstLoop(run, duration, onResponse)
    : run.rate
      ? openLoop(run, duration, onResponse)
      : cannon(options(run, duration), onResponse)

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
  if (warmup > 0) await drive({ ...run, amount: undefined, sequential: false }, warmup)
  let ok = 0
  let bad = 0
  let bytes = 0
  const statuses = {}
  process.stderr.write(`MEASURE_START ${run.name}\n`)
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  const result = await drive(
    run,
    run.duration ?? plan.duration,
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
