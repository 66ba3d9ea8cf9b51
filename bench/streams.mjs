// `node bench/streams.mjs`: what event streams and the largest sessions cost the service
// (compiled, node dist/server.js; build first). Three measurements, each on a fresh server
// process on core 0, the clients on core 1:
//   throughput   s03 rounds (autocannon, 50 connections, random over 1,000 sessions of one
//                tenant) with 0 and with 1,000 open tenant streams (/v1/events, read as they
//                come) of the same tenant, alternating; medians. Target: >= 0.5 of the 0-stream rate.
//   stuck        the same rounds for 60 s with 5 tenant streams whose clients stopped reading
//                (and reconnect, stuck again, when dropped); the server's RSS sampled every second.
//                Target: bounded.
//   largest      a session of about 1 MiB (100 items of 10,000 characters, PUT) with 20 versions
//                of history, read (GET), listed, paged through (history) and streamed (10 session
//                streams, a PUT every 500 ms) at once; /livez probed every 10 ms. Target: p99 <= 50 ms.
// Writes its section of bench/results.md (BENCH_OUT) and prints the figures.
// Environment: BENCH_STORE (memory), BENCH_DURATION (s per throughput pass, 10), BENCH_ROUNDS (2),
// BENCH_STREAMS (1000), BENCH_STUCK_SECONDS (60), BENCH_LARGEST_SECONDS (20), BENCH_PARTS
// (throughput,stuck,largest), BENCH_DIST (another build).
import { once } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  BENCH,
  canary,
  CLIENT_CPU,
  cpuBetween,
  median,
  PINNED,
  rssMB,
  runClient,
  snapshot,
  spawnPinned,
  startTarget,
  writeSection,
} from './lib.mjs'

const env = process.env
const STORE = env.BENCH_STORE || 'memory'
const DURATION = Number(env.BENCH_DURATION || 10)
const ROUNDS = Number(env.BENCH_ROUNDS || 2)
const STREAMS = Number(env.BENCH_STREAMS || 1000)
const STUCK_SECONDS = Number(env.BENCH_STUCK_SECONDS || 60)
const LARGEST_SECONDS = Number(env.BENCH_LARGEST_SECONDS || 20)
const PARTS = (env.BENCH_PARTS || 'throughput,stuck,largest').split(',')
const DIST = env.BENCH_DIST ? path.resolve(env.BENCH_DIST) : undefined
const OUT = env.BENCH_OUT || path.join(BENCH, 'results.md')
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-streams-'))
let dbCounter = 0

const storeEnv = () =>
  STORE === 'sqlite'
    ? { STORE: 'sqlite', SQLITE_PATH: path.join(dataDir, `s${dbCounter++}.db`) }
    : { STORE }

const start = (extra = {}) =>
  startTarget('service', { ...storeEnv(), MAX_STREAMS_PER_TENANT: '0', ...extra }, [], DIST)

/** Starts bench/stream-clients.mjs on the client core; resolves once every stream is open. */
async function streamClients(plan) {
  const child = spawnPinned(
    CLIENT_CPU,
    [path.join(BENCH, 'stream-clients.mjs'), JSON.stringify(plan)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    }
  )
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  let ready
  const isReady = new Promise((resolve) => (ready = resolve))
  child.stderr.on('data', (d) => {
    if (/READY/.test(String(d))) ready()
  })
  const exited = once(child, 'exit')
  await Promise.race([
    isReady,
    exited.then(() => Promise.reject(new Error('stream clients exited'))),
  ])
  return {
    async stop() {
      child.kill('SIGTERM')
      await exited
      return JSON.parse(out.trim().split('\n').pop() || '{}')
    },
  }
}

async function metric(port, name) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0)
}

const roundPass = (port, name, duration, onMarker) =>
  runClient(
    { port, connections: 50, warmup: 1, duration, runs: [{ name, scenario: 'round-todo' }] },
    onMarker
  ).then(([result]) => result)

const fmt = (n, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits }) : '–'

// ---- throughput with 0 and 1,000 tenant streams ------------------------------------------------

async function throughput() {
  const server = await start()
  const rows = { 0: [], [STREAMS]: [] }
  const cpu = { 0: [], [STREAMS]: [] }
  const received = []
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [STREAMS, 0] : [0, STREAMS]
      for (const streams of order) {
        let clients = null
        if (streams)
          clients = await streamClients({
            port: server.port,
            count: streams,
            path: '/v1/events',
            mode: 'read',
          })
        let a, b
        const result = await roundPass(server.port, `round-todo-${streams}`, DURATION, (kind) => {
          if (kind === 'START') a = snapshot([server.pid])
          else b = snapshot([server.pid])
        })
        const used = cpuBetween(a, b)
        rows[streams].push(result.rps)
        cpu[streams].push(((used.procs[0] / 100) * 1e6) / result.rps)
        if (clients) {
          const stats = await clients.stop()
          received.push({ ...stats, seconds: used.seconds + 1 })
        }
        console.error(
          `throughput: ${streams} streams: ${fmt(result.rps)} rounds/s (p99 ${fmt(result.p99, 1)} ms)`
        )
      }
    }
    const evicted = await metric(server.port, 'agent_todos_sse_evicted_total')
    return { rows, cpu, received, evicted }
  } finally {
    await server.stop()
  }
}

// ---- RSS with 5 stuck stream clients ----------------------------------------------------------

async function heapMB(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const m = /^nodejs_heap_size_used_bytes (\S+)/m.exec(text)
  return m ? Number(m[1]) / 1048576 : NaN
}

/** RSS as the process holds it, then the V8 heap after a full GC (what is retained). */
async function sample(server, t) {
  const rss = rssMB(server.pid)
  process.kill(server.pid, 'SIGUSR2')
  await sleep(300)
  return { t, rss, heap: await heapMB(server.port) }
}

async function stuck() {
  const server = await startTarget(
    'service',
    { ...storeEnv(), MAX_STREAMS_PER_TENANT: '0' },
    ['--expose-gc', '--import', path.join(BENCH, 'gc-on-signal.mjs')],
    DIST
  )
  try {
    // first fill every session's history (60 rounds each of the 1,000), so that the store's own
    // growth is over
    const [warm] = await runClient({
      port: server.port,
      connections: 50,
      warmup: 0,
      runs: [
        {
          name: 'round-todo-fill',
          scenario: 'round-todo',
          amount: 60_000,
          sequential: true,
          cycle: true,
          pool: 1000,
        },
      ],
    })
    const samples = [await sample(server, 0)]
    const clients = await streamClients({
      port: server.port,
      count: 5,
      path: '/v1/events',
      mode: 'stuck',
      reopenSeconds: 10,
    })
    const t0 = Date.now()
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        await sleep(5000)
        if (sampling) samples.push(await sample(server, (Date.now() - t0) / 1000))
      }
    })()
    const result = await roundPass(server.port, 'round-todo-stuck', STUCK_SECONDS)
    sampling = false
    await sampler
    samples.push(await sample(server, (Date.now() - t0) / 1000))
    const stats = await clients.stop()
    const evicted = await metric(server.port, 'agent_todos_sse_evicted_total')
    return { samples, warm: warm.ok, rounds: result.ok, rps: result.rps, stats, evicted }
  } finally {
    await server.stop()
  }
}

// ---- /livez while the largest session is read, listed, paged and streamed ----------------------

const BIG_ITEMS = (version) =>
  Array.from({ length: 100 }, (_, i) => ({
    id: String(i + 1),
    content: `v${version} item ${i} `.padEnd(10_000, 'x'),
    status: i === 0 ? 'in_progress' : i < 50 ? 'completed' : 'pending',
  }))

async function putBig(port, version) {
  const body = JSON.stringify({ dialect: 'claude-tasks', items: BIG_ITEMS(version) })
  const res = await fetch(`http://127.0.0.1:${port}/v1/sessions/big/todos`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body,
  })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`PUT big: ${res.status}`)
  return body.length
}

/** Runs a bench script pinned to the client core; resolves with its JSON line. */
async function pinnedJson(script, args) {
  const child = spawnPinned(CLIENT_CPU, [path.join(BENCH, script), ...args.map(String)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`${script} failed (${code})`)
  return JSON.parse(out.trim().split('\n').pop())
}

async function largest() {
  const server = await start()
  try {
    let bodyBytes = 0
    for (let v = 1; v <= 20; v++) bodyBytes = await putBig(server.port, v)
    const view = await (
      await fetch(`http://127.0.0.1:${server.port}/v1/sessions/big`)
    ).arrayBuffer()
    const page = await (
      await fetch(`http://127.0.0.1:${server.port}/v1/sessions/big/history`)
    ).text()
    const quiet = await pinnedJson('livez-probe.mjs', [server.port, 3])
    const clients = await streamClients({
      port: server.port,
      count: 10,
      path: '/v1/sessions/big/events',
      mode: 'read',
    })
    const stopAt = Date.now() + LARGEST_SECONDS * 1000
    let version = 20
    const writer = (async () => {
      while (Date.now() < stopAt) {
        await putBig(server.port, ++version)
        await sleep(500)
      }
    })()
    const [probe, load] = await Promise.all([
      pinnedJson('livez-probe.mjs', [server.port, LARGEST_SECONDS]),
      pinnedJson('largest-load.mjs', [server.port, LARGEST_SECONDS]),
    ])
    await writer
    const stats = await clients.stop()
    return {
      bodyBytes,
      viewBytes: view.byteLength,
      pageBytes: Buffer.byteLength(page),
      pageEntries: JSON.parse(page).entries.length,
      quiet,
      probe,
      reads: load.reads,
      history: load.history,
      lists: load.lists,
      writes: version - 20,
      streamed: stats,
    }
  } finally {
    await server.stop()
  }
}

// ---- report ---------------------------------------------------------------------------------

const startedAt = new Date()
// how busy the machine was: fixed CPU work on the server's core (about 140 ms when idle) and the
// load average, before and after
const busy = [{ canary: await canary('0'), load: os.loadavg()[0] }]
const results = {}
if (PARTS.includes('throughput')) results.throughput = await throughput()
if (PARTS.includes('stuck')) results.stuck = await stuck()
if (PARTS.includes('largest')) results.largest = await largest()
fs.rmSync(dataDir, { recursive: true, force: true })
busy.push({ canary: await canary('0'), load: os.loadavg()[0] })

const lines = [
  `Generated by \`node bench/streams.mjs\` on ${startedAt.toISOString()}: node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, store ${STORE}; server on core 0, clients on core 1${PINNED ? ' (taskset)' : ' (not pinned: no taskset)'}. The machine's canary read ${busy.map((b) => `${fmt(b.canary)} ms`).join(' and ')} (about 140 when idle) and its load average ${busy.map((b) => b.load.toFixed(1)).join(' and ')}, before and after.`,
  '',
]
if (results.throughput) {
  const { rows, cpu, received, evicted } = results.throughput
  const base = median(rows[0])
  const loaded = median(rows[STREAMS])
  const bytes = median(received.map((r) => r.bytes / r.seconds / STREAMS))
  lines.push(
    `**Rounds with ${fmt(STREAMS)} open tenant streams** (${ROUNDS} × ${DURATION} s each, alternating; s03 round-todo, 50 connections, 1,000 sessions of the streams' tenant):`,
    '',
    '| open tenant streams | rounds/s median (each pass) | server µs/round | ratio |',
    '| --- | --- | --- | --- |',
    `| 0 | ${fmt(base)} (${rows[0].map((r) => fmt(r)).join(', ')}) | ${fmt(median(cpu[0]))} | 1.00 |`,
    `| ${fmt(STREAMS)} | ${fmt(loaded)} (${rows[STREAMS].map((r) => fmt(r)).join(', ')}) | ${fmt(median(cpu[STREAMS]))} | **${(loaded / base).toFixed(2)}** (target ≥ 0.5) |`,
    '',
    `Each stream received ${fmt(bytes / 1024, 1)} KiB/s (median); streams dropped for their backlog: ${fmt(evicted)}; reconnects: ${received.map((r) => fmt(r.reconnects)).join(', ')}.`,
    ''
  )
}
if (results.stuck) {
  const { samples, warm, rounds, rps, stats, evicted } = results.stuck
  const first = samples[0]
  const last = samples[samples.length - 1]
  const max = (key) => Math.max(...samples.map((s) => s[key]))
  lines.push(
    `**Memory with 5 stuck tenant stream clients** over ${STUCK_SECONDS} s of rounds (${fmt(rounds)} rounds, ${fmt(rps)}/s, after ${fmt(warm)} rounds that filled every session's history). Each client reads its first chunk and never again, and opens a new stream every 10 s (stuck again): the service dropped such a stream ${fmt(evicted)} times. Sampled every 5 s: the RSS, and the V8 heap after a full GC (\`--expose-gc\`, bench/gc-on-signal.mjs).`,
    '',
    '| | start | ' +
      samples
        .slice(1, -1)
        .map((s) => `${Math.round(s.t)} s`)
        .join(' | ') +
      ' | end | max |',
    '| --- | --- | ' +
      samples
        .slice(1, -1)
        .map(() => '---')
        .join(' | ') +
      ' | --- | --- |',
    `| RSS MB | ${fmt(first.rss, 1)} | ${samples
      .slice(1, -1)
      .map((s) => fmt(s.rss, 1))
      .join(' | ')} | ${fmt(last.rss, 1)} | ${fmt(max('rss'), 1)} |`,
    `| heap after GC MB | ${fmt(first.heap, 1)} | ${samples
      .slice(1, -1)
      .map((s) => fmt(s.heap, 1))
      .join(' | ')} | ${fmt(last.heap, 1)} | ${fmt(max('heap'), 1)} |`,
    '',
    `The stuck clients opened ${fmt(stats.opened)} streams in all.`,
    ''
  )
}
if (results.largest) {
  const r = results.largest
  lines.push(
    `**/livez while the largest session is read, listed, paged and streamed** (${LARGEST_SECONDS} s): a session of ${fmt(r.bodyBytes / 1024)} KiB of items (100 × 10,000 characters; its view is ${fmt(r.viewBytes / 1024)} KiB), 20 versions of history; meanwhile GET of the session ×2 connections (${fmt(r.reads)} answered), its history ×2 (${fmt(r.history)}; a page is ${fmt(r.pageBytes / 1024)} KiB, ${r.pageEntries} entries), the listing ×2 (${fmt(r.lists)}), 10 session streams and a PUT every 500 ms (${r.writes} versions, ${fmt(r.streamed.bytes / 1024 / 1024, 1)} MiB streamed).`,
    '',
    '| /livez | n | p50 ms | p99 ms | max ms |',
    '| --- | --- | --- | --- | --- |',
    `| idle | ${r.quiet.n} | ${fmt(r.quiet.p50, 2)} | ${fmt(r.quiet.p99, 2)} | ${fmt(r.quiet.max, 2)} |`,
    `| under that load | ${r.probe.n} | ${fmt(r.probe.p50, 2)} | **${fmt(r.probe.p99, 2)}** (target ≤ 50) | ${fmt(r.probe.max, 2)} |`,
    ''
  )
}
const text = lines.join('\n')
console.log(text)
writeSection(OUT, `streams-${STORE}`, text)
console.error(`wrote the streams-${STORE} section of ${OUT}`)
