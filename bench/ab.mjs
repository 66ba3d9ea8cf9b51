// A/B of compiled variants of the service (e.g. a patched copy of dist/): alternating, same
// scenario and store, medians of req/s, p99 and server CPU per request, and each variant's CPU
// per request over the first variant's, paired by round.
// Usage: node bench/ab.mjs <scenario> <store> <rounds> <seconds> name=dir [name=dir …]
// where each dir holds a built dist/ and resolves node_modules (a worktree of another commit, or
// a copy of dist/ with package.json and a node_modules symlink beside it). AB_PREFIX and AB_FILL:
// below.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  fillRun,
  cpuBetween,
  dropRedisPrefix,
  median,
  REDIS_URL,
  runClient,
  snapshot,
  startTarget,
} from './lib.mjs'

const [scenario, store, rounds, seconds, ...specs] = process.argv.slice(2)
// AB_PREFIX: another session pool of the scenario (`H`); AB_FILL: calls each of its sessions
// gets before the measured run (64: the long sessions of bench:ingest's `at cap` runs); AB_RATE:
// an open pace of that many requests/s instead of as fast as answered (the latency when not
// saturated: then each run's p99 and max are printed, and the medians)
const prefix = process.env.AB_PREFIX || undefined
const fill = Number(process.env.AB_FILL || 0)
const rate = Number(process.env.AB_RATE || 0) || undefined
const variants = specs.map((s) => {
  const [name, dist] = s.split('=')
  // a variant is a folder holding dist/ (a patched copy of the build)
  return { name, dist: path.resolve(dist, 'dist') }
})
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-ab-'))
const loadStart = os.loadavg()[0]
const results = new Map(variants.map((v) => [v.name, []]))
let n = 0
for (let round = 1; round <= Number(rounds); round++) {
  for (const v of round % 2 ? variants : [...variants].reverse()) {
    const name = `ab-${process.pid}-${n++}`
    const env =
      store === 'sqlite'
        ? {
            STORE: 'sqlite',
            SQLITE_PATH: path.join(dir, `${name}.db`),
            ...(process.env.AB_SYNC ? { SQLITE_SYNC: process.env.AB_SYNC } : {}),
          }
        : store === 'redis'
          ? { STORE: 'redis', REDIS_URL, REDIS_KEY_PREFIX: name }
          : { STORE: 'memory' }
    if (process.env.AB_LOG_LEVEL) env.LOG_LEVEL = process.env.AB_LOG_LEVEL
    const server =
      v.name === 'ceiling'
        ? await startTarget('ceiling')
        : await startTarget('service', env, [], v.dist)
    const marks = {}
    try {
      const [r] = await runClient(
        {
          port: server.port,
          connections: 50,
          warmup: 2,
          duration: Number(seconds),
          seed: true,
          runs: [
            ...(fill > 0 ? [fillRun(scenario, prefix, fill)] : []),
            { name: scenario, scenario, prefix, rate },
          ],
        },
        (kind) => (marks[kind] = snapshot([server.pid]))
      )
      const cpu = cpuBetween(marks.START, marks.END)
      const us = ((cpu.procs[0] / 100) * 1e6) / r.rps
      results.get(v.name).push({ rps: r.rps, p99: r.p99, us, bad: r.bad + r.errors })
      console.log(
        `r${round} ${v.name.padEnd(14)} ${Math.round(r.rps)} req/s p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(1)} ms, ${us.toFixed(0)} µs/req (srv ${cpu.procs[0].toFixed(0)}%) bad ${r.bad + r.errors} load ${os.loadavg()[0].toFixed(1)}`
      )
    } finally {
      await server.stop()
      if (env.REDIS_KEY_PREFIX) await dropRedisPrefix(name)
    }
  }
}
fs.rmSync(dir, { recursive: true, force: true })
console.log(
  `\n${scenario} on ${store}${rate ? ` at ${rate} req/s` : ''}: medians over ${rounds} rounds; 1-min load average ${loadStart.toFixed(2)} at the start, ${os.loadavg()[0].toFixed(2)} at the end`
)
const [first] = results.values()
for (const [name, rs] of results) {
  // the variants of one round ran back to back: their ratio shares that round's noise
  const paired = median(rs.map((r, i) => r.us / first[i].us))
  console.log(
    `${name.padEnd(14)} ${String(Math.round(median(rs.map((r) => r.rps)))).padStart(6)} req/s  p99 ${median(rs.map((r) => r.p99)).toFixed(2)} ms  ${median(rs.map((r) => r.us)).toFixed(0)} µs/req  × ${variants[0].name} (paired median) ${paired.toFixed(3)} (${Math.min(...rs.map((r, i) => r.us / first[i].us)).toFixed(2)}–${Math.max(...rs.map((r, i) => r.us / first[i].us)).toFixed(2)})`
  )
}
