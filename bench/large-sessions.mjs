// `node bench/large-sessions.mjs [label=distDir ...]`: what the largest allowed sessions cost
// everyone else (issue 23, items 3 and 4). Per build (default: `current=dist`; builds compiled
// elsewhere compare, e.g. `before=/tmp/old/dist after=dist`) and store (BENCH_STORES, default
// sqlite,redis; postgres too), one fresh server process on core 0 at a time:
//   cpu       100 sessions of 1 KB, then (a new server) 100 of 1 MB: the server's CPU per listing
//             (GET /v1/sessions?limit=100, one at a time, BENCH_LISTINGS of them) and their
//             statuses. Target: the 1 MB listing within 2x the 1 KB one, and 200 on Redis.
//   readers   on the 1 MB sessions (and one with 20 versions of 1 MB in its history), for
//             BENCH_SECONDS: four clients listing, one opening the tenant stream again and again
//             (GET /v1/events until its snapshot), one paging history; /livez probed every 10 ms
//             (bench/livez-probe.mjs, core 1). Target: /livez p99 under 50 ms.
//   writer    one client PUTting 1 MB lists in a loop (two connections) while another reads a
//             small session; /livez probed. What one key's largest writes cost the others.
// BENCH_NODE_ARGS adds node options to the server's command line (ELD_OUT is passed on to it).
// BENCH_PARTS picks among cpu,readers,writer (all by default), BENCH_SECONDS (10),
// BENCH_LISTINGS (50) and BENCH_SESSIONS (100) size them. Prints the figures; with BENCH_OUT,
// writes its section of that file.
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { once } from 'node:events'
import {
  BENCH,
  CLIENT_CPU,
  cpuBetween,
  dropRedisPrefix,
  f0,
  f2,
  PINNED,
  redisInfo,
  freshPgDatabase,
  dropPgDatabase,
  snapshot,
  spawnPinned,
  startTarget,
  writeSection,
} from './lib.mjs'

const env = process.env
const STORES = (env.BENCH_STORES || 'sqlite,redis').split(',')
const SESSIONS = Number(env.BENCH_SESSIONS || 100)
const LISTINGS = Number(env.BENCH_LISTINGS || 50)
const SECONDS = Number(env.BENCH_SECONDS || 10)
const OUT = env.BENCH_OUT
const PARTS = (env.BENCH_PARTS || 'cpu,readers,writer').split(',')
const builds = (process.argv.slice(2).length ? process.argv.slice(2) : ['current=dist']).map(
  (arg) => {
    const [label, dir] = arg.split('=')
    return { label, dist: path.resolve(dir) }
  }
)
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-large-'))
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })

/** A claude-tasks list of `count` items of `chars` characters (1 MB: 100 of 9,900). */
const list = (tag, count, chars) =>
  Array.from({ length: count }, (_, i) => ({
    id: String(i + 1),
    content: i === 0 ? `${tag}: the step in progress` : `${tag} ${i} `.padEnd(chars, 'x'),
    status: i === 0 ? 'in_progress' : i < 40 ? 'completed' : 'pending',
  }))
const SIZES = {
  '1 KB': (tag) => list(tag, 5, 150),
  '1 MB': (tag) => list(tag, 100, 9_900),
}

/** One request; resolves with status and byte count (the body is read, not parsed). */
function request(port, method, pathname, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathname,
        agent,
        headers: body ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        let bytes = 0
        res.on('data', (chunk) => (bytes += chunk.length))
        res.on('end', () => resolve({ status: res.statusCode, bytes }))
      }
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** PUTs a list; resolves with the status. */
const putStatus = async (port, id, items) =>
  (
    await request(
      port,
      'PUT',
      `/v1/sessions/${id}/todos`,
      JSON.stringify({ dialect: 'claude-tasks', items })
    )
  ).status

/** PUTs a list the run needs; a store busy past its timeout (503) is asked again, a while. */
const put = async (port, id, items) => {
  for (let attempt = 1; ; attempt++) {
    const status = await putStatus(port, id, items)
    if (status === 200) return
    if (status !== 503 || attempt === 30) throw new Error(`PUT ${id}: ${status}`)
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

/** Opens the tenant stream, reads until its snapshot ends, closes it; resolves with its bytes. */
function snapshotOnce(port) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/v1/events' }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        text += chunk
        const at = text.indexOf('event: snapshot')
        if (at >= 0 && text.indexOf('\n\n', at) >= 0) {
          req.destroy()
          resolve({ status: res.statusCode, bytes: text.length })
        }
      })
      res.on('end', () => resolve({ status: res.statusCode, bytes: text.length }))
    })
    req.on('error', (error) => (error.code === 'ECONNRESET' ? undefined : reject(error)))
  })
}

/** Runs `step` again and again until `stopAt`; counts statuses and latencies. */
async function loop(stopAt, step) {
  const statuses = {}
  const latencies = []
  while (Date.now() < stopAt) {
    const t = performance.now()
    const { status } = await step()
    latencies.push(performance.now() - t)
    statuses[status] = (statuses[status] ?? 0) + 1
  }
  return { statuses, latencies }
}

const pct = (values, p) => {
  const s = [...values].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN
}

/** bench/livez-probe.mjs on the client core for `seconds`. */
async function livez(port, seconds) {
  const child = spawnPinned(
    CLIENT_CPU,
    [path.join(BENCH, 'livez-probe.mjs'), String(port), String(seconds)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    }
  )
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`livez-probe failed (${code})`)
  return JSON.parse(out.trim().split('\n').pop())
}

let servers = 0
async function start(build, store) {
  const prefix = `bench-large-${process.pid}-${servers++}`
  const database = prefix.replace(/-/g, '_')
  const storeEnv =
    store === 'sqlite'
      ? { STORE: 'sqlite', SQLITE_PATH: path.join(dataDir, `${prefix}.db`) }
      : store === 'postgres'
        ? { STORE: 'postgres', DATABASE_URL: await freshPgDatabase(database) }
        : {
            STORE: 'redis',
            REDIS_URL: env.REDIS_URL || 'redis://127.0.0.1:6379',
            REDIS_KEY_PREFIX: prefix,
          }
  // BENCH_NODE_ARGS: node options for the server (a profiler, an event-loop monitor)
  const nodeArgs = env.BENCH_NODE_ARGS ? env.BENCH_NODE_ARGS.split(' ') : []
  const passed = env.ELD_OUT ? { ELD_OUT: env.ELD_OUT } : {}
  const server = await startTarget(
    'service',
    { ...storeEnv, ...passed, MAX_STREAMS_PER_TENANT: '0' },
    nodeArgs,
    build.dist
  )
  return {
    ...server,
    async stop() {
      await server.stop()
      if (store === 'redis') await dropRedisPrefix(prefix)
      if (store === 'postgres') await dropPgDatabase(database)
    },
  }
}

/** On the 1 MB sessions: four listing clients, one reopening the tenant stream, one paging history. */
async function readersPhase(port, pid) {
  // history: one session with 20 versions of 1 MB
  for (let v = 0; v < 20; v++) await put(port, 'big', SIZES['1 MB'](`v${v}`))
  // bench/eld-monitor.mjs (preloaded with ELD_OUT) times the loop's delay from here to the end
  const markLoopDelay = () => env.ELD_OUT && process.kill(pid, 'SIGUSR2')
  markLoopDelay()
  const stopAt = Date.now() + SECONDS * 1000
  // the newest page of history again and again (2 MiB of lists; older pages cost the same)
  const historyPages = () => request(port, 'GET', '/v1/sessions/big/history')
  const [probe, ...clients] = await Promise.all([
    livez(port, SECONDS),
    ...Array.from({ length: 4 }, () =>
      loop(stopAt, () => request(port, 'GET', '/v1/sessions?limit=100'))
    ),
    loop(stopAt, () => snapshotOnce(port)),
    loop(stopAt, historyPages),
  ])
  markLoopDelay()
  const listings = clients.slice(0, 4)
  return {
    livez: probe,
    listings: listings.reduce((n, c) => n + c.latencies.length, 0),
    listingStatuses: merge(listings.map((c) => c.statuses)),
    listingP99: pct(
      listings.flatMap((c) => c.latencies),
      99
    ),
    snapshots: clients[4].latencies.length,
    snapshotStatuses: clients[4].statuses,
    snapshotP99: pct(clients[4].latencies, 99),
    historyPages: clients[5].latencies.length,
    historyP99: pct(clients[5].latencies, 99),
  }
}

/** One key PUTting 1 MB lists on two connections while another session is read; /livez probed. */
async function writerPhase(port) {
  await put(port, 'small', SIZES['1 KB']('small'))
  const writeStop = Date.now() + SECONDS * 1000
  let version = 0
  const [writeProbe, reads, ...writers] = await Promise.all([
    livez(port, SECONDS),
    loop(writeStop, () => request(port, 'GET', '/v1/sessions/small')),
    ...[0, 1].map((w) =>
      loop(writeStop, async () => ({
        status: await putStatus(port, `w${w}`, SIZES['1 MB'](`w${version++}`)),
      }))
    ),
  ])
  return {
    livez: writeProbe,
    writes: writers.reduce((n, c) => n + (c.statuses[200] ?? 0), 0),
    writeStatuses: merge(writers.map((c) => c.statuses)),
    readP99: pct(reads.latencies, 99),
    reads: reads.latencies.length,
  }
}

/** The server's CPU per listing of 100 sessions of one size, and the listings' statuses. */
async function listingCost(build, store, size) {
  const server = await start(build, store)
  try {
    const result = { size, statuses: {} }
    if (PARTS.includes('writer') && !PARTS.includes('readers')) {
      result.writer = await writerPhase(server.port)
      return result
    }
    const items = SIZES[size]('s')
    for (let i = 0; i < SESSIONS; i++) await put(server.port, `s${i}`, items)
    await request(server.port, 'GET', '/v1/sessions?limit=100') // warm
    const statuses = {}
    const latencies = []
    const a = snapshot([server.pid])
    for (let i = 0; i < LISTINGS; i++) {
      const t = performance.now()
      const { status } = await request(server.port, 'GET', '/v1/sessions?limit=100')
      latencies.push(performance.now() - t)
      statuses[status] = (statuses[status] ?? 0) + 1
    }
    const b = snapshot([server.pid])
    const { seconds, procs } = cpuBetween(a, b)
    const cpuMs = ((procs[0] / 100) * seconds * 1000) / LISTINGS
    Object.assign(result, { cpuMs, p50: pct(latencies, 50), max: Math.max(...latencies), statuses })
    if (size !== '1 MB') return result
    if (PARTS.includes('readers')) result.readers = await readersPhase(server.port, server.pid)
    if (PARTS.includes('writer')) result.writer = await writerPhase(server.port)
    return result
  } finally {
    await server.stop()
  }
}

const merge = (maps) => {
  const out = {}
  for (const m of maps) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v
  return out
}
const statusText = (m) =>
  Object.entries(m)
    .map(([k, v]) => `${v}× ${k}`)
    .join(', ')

const startedAt = new Date()
const results = []
if (STORES.includes('redis') && !(await redisInfo())) {
  console.error('no Redis at REDIS_URL: skipping the Redis runs')
  STORES.splice(STORES.indexOf('redis'), 1)
}
for (const store of STORES) {
  for (const build of builds) {
    for (const size of PARTS.includes('cpu') ? ['1 KB', '1 MB'] : ['1 MB']) {
      const r = await listingCost(build, store, size)
      results.push({ build: build.label, store, ...r })
      console.error(JSON.stringify(results.at(-1)))
    }
  }
}
agent.destroy()
fs.rmSync(dataDir, { recursive: true, force: true })

const lines = [
  `Generated by \`node bench/large-sessions.mjs\` on ${startedAt.toISOString()}: node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}; server on core 0, probes on core 1${PINNED ? ' (taskset)' : ' (not pinned)'}. ${SESSIONS} sessions of each size (1 MB: 100 claude-tasks items of 9,900 characters, about 1,000,000 B stored), ${LISTINGS} listings of 100 one at a time for the CPU, ${SECONDS} s per loaded phase.`,
  '',
  '| build | store | sessions | server CPU per listing ms | listing p50 ms | listing statuses | 1 MB / 1 KB CPU |',
  '|---|---|---|---|---|---|---|',
]
for (const r of results) {
  if (r.cpuMs === undefined) continue
  const small = results.find((x) => x.build === r.build && x.store === r.store && x.size === '1 KB')
  lines.push(
    `| ${r.build} | ${r.store} | ${r.size} | ${f2(r.cpuMs)} | ${f2(r.p50)} | ${statusText(r.statuses)} | ${r.size === '1 MB' && small ? f2(r.cpuMs / small.cpuMs) : ''} |`
  )
}
lines.push(
  '',
  'Readers on the 1 MB sessions: four listing clients, one tenant stream reopened until each snapshot, one paging history:',
  '',
  '| build | store | /livez p50 / p99 / max ms | listings (statuses) | listing p99 ms | snapshots (p99 ms) | history pages (p99 ms) |',
  '|---|---|---|---|---|---|---|'
)
for (const r of results.filter((x) => x.readers)) {
  const rd = r.readers
  lines.push(
    `| ${r.build} | ${r.store} | ${f2(rd.livez.p50)} / ${f2(rd.livez.p99)} / ${f0(rd.livez.max)} | ${rd.listings} (${statusText(rd.listingStatuses)}) | ${f0(rd.listingP99)} | ${rd.snapshots} (${f0(rd.snapshotP99)}) | ${rd.historyPages} (${f0(rd.historyP99)}) |`
  )
}
lines.push(
  '',
  'One key writing 1 MB lists on two connections while another session is read:',
  '',
  '| build | store | /livez p50 / p99 / max ms | 1 MB writes done (statuses) | other reads (p99 ms) |',
  '|---|---|---|---|---|'
)
for (const r of results.filter((x) => x.writer)) {
  const w = r.writer
  lines.push(
    `| ${r.build} | ${r.store} | ${f2(w.livez.p50)} / ${f2(w.livez.p99)} / ${f0(w.livez.max)} | ${w.writes} (${statusText(w.writeStatuses)}) | ${w.reads} (${f0(w.readP99)}) |`
  )
}
const text = lines.join('\n')
console.log(text)
if (OUT) writeSection(OUT, 'large-sessions', text)
