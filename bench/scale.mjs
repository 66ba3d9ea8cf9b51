// Scale run: 100k sessions written through the real server (compiled), RSS of the server process
// at 0, 10k and 100k stored sessions, and the cost of a round at each stage and at history length
// 1 vs 50. Writes its section of bench/results.md and bench/scale.json.
// Usage: node bench/scale.mjs   (env SCALE_STORES=sqlite,redis  SCALE_SESSIONS=100000
//        SCALE_PROBE=5 seconds per probe, BENCH_OUT=bench/results.md)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  BENCH,
  cpuBetween,
  dropRedisPrefix,
  f2,
  REDIS_URL,
  redisInfo,
  rssMB,
  runClient,
  snapshot,
  startTarget,
  writeSection,
} from './lib.mjs'

const started = Date.now()
const STORES = (process.env.SCALE_STORES || 'sqlite,redis').split(',').filter(Boolean)
const TOTAL = Number(process.env.SCALE_SESSIONS || 100_000)
const FIRST = Math.round(TOTAL / 10)
const PROBE = Number(process.env.SCALE_PROBE || 5)
const OUT = process.env.BENCH_OUT || path.join(BENCH, 'results.md')
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–')
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-scale-'))

async function heapMB(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const m = /^nodejs_heap_size_used_bytes (\S+)/m.exec(text)
  return m ? Number(m[1]) / 1048576 : NaN
}

/** RSS and heap after a second of quiet, then again after a full GC. */
async function memory(server) {
  await new Promise((r) => setTimeout(r, 1000))
  const lazy = { rss: rssMB(server.pid), heap: await heapMB(server.port) }
  process.kill(server.pid, 'SIGUSR2')
  await new Promise((r) => setTimeout(r, 1000))
  return { ...lazy, gcRss: rssMB(server.pid), gcHeap: await heapMB(server.port) }
}

async function probe(server, label, run) {
  const marks = {}
  const [loaded, unloaded] = await runClient(
    {
      port: server.port,
      connections: 50,
      warmup: 1,
      duration: PROBE,
      runs: [
        { name: `${label} c=50`, scenario: 'round-todo', ...run },
        {
          name: `${label} c=1`,
          scenario: 'round-todo',
          ...run,
          connections: 1,
          warmup: 0,
          duration: Math.max(2, PROBE / 2),
        },
      ],
    },
    (kind, name) => ((marks[name] ??= {})[kind] = snapshot([server.pid]))
  )
  const cpu = cpuBetween(marks[loaded.name].START, marks[loaded.name].END)
  const result = {
    label,
    rps: loaded.rps,
    p50: loaded.p50,
    p99: loaded.p99,
    usPerReq: ((cpu.procs[0] / 100) * 1e6) / loaded.rps,
    c1p50: unloaded.p50,
    c1p99: unloaded.p99,
    bad: loaded.bad + loaded.errors + unloaded.bad + unloaded.errors,
  }
  console.log(
    `  ${label.padEnd(24)} ${Math.round(result.rps)} req/s, p50 ${f2(result.p50)} ms, p99 ${f2(result.p99)} ms, ${Math.round(result.usPerReq)} µs/req; c=1 p50 ${f2(result.c1p50)} ms, p99 ${f2(result.c1p99)} ms; failed ${result.bad}`
  )
  return result
}

async function bulk(server, prefix, start, amount) {
  const t = Date.now()
  const [r] = await runClient({
    port: server.port,
    connections: 50,
    warmup: 0,
    runs: [
      {
        name: `write ${prefix}${start}…`,
        scenario: 'round-todo',
        prefix,
        sequential: true,
        start,
        amount,
      },
    ],
  })
  const seconds = (Date.now() - t) / 1000
  console.log(
    `  wrote ${amount} sessions in ${seconds.toFixed(1)} s (${Math.round(amount / seconds)}/s), failed ${r.bad + r.errors} ${JSON.stringify(r.statuses)}`
  )
  return { seconds, bad: r.bad + r.errors }
}

const SCALE_JSON = path.join(BENCH, 'scale.json')
// stores measured before (another invocation) stay in the report unless measured again
const report = (
  fs.existsSync(SCALE_JSON) ? JSON.parse(fs.readFileSync(SCALE_JSON, 'utf8')) : []
).filter((r) => !STORES.includes(r.store) && r.memory?.start?.gcRss !== undefined)
for (const store of STORES) {
  if (store === 'redis' && !(await redisInfo())) {
    console.error(`Redis at ${REDIS_URL} does not answer: skipping`)
    continue
  }
  const sqlitePath = path.join(dataDir, `scale-${store}.db`)
  const prefix = `scale-${process.pid}`
  const env =
    store === 'sqlite'
      ? { STORE: 'sqlite', SQLITE_PATH: sqlitePath }
      : { STORE: 'redis', REDIS_URL, REDIS_KEY_PREFIX: prefix }
  console.log(`${store}:`)
  const server = await startTarget('service', env, [
    '--expose-gc',
    '--import',
    path.join(BENCH, 'gc-on-signal.mjs'),
  ])
  const r = { store, memory: {}, probes: [], writes: [] }
  try {
    r.memory.start = await memory(server)
    r.probes.push(await probe(server, '0 sessions', { prefix: 'p0-', pool: 1000 }))
    r.memory['0'] = await memory(server)
    r.writes.push(await bulk(server, 'b', 0, FIRST))
    r.probes.push(await probe(server, `${FIRST / 1000}k sessions`, { prefix: 'p1-', pool: 1000 }))
    r.memory[FIRST] = await memory(server)
    r.writes.push(await bulk(server, 'b', FIRST, TOTAL - FIRST))
    r.probes.push(await probe(server, `${TOTAL / 1000}k sessions`, { prefix: 'p2-', pool: 1000 }))
    r.memory[TOTAL] = await memory(server)
    // history length: sessions written once (each probe round makes version 2) vs sessions at
    // the 50-version history bound (every round prunes one)
    r.probes.push(await probe(server, 'history 1', { prefix: 'b', pool: TOTAL }))
    const [advance] = await runClient({
      port: server.port,
      connections: 50,
      warmup: 0,
      runs: [
        {
          name: 'advance',
          scenario: 'round-todo',
          prefix: 'h',
          sequential: true,
          cycle: true,
          pool: 1000,
          amount: 55_000,
        },
      ],
    })
    console.log(`  advanced 1000 sessions to 55 versions, failed ${advance.bad + advance.errors}`)
    r.probes.push(await probe(server, 'history 50', { prefix: 'h', pool: 1000 }))
    r.memory.end = await memory(server)
    if (store === 'sqlite') {
      const size = (f) => (fs.existsSync(f) ? fs.statSync(f).size / 1048576 : 0)
      r.files = { dbMB: size(sqlitePath), walMB: size(`${sqlitePath}-wal`) }
    }
  } finally {
    await server.stop()
    if (store === 'redis') await dropRedisPrefix(prefix)
  }
  r.at = new Date().toISOString()
  report.push(r)
}
fs.rmSync(dataDir, { recursive: true, force: true })

const lines = [
  `Generated by \`node bench/scale.mjs\` (${report.map((r) => `${r.store} at ${r.at}`).join(', ')}; this invocation ${((Date.now() - started) / 60000).toFixed(1)} min). The server (compiled, pinned to core 0, LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE=0, HISTORY_LIMIT=50) is written ${TOTAL.toLocaleString('en-US')} sessions (one s03 round with 5 items each) by autocannon at 50 connections. Probes: ${PROBE} s of s03 rounds at c=50 (req/s, p50, p99, server CPU per round) and ${Math.max(2, PROBE / 2)} s at c=1 (unloaded latency), each on 1,000 sessions of its own, so that history depth is alike at every stage. Memory: the server's RSS and V8 heap used after 1 s of quiet, and again after a full GC (the server runs with --expose-gc and bench/gc-on-signal.mjs; SIGUSR2).`,
  '',
  '| store | stage | req/s | p50 ms | p99 ms | µs CPU/round | c=1 p50 ms | c=1 p99 ms | failed |',
  '|---|---|---|---|---|---|---|---|---|',
]
for (const r of report) {
  for (const p of r.probes) {
    lines.push(
      `| ${r.store} | ${p.label} | ${Math.round(p.rps).toLocaleString('en-US')} | ${f2(p.p50)} | ${f2(p.p99)} | ${Math.round(p.usPerReq)} | ${f2(p.c1p50)} | ${f2(p.c1p99)} | ${p.bad} |`
    )
  }
}
lines.push(
  '',
  '| store | memory | at start | at 0 sessions (warm) | at 10k | at 100k | growth 0 → 100k | after the history runs | files |',
  '|---|---|---|---|---|---|---|---|---|'
)
for (const r of report) {
  const m = r.memory
  const row = (label, key, target) =>
    lines.push(
      `| ${r.store} | ${label} | ${f1(m.start[key])} MB | ${f1(m['0'][key])} MB | ${f1(m[FIRST][key])} MB | ${f1(m[TOTAL][key])} MB | **${f1(m[TOTAL][key] - m['0'][key])} MB**${target} | ${f1(m.end[key])} MB | ${r.files ? `db ${f1(r.files.dbMB)} MB, wal ${f1(r.files.walMB)} MB` : '–'} |`
    )
  row('RSS', 'rss', ' (target ≤ 50)')
  row('RSS after a full GC', 'gcRss', '')
  row('V8 heap used', 'heap', '')
  row('V8 heap used after a full GC', 'gcHeap', '')
}
lines.push(
  '',
  `Writes: ${report.map((r) => `${r.store} ${r.writes.map((w) => `${Math.round(w.seconds)} s`).join(' + ')}`).join('; ')}.`
)
writeSection(OUT, 'scale', lines.join('\n'))
fs.writeFileSync(SCALE_JSON, JSON.stringify(report, null, 1) + '\n')
console.log('\n' + lines.join('\n'))
