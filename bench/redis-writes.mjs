// The Redis store's write path alone, without HTTP: compiled variants (dist/ folders, as for
// bench/ab.mjs) alternating in fresh processes on core 0, each under a key prefix of its own
// (deleted after the run): 1,000 sessions written 8 times, then WRITES updates of random
// sessions with 50 in flight. Each update changes one item's status, as a TodoWrite round does
// (so the brief's progress changes too). Per write: this process's CPU, redis-server's CPU
// (/proc ticks: Redis is shared, so other clients' work shows in it too), and the EVALSHA's own
// time by INFO commandstats (usec_per_call of evalsha, also shared: read it as a trend).
// Usage: node bench/redis-writes.mjs [rounds=3] [name=dir …]   (default: main=. , built)
import { once } from 'node:events'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  dropRedisPrefix,
  median,
  procTicks,
  REDIS_URL,
  redisInfo,
  SERVER_CPU,
  spawnPinned,
} from './lib.mjs'

const SESSIONS = 1000
const FILL_VERSIONS = 8
const WRITES = Number(process.env.REDIS_WRITES || 20_000)
const IN_FLIGHT = 50
const TTL_MS = 86_400_000

const self = fileURLToPath(import.meta.url)

/** evalsha calls and microseconds so far (INFO commandstats). */
async function evalshaStats(client) {
  const info = await client.info('commandstats')
  const m = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(info)
  return m ? { calls: Number(m[1]), usec: Number(m[2]) } : { calls: 0, usec: 0 }
}

/** One process: fill, then the measured updates, under `prefix`. */
async function child(dist, prefix, redisPid) {
  const load = (file) => import(pathToFileURL(path.join(dist, file)).href)
  const { createRedisStore } = await load('store/redis/index.js')
  const { makeItem } = await load('core/items.js')
  const { newSession } = await load('core/session.js')
  let clock = Date.now()
  const store = await createRedisStore({
    url: REDIS_URL,
    keyPrefix: prefix,
    ttlMs: TTL_MS,
    historyLimit: 50,
    staleAfterMs: 900_000,
    // a loaded host stalls a reply now and then: the bench measures CPU, not timeouts
    commandTimeoutMs: 30_000,
    now: () => clock,
    logger: { info() {}, warn() {}, error() {} },
  })
  const keys = Array.from({ length: SESSIONS }, (_, i) => ({
    tenant: 'default',
    sessionId: `s${i}`,
  }))
  const statuses = ['pending', 'in_progress', 'completed']
  const write = (key) =>
    store.update(key, (current) => {
      const base =
        current ??
        Object.assign(newSession(key, 'claude-todowrite', {}, clock), {
          items: Array.from({ length: 5 }, (_, i) =>
            makeItem({
              id: String(i + 1),
              content: `Task ${i + 1}: ${'alpha bravo charlie delta echo foxtrot '.repeat(4)}`,
              status: 'pending',
              active_form: `Working on task ${i + 1}`,
            })
          ),
        })
      const k = base.version % 5
      const items = base.items.map((item, i) =>
        i === k ? { ...item, status: statuses[base.version % 3] } : item
      )
      const next = {
        ...base,
        items,
        version: base.version + 1,
        round: base.round + 1,
        updated_at: ++clock,
      }
      return { value: next.version, write: { session: next, source: 'round' } }
    })
  for (let v = 0; v < FILL_VERSIONS; v++) {
    for (let i = 0; i < SESSIONS; i += IN_FLIGHT) {
      await Promise.all(keys.slice(i, i + IN_FLIGHT).map(write))
    }
  }
  let started = 0
  let done = 0
  const s0 = await evalshaStats(store.client)
  const r0 = procTicks(redisPid)
  const t0 = process.hrtime.bigint()
  const c0 = process.cpuUsage()
  await new Promise((resolve, reject) => {
    const next = () => {
      if (started === WRITES) return done === WRITES && resolve()
      started++
      write(keys[(Math.random() * SESSIONS) | 0]).then(() => {
        done++
        next()
      }, reject)
    }
    for (let i = 0; i < IN_FLIGHT; i++) next()
  })
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  const cpu = process.cpuUsage(c0)
  const redisUs = ((procTicks(redisPid) - r0) * 1e4) / WRITES
  const s1 = await evalshaStats(store.client)
  await store.close()
  console.log(
    JSON.stringify({
      rate: WRITES / seconds,
      cpuUs: (cpu.user + cpu.system) / WRITES,
      redisUs,
      evalshaUs: (s1.usec - s0.usec) / Math.max(1, s1.calls - s0.calls),
    })
  )
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], Number(process.argv[5]))
} else {
  const [rounds = '3', ...specs] = process.argv.slice(2)
  const variants = (specs.length > 0 ? specs : ['main=.']).map((s) => {
    const [name, dir] = s.split('=')
    return { name, dist: path.resolve(dir, 'dist'), results: [] }
  })
  const redis = await redisInfo()
  if (!redis) throw new Error(`Redis at ${REDIS_URL} does not answer`)
  let n = 0
  const run = async (v) => {
    const prefix = `redis-writes-${process.pid}-${n++}`
    try {
      const child = spawnPinned(SERVER_CPU, [self, '--child', v.dist, prefix, redis.pid], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let out = ''
      child.stdout.on('data', (d) => (out += d))
      const [code] = await once(child, 'exit')
      if (code !== 0) throw new Error(`${v.name} exited with ${code}`)
      return JSON.parse(out.trim().split('\n').at(-1))
    } finally {
      await dropRedisPrefix(prefix)
    }
  }
  const fmt = (r) =>
    `${Math.round(r.rate)} writes/s, ${r.cpuUs.toFixed(1)} µs CPU per write, redis-server ${r.redisUs.toFixed(1)} µs, evalsha ${r.evalshaUs.toFixed(1)} µs`
  for (let round = 1; round <= Number(rounds); round++) {
    for (const v of round % 2 ? variants : [...variants].reverse()) {
      const result = await run(v)
      v.results.push(result)
      console.log(`r${round} ${v.name.padEnd(12)} ${fmt(result)}`)
    }
  }
  console.log(`\nmedians over ${rounds} rounds (${WRITES} writes each, ${IN_FLIGHT} in flight):`)
  for (const v of variants) {
    const m = (k) => median(v.results.map((r) => r[k]))
    const row = {
      rate: m('rate'),
      cpuUs: m('cpuUs'),
      redisUs: m('redisUs'),
      evalshaUs: m('evalshaUs'),
    }
    console.log(`${v.name.padEnd(12)} ${fmt(row)}`)
  }
}
