// The SQLite store's write path alone, without HTTP: compiled variants (dist/ folders, as for
// bench/ab.mjs) alternating, each on its own copy of a file it filled itself with 1,000 sessions
// of 64 versions (the history limit of 50 is passed, so every write also prunes one), then
// 30,000 updates of random sessions with 50 in flight, on core 0 (the checkpoint thread shares
// it; its CPU is counted). Each update changes one item's status, as a TodoWrite delivery does.
// Usage: node bench/store-writes.mjs [rounds=3] [name=dir …]   (default: main=. , built)
import { once } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, SERVER_CPU, spawnPinned } from './lib.mjs'

const SESSIONS = 1000
const FILL_VERSIONS = 64
const WRITES = 30_000
const IN_FLIGHT = 50
const TTL_MS = 86_400_000

const self = fileURLToPath(import.meta.url)

/** One process: fill `file` (when `fill`), or run the measured updates on it. */
async function child(dist, file, mode) {
  const { createSqliteStore } = await import(path.join(dist, 'store/sqlite.js'))
  const { makeItem } = await import(path.join(dist, 'core/items.js'))
  const { newSession } = await import(path.join(dist, 'core/session.js'))
  let clock = Date.parse('2026-12-01T12:00:00Z')
  const store = createSqliteStore({
    path: file,
    synchronous: 'normal',
    ttlMs: TTL_MS,
    historyLimit: 50,
    now: () => clock,
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
          // an observed session's bookkeeping, about the size ingest-todo's sessions carry
          observed: { source: 'claude-code', applied: 'x'.repeat(800), pending: [] },
        })
      const k = base.version % 5
      const items = base.items.map((item, i) =>
        i === k ? { ...item, status: statuses[base.version % 3] } : item
      )
      const next = { ...base, items, version: base.version + 1, updated_at: ++clock }
      return { value: next.version, write: { session: next, source: 'ingest' } }
    })
  if (mode === 'fill') {
    for (let v = 0; v < FILL_VERSIONS; v++) await Promise.all(keys.map(write))
    await store.close()
    return
  }
  let started = 0
  let done = 0
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
  await store.close()
  console.log(JSON.stringify({ rate: WRITES / seconds, cpuUs: (cpu.user + cpu.system) / WRITES }))
}

if (process.argv[2] === '--child') {
  await child(...process.argv.slice(3))
} else {
  const [rounds = '3', ...specs] = process.argv.slice(2)
  const variants = (specs.length > 0 ? specs : ['main=.']).map((s) => {
    const [name, dir] = s.split('=')
    return { name, dist: path.resolve(dir, 'dist') }
  })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-store-writes-'))
  const run = async (v, file, mode) => {
    const child = spawnPinned(SERVER_CPU, [self, '--child', v.dist, file, mode], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    const [code] = await once(child, 'exit')
    if (code !== 0) throw new Error(`${v.name} ${mode} exited with ${code}`)
    return mode === 'fill' ? undefined : JSON.parse(out.trim().split('\n').at(-1))
  }
  try {
    // each variant fills its own file: a newer schema is refused by an older build
    for (const v of variants) {
      v.fixture = path.join(dir, `${v.name}.db`)
      await run(v, v.fixture, 'fill')
      v.results = []
    }
    for (let round = 1; round <= Number(rounds); round++) {
      for (const v of round % 2 ? variants : [...variants].reverse()) {
        const file = path.join(dir, `${v.name}-run.db`)
        fs.copyFileSync(v.fixture, file)
        const result = await run(v, file, 'run')
        for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true })
        v.results.push(result)
        console.log(
          `r${round} ${v.name.padEnd(12)} ${Math.round(result.rate)} writes/s, ${result.cpuUs.toFixed(1)} µs CPU per write`
        )
      }
    }
    console.log(`\nmedians over ${rounds} rounds (${WRITES} writes each, ${IN_FLIGHT} in flight):`)
    for (const v of variants) {
      const rate = median(v.results.map((r) => r.rate))
      const cpu = median(v.results.map((r) => r.cpuUs))
      console.log(
        `${v.name.padEnd(12)} ${Math.round(rate)} writes/s, ${cpu.toFixed(1)} µs CPU per write`
      )
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
