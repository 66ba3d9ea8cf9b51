// How long a filtered listing holds the event loop on the SQLite store: one tenant of N sessions
// (default 20,000, 5-item lists, user `dev<i % 100>` on each, so `user=dev7` matches 1 in 100
// and `user=nobody` none), written through the store of each build, then `store.list()` timed
// for each query (the listing reads synchronously: the call's duration is the event loop's block).
// Each query runs 20 times; the median and the max of the calls, and the pages it took to follow
// the cursors to the end (and that every match came exactly once).
// Usage: node bench/sqlite-listing.mjs [sessions=20000] name=dir [name=dir …]
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadBuilt, median } from './lib.mjs'

const [countArg, ...specs] = process.argv.slice(2)
const SESSIONS = Number(countArg || 20_000)
const QUERIES = [
  { label: 'unfiltered, limit 50', query: { state: 'all' } },
  { label: 'user=dev7 (1 in 100)', query: { state: 'all', user: 'dev7' } },
  { label: 'user=nobody (none)', query: { state: 'all', user: 'nobody' } },
  { label: 'state=ended (none)', query: { state: 'ended' } },
  { label: 'label.team=x (none)', query: { state: 'all', labels: { team: 'x' } } },
]

async function measure(name, dist) {
  const { createSqliteStore } = await loadBuilt(dist, 'store/sqlite.js')
  const { newSession } = await loadBuilt(dist, 'core/session.js')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-todos-listing-'))
  let clock = Date.parse('2026-12-01T12:00:00Z')
  const store = createSqliteStore({
    path: path.join(dir, 'l.db'),
    synchronous: 'normal',
    ttlMs: 30 * 86_400_000,
    historyLimit: 5,
    now: () => clock,
  })
  const items = Array.from({ length: 5 }, (_, i) => ({
    id: String(i + 1),
    text: `Task ${i + 1}: ${'alpha bravo charlie delta '.repeat(5)}`,
    status: i === 0 ? 'in_progress' : 'pending',
  }))
  const write = (i) =>
    store.update({ tenant: 'big', sessionId: `s${i}` }, (current) => {
      const base = current ?? newSession({ tenant: 'big', sessionId: `s${i}` }, 's03', {}, clock)
      const session = {
        ...base,
        items,
        origin: { ...base.origin, user: `dev${i % 100}`, host: 'box' },
        version: base.version + 1,
        updated_at: ++clock,
      }
      return { value: session.version, write: { session, source: 'round' } }
    })
  for (let i = 0; i < SESSIONS; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, SESSIONS - i) }, (_, j) => write(i + j)))
  }
  const rows = []
  for (const { label, query } of QUERIES) {
    const q = { staleBefore: clock - 60_000, limit: 50, ...query }
    const times = []
    const cpu = []
    for (let i = 0; i < 20; i++) {
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      await store.list('big', q)
      times.push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      cpu.push((c.user + c.system) / 1000)
    }
    // follow the cursors to the end
    const seen = new Set()
    let pages = 0
    let duplicates = 0
    let cursor
    let longest = 0
    do {
      const t0 = performance.now()
      const page = await store.list('big', { ...q, cursor })
      longest = Math.max(longest, performance.now() - t0)
      pages++
      for (const s of page.sessions) {
        if (seen.has(s.session_id)) duplicates++
        seen.add(s.session_id)
      }
      cursor = page.next ?? undefined
    } while (cursor && pages < 10_000)
    rows.push({
      label,
      median: median(times),
      max: Math.max(...times),
      cpu: median(cpu),
      pages,
      found: seen.size,
      duplicates,
      longest,
    })
  }
  await store.close()
  fs.rmSync(dir, { recursive: true, force: true })
  console.log(
    `\n${name}: ${SESSIONS} sessions of one tenant, load average ${os.loadavg()[0].toFixed(2)}`
  )
  console.log(
    '| query | first page: median ms (max of 20) | CPU ms, median | pages to the end | matches found (duplicates) | longest page ms |'
  )
  console.log('|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${r.median.toFixed(2)} (${r.max.toFixed(2)}) | ${r.cpu.toFixed(2)} | ${r.pages} | ${r.found} (${r.duplicates}) | ${r.longest.toFixed(2)} |`
    )
  }
}

for (const spec of specs.length ? specs : ['head=.']) {
  const [name, dir] = spec.split('=')
  await measure(name, path.resolve(dir, 'dist'))
}
