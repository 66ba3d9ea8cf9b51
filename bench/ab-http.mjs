// HTTP-level A/B of builds of the service against the bare server, in one run: each variant is
// a real server process (`node dist/server.js`, a fresh one per trial, on a free port, pinned to
// core 0) driven by autocannon in its own process on core 1 (50 connections, pipelining 1) with
// one scenario (default: bench/run.mjs's s03 round with a 5-item todo write); the bare server
// (bench/ceiling.mjs: node:http parsing the same body and answering a reply of the same shape and
// size, the "ceiling" of bench/results.md) runs in every trial beside them. Trials alternate the
// order (forward, reversed, …); each variant's req/s is divided by the bare server's of the same
// trial, and the medians of those paired ratios are what to compare (absolute req/s move by
// ±20 % on this shared VM); so is the server's CPU per request as a ratio to the bare server's
// (the CPU-cost ratio of perf-baseline.md), steadier than req/s when other work shares the
// cores. Run it before landing a change to the write path (bench/README.md).
//
// Usage: node bench/ab-http.mjs [options] name=rev|dir [name=rev|dir …]
//   rev: a git revision (commit, branch, HEAD~3), built once into $AB_BUILD_DIR/<sha>
//        (default /tmp/agent-todos-ab-builds: a detached worktree, a symlink to this checkout's
//        node_modules, `tsc -p tsconfig.build.json` and scripts/copy-assets.mjs);
//   dir: a folder holding a built dist/ that resolves node_modules ('.' is this checkout).
// Options (environment, or --name=value):
//   --stores=sqlite,redis   stores to run (memory, sqlite, redis, postgres; default sqlite); each trial
//                           runs every store of every variant
//   --trials=6              alternating trials
//   --seconds=8             measured seconds per run (after a 2 s warm-up and the 1,000 seeding
//                           rounds bench/client.mjs writes first)
//   --scenario=round-todo   any scenario of bench/workload.mjs
//   --connections=50
//   --floor=1               also run bench/floor.mjs (hono + zod-openapi alone) each trial
// SQLite runs on a fresh file in a temp folder (SQLITE_SYNC=normal, the default); Redis under a
// key prefix of its own (`ab-http-<pid>-<n>`, deleted after each run) at REDIS_URL.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  cpuBetween,
  dropRedisPrefix,
  median,
  REDIS_URL,
  redisInfo,
  freshPgDatabase,
  dropPgDatabase,
  POSTGRES_URL,
  ROOT,
  runClient,
  snapshot,
  startTarget,
} from './lib.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const flag = args.find((a) => a.startsWith(`--${name}=`))
  if (flag) return flag.slice(name.length + 3)
  return process.env[`AB_${name.toUpperCase()}`] ?? fallback
}
const STORES = option('stores', 'sqlite').split(',').filter(Boolean)
const TRIALS = Number(option('trials', 6))
const SECONDS = Number(option('seconds', 8))
const SCENARIO = option('scenario', 'round-todo')
const CONNECTIONS = Number(option('connections', 50))
const FLOOR = option('floor', '0') === '1'
const BUILD_DIR = option('build_dir', path.join(os.tmpdir(), 'agent-todos-ab-builds'))
const specs = args.filter((a) => !a.startsWith('--'))
if (specs.length === 0) {
  console.error('usage: node bench/ab-http.mjs [--stores=…] [--trials=…] name=rev|dir …')
  process.exit(2)
}

const git = (...argv) => execFileSync('git', argv, { cwd: ROOT, encoding: 'utf8' }).trim()

/** A built tree of a git revision (built once; later runs reuse it). */
function buildRevision(rev) {
  const sha = git('rev-parse', '--short=10', `${rev}^{commit}`)
  const dir = path.join(BUILD_DIR, sha)
  if (fs.existsSync(path.join(dir, 'dist', 'server.js'))) return dir
  fs.mkdirSync(BUILD_DIR, { recursive: true })
  if (!fs.existsSync(dir)) git('worktree', 'add', '--detach', dir, sha)
  const modules = path.join(dir, 'node_modules')
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(ROOT, 'node_modules'), modules)
  console.log(`building ${rev} (${sha}) in ${dir}`)
  const run = (file, argv) => execFileSync(file, argv, { cwd: dir, stdio: 'inherit' })
  run(process.execPath, [path.join(modules, 'typescript/bin/tsc'), '-p', 'tsconfig.build.json'])
  run(process.execPath, ['scripts/copy-assets.mjs'])
  return dir
}

const variants = specs.map((spec) => {
  const [name, where] = spec.split('=')
  const asDir = path.resolve(where)
  const dir = fs.existsSync(path.join(asDir, 'dist', 'server.js')) ? asDir : buildRevision(where)
  return { name, dist: path.join(dir, 'dist') }
})

const redis = STORES.includes('redis') ? await redisInfo() : null
if (STORES.includes('redis') && !redis) throw new Error(`Redis at ${REDIS_URL} does not answer`)
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-ab-http-'))
let counter = 0
const pgDatabases = []
const storeEnv = async (store) => {
  const name = `ab-http-${process.pid}-${counter++}`
  if (store === 'sqlite') return { STORE: 'sqlite', SQLITE_PATH: path.join(dataDir, `${name}.db`) }
  if (store === 'redis') return { STORE: 'redis', REDIS_URL, REDIS_KEY_PREFIX: name }
  if (store === 'postgres') {
    // a database of its own per run, dropped at the end (builds before PostgreSQL refuse it)
    const database = name.replace(/-/g, '_')
    const url = await freshPgDatabase(database)
    if (!url) throw new Error(`no PostgreSQL at ${POSTGRES_URL}`)
    pgDatabases.push(database)
    return { STORE: 'postgres', DATABASE_URL: url }
  }
  return { STORE: 'memory' }
}

// every run of a trial: the references, then each variant on each store
const RUNS = [
  { label: 'bare', kind: 'ceiling' },
  ...(FLOOR ? [{ label: 'floor', kind: 'floor' }] : []),
  ...variants.flatMap((v) =>
    STORES.map((store) => ({ label: `${v.name}/${store}`, kind: 'service', store, dist: v.dist }))
  ),
]

const uptime = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
const rows = []
/** One server, one client run: req/s, p50, p99, server CPU per request. */
async function runOne(run, trial) {
  const env = run.kind === 'service' ? await storeEnv(run.store) : {}
  const server = await startTarget(run.kind, env, [], run.dist)
  const pids = [server.pid, run.store === 'redis' ? redis.pid : 0]
  const marks = {}
  const load = os.loadavg()[0]
  try {
    const [r] = await runClient(
      {
        port: server.port,
        connections: CONNECTIONS,
        warmup: 2,
        duration: SECONDS,
        seed: true,
        runs: [{ name: SCENARIO, scenario: SCENARIO }],
      },
      (kind) => (marks[kind] = snapshot(pids))
    )
    const cpu = cpuBetween(marks.START, marks.END)
    const row = {
      trial,
      label: run.label,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      us: ((cpu.procs[0] / 100) * 1e6) / r.rps,
      redisPct: cpu.procs[1],
      bad: r.bad + r.errors + r.timeouts,
      load,
    }
    rows.push(row)
    console.log(
      `t${trial} ${run.label.padEnd(22)} ${String(Math.round(r.rps)).padStart(6)} req/s  p50 ${r.p50.toFixed(2)}  p99 ${r.p99.toFixed(2)} ms  ${row.us.toFixed(0)} µs/req${row.redisPct >= 0.5 ? ` (+redis ${row.redisPct.toFixed(0)}%)` : ''}  bad ${row.bad}  load ${load.toFixed(2)}`
    )
  } finally {
    await server.stop()
    if (env.REDIS_KEY_PREFIX) await dropRedisPrefix(env.REDIS_KEY_PREFIX)
  }
}

const started = new Date()
console.log(
  `ab-http: ${SCENARIO}, ${TRIALS} trials × [${RUNS.map((r) => r.label).join(', ')}], ${SECONDS} s each, ${CONNECTIONS} connections; load average ${uptime()}`
)
for (let trial = 1; trial <= TRIALS; trial++) {
  for (const run of trial % 2 ? RUNS : [...RUNS].reverse()) await runOne(run, trial)
}
fs.rmSync(dataDir, { recursive: true, force: true })

// ---- summary: medians, and ratios paired by trial ----
const of = (label) => rows.filter((r) => r.label === label)
const paired = (label, base, f) => {
  const ratios = of(label)
    .map((r) => {
      const b = of(base).find((x) => x.trial === r.trial)
      return b ? f(r) / f(b) : NaN
    })
    .filter(Number.isFinite)
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) }
}
const fmt = ({ median: m, min, max }) => `${m.toFixed(3)} (${min.toFixed(2)}–${max.toFixed(2)})`
const lines = [
  `${started.toISOString()}, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}; ${SCENARIO}, ${TRIALS} trials alternating, ${SECONDS} s measured after 2 s warm-up, ${CONNECTIONS} connections; load average ${uptime()} at the end`,
  '',
  `| run | req/s median | p50 ms | p99 ms | µs CPU/req | × bare req/s (paired median, min–max) | bare's CPU/req ÷ its (paired) | × ${RUNS.find((r) => r.kind === 'service')?.label ?? '–'} req/s per store (paired) | failed |`,
  '|---|---|---|---|---|---|---|---|---|',
]
for (const run of RUNS) {
  const rs = of(run.label)
  const first = run.store ? `${variants[0].name}/${run.store}` : undefined
  lines.push(
    `| ${run.label} | ${Math.round(median(rs.map((r) => r.rps))).toLocaleString('en-US')} | ${median(rs.map((r) => r.p50)).toFixed(2)} | ${median(rs.map((r) => r.p99)).toFixed(2)} | ${median(rs.map((r) => r.us)).toFixed(0)} | ${run.label === 'bare' ? '1' : fmt(paired(run.label, 'bare', (r) => r.rps))} | ${run.label === 'bare' ? '1' : fmt(paired(run.label, 'bare', (r) => 1 / r.us))} | ${first ? fmt(paired(run.label, first, (r) => r.rps)) : '–'} | ${rs.reduce((a, r) => a + r.bad, 0)} |`
  )
}
const loads = rows.map((r) => r.load)
lines.push(
  '',
  `1-min load average at the start of each run: median ${median(loads).toFixed(2)}, min ${Math.min(...loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)} (2 cores; the server and the client pinned one each)`
)
console.log('\n' + lines.join('\n'))
for (const database of pgDatabases) await dropPgDatabase(database).catch(() => undefined)
