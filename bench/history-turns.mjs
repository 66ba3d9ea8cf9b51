// `node --expose-gc bench/history-turns.mjs [label=distDir ...] [pages]`: the event-loop turns
// one GET /v1/sessions/{id}/history page of the largest lists holds, in process (app.request on a
// SQLite store, no sockets or clients), builds alternating. One session gets 20 versions of 1 MB
// (100 claude-tasks items of 9,900 characters); the newest page (two lists, ~2 MB) is read `pages`
// times (40) with its body consumed, while a setImmediate chain records the process's CPU between
// two of its ticks: the CPU of each turn in between. Prints, per build, the CPU per page and the
// longest turn per page (median, max), in ms. CPU, not wall time, so a loaded host changes little;
// run it under taskset to keep it on one core.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const PAGES = Number(args.find((a) => /^\d+$/.test(a)) ?? 40)
const builds = (
  args.filter((a) => a.includes('=')).length
    ? args.filter((a) => a.includes('='))
    : ['current=dist']
).map((arg) => {
  const [label, dir] = arg.split('=')
  return { label, dist: path.resolve(dir) }
})
const { default: pino } = await import(path.join(ROOT, 'node_modules/pino/pino.js'))

const list = (tag) =>
  Array.from({ length: 100 }, (_, i) => ({
    id: String(i + 1),
    content: i === 0 ? `${tag}: the step in progress` : `${tag} ${i} `.padEnd(9_900, 'x'),
    status: i === 0 ? 'in_progress' : i < 40 ? 'completed' : 'pending',
  }))
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]
const cpuMs = (usage) => (usage.user + usage.system) / 1000

async function measure({ label, dist }) {
  const { createApp } = await import(path.join(dist, 'http/app.js'))
  const { parseAuthKeys } = await import(path.join(dist, 'http/auth.js'))
  const { createSqliteStore } = await import(path.join(dist, 'store/sqlite.js'))
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'history-turns-'))
  const store = createSqliteStore({
    path: path.join(dir, 'h.db'),
    ttlMs: 3_600_000,
    historyLimit: 50,
    now: Date.now,
  })
  const app = createApp({
    store,
    logger: pino({ level: 'silent' }),
    keys: parseAuthKeys(undefined),
    bodyLimitBytes: 2 * 1024 * 1024,
    staleAfterMs: 900_000,
    historyLimit: 50,
    idempotencyTtlMs: 86_400_000,
    now: Date.now,
    isDraining: () => false,
    openapiDocument: null,
    sseHeartbeatMs: 15_000,
  })
  try {
    for (let v = 0; v < 20; v++) {
      const res = await app.request('/v1/sessions/big/todos', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ dialect: 'claude-tasks', items: list(`v${v}`) }),
      })
      if (res.status !== 200) throw new Error(`PUT: ${res.status}`)
    }
    const page = async () => {
      const res = await app.request('/v1/sessions/big/history')
      const reader = res.body.getReader()
      while (!(await reader.read()).done);
    }
    for (let i = 0; i < 5; i++) await page()
    globalThis.gc?.()
    // the CPU of each turn: between two ticks of a setImmediate chain
    let turns = []
    let last = process.cpuUsage()
    let ticking = true
    const tick = () => {
      const now = process.cpuUsage()
      turns.push(cpuMs({ user: now.user - last.user, system: now.system - last.system }))
      last = now
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    const perPage = []
    const longest = []
    for (let i = 0; i < PAGES; i++) {
      turns = []
      const start = process.cpuUsage()
      await page()
      perPage.push(cpuMs(process.cpuUsage(start)))
      longest.push(Math.max(...turns))
    }
    ticking = false
    return {
      label,
      cpuPerPage: median(perPage),
      longestTurn: median(longest),
      longestTurnMax: Math.max(...longest),
    }
  } finally {
    await store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

for (const build of builds) {
  const r = await measure(build)
  console.log(
    `${r.label}: CPU per page ${r.cpuPerPage.toFixed(2)} ms, longest turn ${r.longestTurn.toFixed(2)} ms (max ${r.longestTurnMax.toFixed(2)})`
  )
}
