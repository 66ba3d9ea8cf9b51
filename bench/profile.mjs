// Profiles the service under one scenario: node --cpu-prof dist/server.js, driven like the bench,
// then prints the heaviest functions (self time) and the heaviest call paths into our code.
// Usage: node bench/profile.mjs [scenario=round-todo] [store=memory] [seconds=8]
// (PROFILE_PREFIX, PROFILE_FILL: see below; PROFILE_OUT keeps the .cpuprofile)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fillRun, ROOT, runClient, startTarget } from './lib.mjs'

const [scenario = 'round-todo', store = 'memory', seconds = '8'] = process.argv.slice(2)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-prof-'))
const env =
  store === 'sqlite'
    ? { STORE: 'sqlite', SQLITE_PATH: path.join(dir, 'p.db') }
    : store === 'redis'
      ? {
          STORE: 'redis',
          REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
          REDIS_KEY_PREFIX: `prof-${process.pid}`,
        }
      : { STORE: 'memory' }
const server = await startTarget(
  'service',
  env,
  ['--cpu-prof', '--cpu-prof-dir', dir],
  process.env.PROFILE_DIST ? path.resolve(process.env.PROFILE_DIST, 'dist') : undefined
)
// PROFILE_PREFIX: another session pool of the scenario (`H`); PROFILE_FILL: calls each of its
// sessions gets before the profiled run (bench:ingest fills `H` to the cap of applied ids)
const prefix = process.env.PROFILE_PREFIX || undefined
const fill = Number(process.env.PROFILE_FILL || 0)
const results = await runClient({
  port: server.port,
  connections: 50,
  warmup: 1,
  duration: Number(seconds),
  seed: true,
  runs: [
    ...(fill > 0 ? [fillRun(scenario, prefix, fill)] : []),
    { name: scenario, scenario, prefix },
  ],
})
const result = results.at(-1)
await server.stop()
if (env.REDIS_KEY_PREFIX) await (await import('./lib.mjs')).dropRedisPrefix(env.REDIS_KEY_PREFIX)
console.log(
  `${scenario} on ${store}: ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`
)
const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
const keep = process.env.PROFILE_OUT
if (keep) fs.copyFileSync(path.join(dir, file), keep)
const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))

const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const self = new Map()
const dt = profile.timeDeltas
for (let i = 0; i < profile.samples.length; i++)
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0))
const total = [...self.values()].reduce((a, b) => a + b, 0)
const label = (n) => {
  const f = n.callFrame
  const url = f.url.replace(/^file:\/\//, '').replace(ROOT, '')
  return `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`
}
const selfBy = new Map()
const inclusive = new Map()
for (const [id, t] of self) {
  const key = label(byId.get(id))
  selfBy.set(key, (selfBy.get(key) ?? 0) + t)
  // inclusive: every distinct frame on the stack gets the sample once
  const seen = new Set()
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = label(byId.get(cur))
    if (seen.has(k)) continue
    seen.add(k)
    inclusive.set(k, (inclusive.get(k) ?? 0) + t)
  }
}
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n)
console.log(`\ntotal sampled ${(total / 1e6).toFixed(2)} s\n\nself time:`)
for (const [k, t] of top(selfBy, Number(process.env.TOP || 30)))
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`)
console.log('\ninclusive time (our code and libraries):')
for (const [k, t] of top(inclusive, Number(process.env.TOP_INC || 60)).filter(
  ([k]) => !k.startsWith('(root)')
)) {
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`)
}
fs.rmSync(dir, { recursive: true, force: true })
