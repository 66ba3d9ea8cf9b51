// `npm run bench`: the service (compiled, node dist/server.js) against a bare node:http ceiling in
// the same run, and the framework floor (bench/floor.mjs: hono + zod-openapi with the service's
// schemas and the ceiling's replies) that tells the fixed stack's share of the gap. Each target is a fresh process on core 0, driven by autocannon in a separate
// process on core 1: 50 connections, a warm-up, then a measured pass per scenario; targets
// alternate direction every round; medians over rounds. Writes bench/results.md (its generated
// section) and bench/results.json (the latest run, overwritten).
//
// Environment: BENCH_DURATION (s, default 10), BENCH_ROUNDS (3), BENCH_WARMUP (s per scenario,
// default 1, after the 1000-round seeding), BENCH_CONNECTIONS (50), BENCH_STORES
// (memory,sqlite,redis; postgres too, on POSTGRES_URL's server), BENCH_SCENARIOS (round-todo,round-other,get-200,get-304), BENCH_EXTRAS
// (comma list of: sqlite-full, memory-info-log, sqlite-info-log; each on round-todo only),
// BENCH_OUT (bench/results.md), BENCH_SECTION (the generated section's name, default bench),
// BENCH_DIST (another build to measure instead of dist/, e.g. a patched copy), BENCH_FLOOR=0 (skip
// the floor). Quick smoke run:
// BENCH_DURATION=3 BENCH_ROUNDS=1.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  BENCH,
  canary,
  cpuBetween,
  dropRedisPrefix,
  f0,
  f2,
  median,
  PINNED,
  REDIS_URL,
  redisInfo,
  freshPgDatabase,
  dropPgDatabase,
  POSTGRES_URL,
  runClient,
  snapshot,
  startTarget,
  writeSection,
} from './lib.mjs'
import { ROUND_SCENARIOS } from './workload.mjs'

const started = Date.now()
const env = process.env
const DURATION = Number(env.BENCH_DURATION || 10)
const ROUNDS = Number(env.BENCH_ROUNDS || 3)
const WARMUP = Number(env.BENCH_WARMUP ?? 1)
const SECTION = env.BENCH_SECTION || 'bench'
const DIST = env.BENCH_DIST ? path.resolve(env.BENCH_DIST) : undefined
const CONNECTIONS = Number(env.BENCH_CONNECTIONS || 50)
const OUT = env.BENCH_OUT || path.join(BENCH, 'results.md')
const RAW = `${OUT.replace(/\.md$/, '')}${SECTION === 'bench' ? '' : `-${SECTION}`}.json`
const STORES = (env.BENCH_STORES || 'memory,sqlite,redis').split(',').filter(Boolean)
const SCENARIO_NAMES = (env.BENCH_SCENARIOS || ROUND_SCENARIOS.join(',')).split(',').filter(Boolean)
const EXTRAS = (env.BENCH_EXTRAS || '').split(',').filter(Boolean)
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-bench-'))

const redis =
  STORES.includes('redis') || EXTRAS.some((e) => e.startsWith('redis')) ? await redisInfo() : null
let stores = STORES
if (STORES.includes('redis') && !redis) {
  console.error(`Redis at ${REDIS_URL} does not answer: skipping the redis store`)
  stores = STORES.filter((s) => s !== 'redis')
}

const pgDatabases = []
let prefixCounter = 0
async function targetEnv(name) {
  const sqlite = () => ({
    STORE: 'sqlite',
    SQLITE_PATH: path.join(dataDir, `${name}-${prefixCounter++}.db`),
  })
  switch (name) {
    case 'memory':
      return { STORE: 'memory' }
    case 'sqlite':
      return sqlite()
    case 'redis':
      return {
        STORE: 'redis',
        REDIS_URL,
        REDIS_KEY_PREFIX: `bench-${process.pid}-${prefixCounter++}`,
      }
    case 'postgres': {
      const database = `bench_${process.pid}_${prefixCounter++}`
      const url = await freshPgDatabase(database)
      if (!url) throw new Error(`no PostgreSQL at ${POSTGRES_URL}`)
      pgDatabases.push(database)
      return { STORE: 'postgres', DATABASE_URL: url }
    }
    case 'sqlite-full':
      return { ...sqlite(), SQLITE_SYNC: 'full' }
    case 'memory-info-log':
      return { STORE: 'memory', LOG_LEVEL: 'info' }
    case 'sqlite-info-log':
      return { ...sqlite(), LOG_LEVEL: 'info' }
    default:
      throw new Error(`unknown target ${name}`)
  }
}

const TARGETS = [
  { name: 'ceiling', scenarios: SCENARIO_NAMES },
  // the fixed stack alone (hono, zod-openapi, the service's schemas): how much of the gap is ours
  ...(env.BENCH_FLOOR === '0' ? [] : [{ name: 'floor', scenarios: SCENARIO_NAMES }]),
  ...stores.map((name) => ({ name, scenarios: SCENARIO_NAMES })),
  ...EXTRAS.map((name) => ({ name, scenarios: ['round-todo'] })),
]

const rows = []
async function runTarget(target, round) {
  const canaryMs = [await canary('0'), await canary('1')]
  const bare = target.name === 'ceiling' || target.name === 'floor'
  const targetEnvVars = bare ? {} : await targetEnv(target.name)
  const server = await startTarget(bare ? target.name : 'service', targetEnvVars, [], DIST)
  const redisPid = targetEnvVars.STORE === 'redis' ? redis.pid : 0
  const marks = {}
  const load = os.loadavg()[0]
  try {
    const results = await runClient(
      {
        port: server.port,
        connections: CONNECTIONS,
        warmup: WARMUP,
        duration: DURATION,
        seed: true,
        // the seeding rounds and the first scenario's warm-up warm the process; later scenarios
        // get half of it
        runs: target.scenarios.map((scenario, i) => ({
          name: scenario,
          scenario,
          warmup: i ? WARMUP / 2 : WARMUP,
        })),
      },
      (kind, name) => {
        ;(marks[name] ??= {})[kind] = snapshot([server.pid, redisPid])
      }
    )
    for (const r of results) {
      const cpu = cpuBetween(marks[r.name].START, marks[r.name].END)
      const row = {
        target: target.name,
        scenario: r.scenario,
        round,
        ...r,
        serverCpuPct: cpu.procs[0],
        redisCpuPct: cpu.procs[1],
        cores: cpu.cores,
        canaryMs,
        load,
        logBytes: server.logBytes(),
      }
      row.serverUsPerReq = ((row.serverCpuPct / 100) * 1e6) / row.rps
      rows.push(row)
      console.log(
        `r${round} ${target.name.padEnd(16)} ${r.scenario.padEnd(12)} ${String(Math.round(r.rps)).padStart(6)} req/s  p50 ${r.p50.toFixed(2)}  p99 ${r.p99.toFixed(2)} ms  srv ${row.serverCpuPct.toFixed(0)}% (${row.serverUsPerReq.toFixed(0)} µs/req)  cores ${Object.values(cpu.cores).join('/')}%  bad ${r.bad + r.errors + r.timeouts}  ${Math.round(r.avgBytes)} B  canary ${canaryMs.join('/')} ms  load ${load.toFixed(1)}`
      )
    }
  } finally {
    await server.stop()
    if (targetEnvVars.REDIS_KEY_PREFIX) await dropRedisPrefix(targetEnvVars.REDIS_KEY_PREFIX)
  }
}

console.log(
  `bench: ${ROUNDS} round(s) × [${TARGETS.map((t) => t.name).join(', ')}] × [${SCENARIO_NAMES.join(', ')}], ${DURATION} s measured, ${WARMUP} s warm-up, ${CONNECTIONS} connections, pinned: ${PINNED}`
)
for (let round = 1; round <= ROUNDS; round++) {
  const order = round % 2 ? TARGETS : [...TARGETS].reverse()
  for (const target of order) {
    await runTarget(target, round)
    await sleep(200)
  }
}
fs.rmSync(dataDir, { recursive: true, force: true })
const wallSeconds = (Date.now() - started) / 1000

// ---- summary ----
const cell = (target, scenario) =>
  rows.filter((r) => r.target === target && r.scenario === scenario)
const stat = (target, scenario) => {
  const rs = cell(target, scenario)
  if (!rs.length) return null
  return {
    n: rs.length,
    rps: median(rs.map((r) => r.rps)),
    min: Math.min(...rs.map((r) => r.rps)),
    max: Math.max(...rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    cpu: median(rs.map((r) => r.serverCpuPct)),
    us: median(rs.map((r) => r.serverUsPerReq)),
    redis: median(rs.map((r) => r.redisCpuPct)),
    bytes: median(rs.map((r) => r.avgBytes)),
    bad: rs.reduce((a, r) => a + r.bad + r.errors + r.timeouts, 0),
  }
}
const paired = (target, scenario, f) =>
  median(
    cell(target, scenario)
      .map((r) => {
        const c = cell('ceiling', scenario).find((x) => x.round === r.round)
        return c ? f(r) / f(c) : NaN
      })
      .filter(Number.isFinite)
  )

const TARGET_RATIOS = { memory: 0.6, sqlite: 0.3, redis: 0.4, postgres: 0.25 }
const P99_LIMIT = { memory: 3, sqlite: 5, redis: 3, postgres: 5 }
const lines = []
lines.push(
  `${DIST ? `Build measured: \`${DIST}\` (BENCH_DIST), not dist/. ` : ''}Generated by \`npm run bench\` on ${new Date().toISOString()}: node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${Math.round(os.totalmem() / 2 ** 30)} GB; ${ROUNDS} round(s), ${DURATION} s measured per scenario after a warm-up of ${WARMUP} s (${WARMUP / 2} s for the later scenarios of one process, which first answers 1,000 seeding rounds), ${CONNECTIONS} connections, pipelining 1; server ${PINNED ? 'pinned to core 0, autocannon to core 1 (taskset)' : 'NOT pinned (no taskset)'}; RATE_LIMIT_PER_MINUTE=0, LOG_LEVEL=warn unless named; Redis ${redis ? redis.version : 'not available'}. **Wall time: ${(wallSeconds / 60).toFixed(1)} min.**`
)
lines.push('')
lines.push(
  '| target | scenario | n | req/s median (min–max) | p50 ms | p99 ms | × ceiling req/s | paired | p99 × ceiling | srv CPU % | srv µs/req | reply B | failed |'
)
lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
for (const target of TARGETS) {
  for (const scenario of target.scenarios) {
    const s = stat(target.name, scenario)
    if (!s) continue
    const c = stat('ceiling', scenario)
    const isCeiling = target.name === 'ceiling'
    lines.push(
      `| ${target.name} | ${scenario} | ${s.n} | ${f0(s.rps)} (${f0(s.min)}–${f0(s.max)}) | ${f2(s.p50)} | ${f2(s.p99)} | ${isCeiling ? '1.00' : f2(s.rps / c.rps)} | ${isCeiling ? '–' : f2(paired(target.name, scenario, (r) => r.rps))} | ${isCeiling ? '1.00' : f2(s.p99 / c.p99)} | ${f0(s.cpu)}${s.redis >= 0.5 ? ` (+redis ${f0(s.redis)})` : ''} | ${f0(s.us)} | ${f0(s.bytes)} | ${s.bad} |`
    )
  }
}
lines.push('')
lines.push('Targets (ratio of medians to the ceiling in this run):')
lines.push('')
lines.push('| check | target | measured | |')
lines.push('|---|---|---|---|')
const check = (label, want, got, ok) =>
  lines.push(`| ${label} | ${want} | ${f2(got)} | ${ok ? 'met' : '**missed**'} |`)
for (const store of stores) {
  const s = stat(store, 'round-todo')
  const c = stat('ceiling', 'round-todo')
  if (s && c)
    check(
      `${store}: s03 round with todo write, req/s`,
      `≥ ${TARGET_RATIOS[store]}`,
      s.rps / c.rps,
      s.rps / c.rps >= TARGET_RATIOS[store]
    )
}
for (const store of stores) {
  const s = stat(store, 'get-304')
  const c = stat('ceiling', 'get-304')
  if (s && c) check(`${store}: GET 304, req/s`, '≥ 0.70', s.rps / c.rps, s.rps / c.rps >= 0.7)
}
for (const store of stores) {
  for (const scenario of SCENARIO_NAMES) {
    const s = stat(store, scenario)
    const c = stat('ceiling', scenario)
    if (s && c)
      check(
        `${store}: ${scenario} p99`,
        `≤ ${P99_LIMIT[store]}×`,
        s.p99 / c.p99,
        s.p99 / c.p99 <= P99_LIMIT[store]
      )
  }
}
lines.push('')
const canaries = rows.flatMap((r) => r.canaryMs)
lines.push(
  `Noise: canary (fixed CPU work, ~140–155 ms on an idle core) median ${f0(median(canaries))} ms, max ${f0(Math.max(...canaries))} ms; 1-min load average at run start median ${f2(median(rows.map((r) => r.load)))} (max ${f2(Math.max(...rows.map((r) => r.load)))}). Failed = responses other than the expected status, errors and timeouts.`
)
for (const database of pgDatabases) await dropPgDatabase(database).catch(() => undefined)
const text = lines.join('\n')
writeSection(OUT, SECTION, text)
fs.writeFileSync(RAW, JSON.stringify({ wallSeconds, rows }, null, 1) + '\n')
console.log('\n' + text)
console.log(
  `\nwall time ${wallSeconds.toFixed(0)} s; wrote ${path.relative(process.cwd(), OUT)} and ${path.relative(process.cwd(), RAW)}`
)
