// `npm run bench:ingest`: Claude Code hook ingest against a round on the same store (issue 13:
// "hook ingest at 50 concurrent deliveries vs a round on the same store; target ≤ 1.2× the
// round's server CPU and p99 under 10 ms"). One fresh server process (compiled, pinned to core 0)
// per store and round; in it, autocannon (core 1, 50 connections) first warms every scenario for
// BENCH_WARMUP s and fills the `H` and `S` sessions with 64 writes each (the cap of applied call
// ids, past the history limit), then drives, each
// run after a warm-up of its own: `round-todo` (the s03 round of `npm run bench`), `ingest-todo`
// (a TodoWrite PostToolUse hook input, a new tool_use_id and the next list of its session every
// delivery, so each one is applied and stored; on sessions that start empty, and on the filled
// ones) and `ingest-dup` (a delivery the session has already applied: a retried hook); then
// `round-todo` and `ingest-todo` again at an open pace of BENCH_RATE requests per second over the
// 50 connections (the latency an agent waits for when the server is not saturated), and in bursts
// of BENCH_BURST (50) released at once, the next 20 ms after the last answer (what the last of
// that many agents' hooks landing together waits for). The four saturating runs come
// BENCH_REPEAT times, the order reversed each time and every round; the ratio to the round's
// server CPU is taken between neighbours (against the round at the same pace) and its median
// reported. Each round also drives the ceiling (bench/ceiling.mjs: bare node:http that parses
// the hook body and answers `{}`) and the framework floor (bench/floor.mjs: @hono/node-server and
// @hono/zod-openapi validating the hook with the service's schema, answering `{}`) with the
// ingest runs: the machine's own latency at the same load, and the fixed stack's, in the same
// run; and the floor with the one durable write a stored delivery needs, in its cheapest form
// (bench/floor-store.mjs: `floor+sqlite` with SQLite's own checkpoints, `floor+sqlite-nockpt`
// with none, `floor+redis`), what this machine gives any stored delivery at that load. Writes
// the `ingest` section of bench/results.md and bench/results-ingest.json.
//
// Environment: BENCH_DURATION (s, default 5), BENCH_ROUNDS (3), BENCH_REPEAT (2), BENCH_WARMUP
// (s, default 2, per run), BENCH_CONNECTIONS (50), BENCH_RATE (req/s of the paced runs, default
// 1000; 0: none), BENCH_BURST (requests per burst, default 50; 0: none), BENCH_STORES
// (memory,sqlite,redis,ceiling,floor,floor+sqlite,floor+sqlite-nockpt,floor+redis; the Redis ones
// skipped when it does not answer),
// BENCH_DIST (another build), BENCH_OUT, BENCH_SECTION (ingest).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  fillRun,
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
  runClient,
  snapshot,
  startTarget,
  writeSection,
} from './lib.mjs'
import { SCENARIOS } from './workload.mjs'

const started = Date.now()
const env = process.env
const DURATION = Number(env.BENCH_DURATION || 5)
const ROUNDS = Number(env.BENCH_ROUNDS || 3)
const WARMUP = Number(env.BENCH_WARMUP ?? 2)
const CONNECTIONS = Number(env.BENCH_CONNECTIONS || 50)
const SECTION = env.BENCH_SECTION || 'ingest'
const DIST = env.BENCH_DIST ? path.resolve(env.BENCH_DIST) : undefined
const OUT = env.BENCH_OUT || path.join(BENCH, 'results.md')
const RAW = `${OUT.replace(/\.md$/, '')}-${SECTION}.json`
const RATE = Number(env.BENCH_RATE ?? 1000)
const REPEAT = Number(env.BENCH_REPEAT || 2)
const BURST = Number(env.BENCH_BURST ?? 50)
/** The runs of each process; `base` is the round each is compared with. */
const RUNS = [
  { name: 'round-todo', scenario: 'round-todo', base: 'round-todo' },
  { name: 'ingest-todo', scenario: 'ingest-todo', base: 'round-todo' },
  // long sessions: 64 writes each before any run, so that the applied ids are at their cap and the
  // history at its limit (every write also prunes a version); the round's long sessions are its
  // base, as a young session's round does not prune
  { name: 'round-todo at cap', scenario: 'round-todo', prefix: 'S', base: 'round-todo at cap' },
  { name: 'ingest-todo at cap', scenario: 'ingest-todo', prefix: 'H', base: 'round-todo at cap' },
  { name: 'ingest-dup', scenario: 'ingest-dup', base: 'round-todo' },
  ...(RATE > 0
    ? ['round-todo', 'ingest-todo'].map((scenario) => ({
        name: `${scenario} @${RATE}/s`,
        scenario,
        rate: RATE,
        base: `round-todo @${RATE}/s`,
      }))
    : []),
  ...(BURST > 0
    ? ['round-todo', 'ingest-todo'].map((scenario) => ({
        name: `${scenario} ×${BURST} at once`,
        scenario,
        burst: BURST,
        base: `round-todo ×${BURST} at once`,
      }))
    : []),
]
/**
 * The reference servers: no service work, for the machine's and the fixed stack's latency, and
 * the fixed stack's with a bare durable write per delivery.
 */
const REFERENCES = ['ceiling', 'floor', 'floor+sqlite', 'floor+sqlite-nockpt', 'floor+redis']
/** The bare-write floors of each durable store. */
const STORE_FLOORS = { sqlite: ['floor+sqlite', 'floor+sqlite-nockpt'], redis: ['floor+redis'] }
/** What the references run: the ingest at each load. */
const REFERENCE_RUNS = RUNS.filter((r) => r.scenario === 'ingest-todo' && !r.prefix)
/** The targets of issue 13. */
const CPU_RATIO = 1.2
const P99_MS = 10

let stores = (
  env.BENCH_STORES ||
  'memory,sqlite,redis,ceiling,floor,floor+sqlite,floor+sqlite-nockpt,floor+redis'
)
  .split(',')
  .filter(Boolean)
const usesRedis = (store) => store === 'redis' || STORE_FLOORS.redis.includes(store)
const redis = stores.some(usesRedis) ? await redisInfo() : null
if (stores.some(usesRedis) && !redis) {
  console.error(`Redis at ${REDIS_URL} does not answer: skipping redis and floor+redis`)
  stores = stores.filter((s) => !usesRedis(s))
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-bench-ingest-'))
let serial = 0
const storeEnv = (store) =>
  store === 'sqlite'
    ? { STORE: 'sqlite', SQLITE_PATH: path.join(dataDir, `ingest-${serial++}.db`) }
    : store === 'redis'
      ? { STORE: 'redis', REDIS_URL, REDIS_KEY_PREFIX: `bench-ingest-${process.pid}-${serial++}` }
      : { STORE: 'memory' }

const rows = []
async function runStore(store, round) {
  const canaryMs = [await canary('0'), await canary('1')]
  const load = os.loadavg()[0]
  const reference = REFERENCES.includes(store)
  const targetEnv = reference ? {} : storeEnv(store)
  const server = await startTarget(reference ? store : 'service', targetEnv, [], DIST)
  const redisPid = usesRedis(store) ? redis.pid : 0
  const runs = reference ? REFERENCE_RUNS : RUNS
  // the saturating runs REPEAT times back to back, the order reversed each time: a ratio taken
  // between neighbours shares their moment of a shared machine's load
  const saturating = runs.filter((r) => !r.rate && !r.burst)
  const paced = runs.filter((r) => r.rate || r.burst)
  const order = []
  for (let rep = 0; rep < REPEAT; rep++) {
    const set = (round + rep) % 2 ? saturating : [...saturating].reverse()
    order.push(...set.map((r) => ({ ...r, rep })))
  }
  order.push(...(round % 2 ? paced : [...paced].reverse()).map((r) => ({ ...r, rep: 0 })))
  const marks = {}
  try {
    const results = await runClient(
      {
        port: server.port,
        connections: CONNECTIONS,
        warmup: WARMUP,
        duration: DURATION,
        seed: false,
        // every code path warm before anything is measured, whichever run comes first
        runs: [
          ...(reference ? ['ingest-todo'] : ['round-todo', 'ingest-todo', 'ingest-dup']).map(
            (scenario) => ({
              name: `warm ${scenario}`,
              scenario,
              warmup: 0,
              duration: WARMUP,
            })
          ),
          // each of the pool's `H` sessions gets MAX_APPLIED_IDS calls, and each `S` session as
          // many rounds, in turn
          ...(reference
            ? []
            : [
                ['ingest-todo', 'H'],
                ['round-todo', 'S'],
              ].map(([scenario, prefix]) => fillRun(scenario, prefix, 64, `warm fill ${prefix}`))),
          ...order.map(({ name, scenario, rate, burst, rep, prefix }) => ({
            name: `${name}#${rep}`,
            scenario,
            rate,
            burst,
            prefix,
          })),
        ],
      },
      (kind, name) => {
        ;(marks[name] ??= {})[kind] = snapshot([server.pid, redisPid])
      }
    )
    for (const r of results.filter((x) => !x.name.startsWith('warm '))) {
      const cpu = cpuBetween(marks[r.name].START, marks[r.name].END)
      const [name, rep] = r.name.split('#')
      const row = {
        store,
        round,
        ...r,
        name,
        rep: Number(rep),
        serverCpuPct: cpu.procs[0],
        redisCpuPct: cpu.procs[1],
        serverUsPerReq: ((cpu.procs[0] / 100) * 1e6) / r.rps,
        redisUsPerReq: ((cpu.procs[1] / 100) * 1e6) / r.rps,
        cores: cpu.cores,
        canaryMs,
        load,
      }
      rows.push(row)
      console.log(
        `r${round}.${rep} ${store.padEnd(7)} ${name.padEnd(20)} ${String(Math.round(r.rps)).padStart(6)} req/s  p50 ${r.p50.toFixed(2)}  p99 ${r.p99.toFixed(2)} ms  srv ${row.serverCpuPct.toFixed(0)}% (${row.serverUsPerReq.toFixed(0)} µs/req${redisPid ? `, redis ${row.redisUsPerReq.toFixed(0)}` : ''})  bad ${r.bad + r.errors + r.timeouts}  canary ${canaryMs.join('/')} ms  load ${load.toFixed(1)}`
      )
    }
  } finally {
    await server.stop()
    if (targetEnv.REDIS_KEY_PREFIX) await dropRedisPrefix(targetEnv.REDIS_KEY_PREFIX)
  }
}

console.log(
  `bench:ingest: ${ROUNDS} round(s) × [${stores.join(', ')}] × [${RUNS.map((r) => r.name).join(', ')}], ${DURATION} s measured, ${WARMUP} s warm-up each, ${CONNECTIONS} connections, pinned: ${PINNED}`
)
for (let round = 1; round <= ROUNDS; round++) {
  for (const store of round % 2 ? stores : [...stores].reverse()) {
    await runStore(store, round)
    await sleep(200)
  }
}
fs.rmSync(dataDir, { recursive: true, force: true })
const wallSeconds = (Date.now() - started) / 1000

// ---- summary ----
const cell = (store, name) => rows.filter((r) => r.store === store && r.name === name)
const med = (rs, f) => median(rs.map(f))
/** A run's server CPU per request over its round's, per process; the median. */
const cpuRatio = (store, run) =>
  median(
    cell(store, run.name).map((r) => {
      const base = cell(store, run.base).find((x) => x.round === r.round && x.rep === r.rep)
      return base ? r.serverUsPerReq / base.serverUsPerReq : NaN
    })
  )

const lines = []
lines.push(
  `${DIST ? `Build measured: \`${DIST}\` (BENCH_DIST), not dist/. ` : ''}Generated by \`npm run bench:ingest\` on ${new Date().toISOString()}: node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}; ${ROUNDS} round(s), one server process per store and round: every scenario warmed, then the saturating runs ${REPEAT} times (order reversed each time) and the paced and burst ones once, each ${DURATION} s measured after ${WARMUP} s of warm-up, ${CONNECTIONS} connections, pipelining 1, as fast as answered, at an open pace (@ req/s), or ${BURST} at once (×${BURST} at once: released together, the next burst 20 ms after the last answer); server ${PINNED ? 'pinned to core 0, the load generator to core 1' : 'NOT pinned'}; RATE_LIMIT_PER_MINUTE=0, LOG_LEVEL=warn; Redis ${redis ? redis.version : 'not measured'}; \`ceiling\`: bench/ceiling.mjs, bare node:http that parses the hook body and answers \`{}\` (no framework, store or logging): the machine's own latency at each load; \`floor\`: bench/floor.mjs, the fixed stack alone (@hono/node-server, @hono/zod-openapi validating the hook with the service's schema, answering \`{}\`); \`floor+sqlite\`, \`floor+sqlite-nockpt\`, \`floor+redis\`: the floor with the one durable write a stored delivery needs, in its cheapest form (bench/floor-store.mjs: the hook upserted by session id in a group commit, with SQLite's own checkpoints or with none at all, the WAL only growing; or written by one EVALSHA; no read, history, index or event): what this machine gives any stored delivery at that load. **Wall time: ${(wallSeconds / 60).toFixed(1)} min.**`
)
lines.push('')
lines.push(
  '| store | run | n | req/s median (min–max) | p50 ms | p99 ms | srv CPU % | srv µs/req | × round srv µs (paired) | request B | failed |'
)
lines.push('|---|---|---|---|---|---|---|---|---|---|---|')
for (const store of stores) {
  for (const run of REFERENCES.includes(store) ? REFERENCE_RUNS : RUNS) {
    const rs = cell(store, run.name)
    if (!rs.length) continue
    const redisUs = med(rs, (r) => r.redisUsPerReq)
    lines.push(
      `| ${store} | ${run.name} | ${rs.length} | ${f0(med(rs, (r) => r.rps))} (${f0(Math.min(...rs.map((r) => r.rps)))}–${f0(Math.max(...rs.map((r) => r.rps)))}) | ${f2(med(rs, (r) => r.p50))} | ${f2(med(rs, (r) => r.p99))} | ${f0(med(rs, (r) => r.serverCpuPct))} | ${f0(med(rs, (r) => r.serverUsPerReq))}${redisUs >= 0.5 ? ` (+redis ${f0(redisUs)})` : ''} | ${REFERENCES.includes(store) ? '–' : run.name === run.base ? '1.00' : f2(cpuRatio(store, run))} | ${f0(Buffer.byteLength(SCENARIOS[run.scenario].body))} | ${rs.reduce((a, r) => a + r.bad + r.errors + r.timeouts, 0)} |`
    )
  }
}
lines.push('')
lines.push(`Targets (issue 13: ≤ ${CPU_RATIO}× the round's server CPU, p99 < ${P99_MS} ms):`)
lines.push('')
/** The median p99 of a reference server on the run of the same load (NaN when not run). */
const referenceP99 = (reference, run) => {
  const same = REFERENCE_RUNS.find((r) => r.rate === run.rate && r.burst === run.burst)
  const rs = same ? cell(reference, same.name) : []
  return rs.length ? med(rs, (r) => r.p99) : NaN
}
/** The p99 of the ceiling, the floor and the store's bare-write floors at a run's load. */
const referencesAt = (store, run) =>
  ['ceiling', 'floor', ...(STORE_FLOORS[store] ?? [])]
    .map((reference) => `${f2(referenceP99(reference, run))} (${reference})`)
    .join(', ')
lines.push('| check | target | measured | | p99 of the references at that load (same run), ms |')
lines.push('|---|---|---|---|---|')
for (const store of stores.filter((s) => !REFERENCES.includes(s))) {
  for (const run of RUNS.filter((r) => r.scenario !== 'round-todo')) {
    if (!cell(store, run.name).length) continue
    const ratio = cpuRatio(store, run)
    const p99 = med(cell(store, run.name), (r) => r.p99)
    lines.push(
      `| ${store}: ${run.name} server CPU | ≤ ${CPU_RATIO}× round | ${f2(ratio)} | ${ratio <= CPU_RATIO ? 'met' : '**missed**'} | |`
    )
    lines.push(
      `| ${store}: ${run.name} p99 | < ${P99_MS} ms | ${f2(p99)} | ${p99 < P99_MS ? 'met' : '**missed**'} | ${referencesAt(store, run)} |`
    )
  }
}
for (const [reference, what] of [
  ['ceiling', 'The machine itself at the same loads (`ceiling`, bare node:http, same run)'],
  ['floor', 'The fixed stack alone (`floor`, hono and zod-openapi, same run)'],
  [
    'floor+sqlite',
    "The fixed stack with a bare SQLite upsert per delivery, SQLite's own checkpoints (`floor+sqlite`, same run)",
  ],
  [
    'floor+sqlite-nockpt',
    'The same without any checkpoint, the WAL only growing (`floor+sqlite-nockpt`, same run)',
  ],
  [
    'floor+redis',
    'The fixed stack with a bare Redis EVALSHA per delivery (`floor+redis`, same run)',
  ],
]) {
  if (!stores.includes(reference)) continue
  lines.push('')
  lines.push(
    `${what}: ${REFERENCE_RUNS.map((run) => {
      const rs = cell(reference, run.name)
      return rs.length ? `${run.name} p99 ${f2(med(rs, (r) => r.p99))} ms` : null
    })
      .filter(Boolean)
      .join(', ')}.`
  )
}
lines.push('')
const canaries = rows.flatMap((r) => r.canaryMs)
lines.push(
  `Noise: canary (fixed CPU work, ~115–155 ms on an idle core) median ${f0(median(canaries))} ms, max ${f0(Math.max(...canaries))} ms; 1-min load average at each process start median ${f2(median(rows.map((r) => r.load)))} (max ${f2(Math.max(...rows.map((r) => r.load)))}). Failed = responses other than 200, errors and timeouts.`
)
const text = lines.join('\n')
writeSection(OUT, SECTION, text)
fs.writeFileSync(RAW, JSON.stringify({ wallSeconds, rows }, null, 1) + '\n')
console.log('\n' + text)
console.log(
  `\nwall time ${wallSeconds.toFixed(0)} s; wrote ${path.relative(process.cwd(), OUT)} and ${path.relative(process.cwd(), RAW)}`
)
