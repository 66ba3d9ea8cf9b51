// The hostile Copilot `sql` bodies of issue 32 (item 2) posted to a real server process while
// GET /livez is polled every 10 ms on a connection of its own (as bench/livez-probe.mjs does): what
// the worst body does to the event loop. Bodies (camelCase postToolUse hooks of `sql`, each posted `REPEAT` times, then
// `BURST` of each at once):
//   cross-join   UPDATE … WHERE (SELECT count(*) FROM sqlite_master × 15) > 0 (22.6 s of /livez
//                in the review)
//   pragma       INSERT … SELECT … FROM pragma_table_info (no parentheses)
//   statements   2,520 cheap UPDATEs in one call (312 ms of event loop each in the review)
//   slow-like    a LIKE of 1,000 wildcards over 140 rows of 1,000 characters, correlated: within
//                every bound of the replay, ~0.6–1.3 s of SQLite; refused at the 1 s deadline or
//                applied, in the worker thread either way
//   inline-max   the costliest call replayed on the event loop (bench/copilot-inline-worst.mjs):
//                DELETE of every todo of 93, each a scan of 83 todo_deps rows (foreign keys)
// Prints each body's reply times and statuses, and the probe's { n, p50, p99, max } (ms).
// Usage: node bench/copilot-hostile.mjs [repeat=3] [burst=4] [dist=dist]
// (BENCH_BODIES=cross-join,pragma posts only those; BENCH_BODIES=none probes an idle server)
import http from 'node:http'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ROOT, startTarget } from './lib.mjs'

const REPEAT = Number(process.argv[2] ?? 3)
const BURST = Number(process.argv[3] ?? 4)
const DIST = path.resolve(ROOT, process.argv[4] ?? 'dist')
const KEY = 'bench-copilot-hostile-key'

const server = await startTarget(
  'service',
  { STORE: 'memory', AUTH_KEYS: `t:agent:${KEY}` },
  [],
  DIST
)
const base = `http://127.0.0.1:${server.port}`
let clock = 1

/** Posts one successful `sql` hook of `session`; its status and wall time. */
async function post(session, query) {
  const t = performance.now()
  const res = await fetch(`${base}/v1/ingest/copilot`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      sessionId: session,
      timestamp: clock++,
      cwd: '/w',
      toolName: 'sql',
      toolArgs: { description: 'd', query },
      toolResult: { resultType: 'success', textResultForLlm: 'ok' },
    }),
  })
  const body = await res.json()
  return { status: res.status, applied: body.applied, ms: performance.now() - t }
}

// the sessions: three short rows, and 140 rows of 1,000 characters (INSERTs of 40 rows)
await post('small', "INSERT INTO todos (id, title) VALUES ('a', 'A'), ('b', 'B'), ('c', 'C')")
for (let at = 0; at < 140; at += 40) {
  const rows = Array.from(
    { length: Math.min(40, 140 - at) },
    (_, i) => `('t${at + i}', '${'x'.repeat(1000)}')`
  )
  const seeded = await post('long', `INSERT INTO todos (id, title) VALUES ${rows.join(', ')}`)
  if (seeded.applied !== 1)
    throw new Error(`seeding failed at row ${at}: ${JSON.stringify(seeded)}`)
}

// 93 todos and 83 dependencies (a chain): the largest the inline bound takes one DELETE of all on
for (let at = 0; at < 93; at += 40) {
  const rows = Array.from(
    { length: Math.min(40, 93 - at) },
    (_, i) => `('t${at + i}', '${`T${at + i}`.padEnd(8, 'x')}')`
  )
  await post('fk', `INSERT INTO todos (id, title) VALUES ${rows.join(', ')}`)
}
for (let at = 0; at < 83; at += 40) {
  const pairs = Array.from(
    { length: Math.min(40, 83 - at) },
    (_, i) => `('t${at + i + 1}', 't${at + i}')`
  )
  const seeded = await post(
    'fk',
    `INSERT INTO todo_deps (todo_id, depends_on) VALUES ${pairs.join(', ')}`
  )
  if (seeded.applied !== 1)
    throw new Error(`seeding failed at pair ${at}: ${JSON.stringify(seeded)}`)
}

const BODIES = {
  'cross-join': [
    'small',
    `UPDATE todos SET title = 'x' WHERE (SELECT count(*) FROM ${Array.from({ length: 15 }, (_, i) => `sqlite_master t${i}`).join(', ')}) > 0`,
  ],
  pragma: ['small', "INSERT INTO todos (id, title) SELECT name, 'x' FROM pragma_table_info"],
  statements: [
    'small',
    Array.from({ length: 2520 }, () => "UPDATE todos SET status = 'done' WHERE id = 'a'").join(
      '; '
    ),
  ],
  'slow-like': [
    'long',
    `UPDATE todos AS o SET status = 'done' WHERE EXISTS (SELECT 1 FROM todos b WHERE b.title LIKE '${'%x'.repeat(1000)}%y' || o.id)`,
  ],
  // fails on the foreign keys after visiting them all: applies nothing
  'inline-max': ['fk', "DELETE FROM todos WHERE status = 'pending'"],
}

// the probe: GET /livez every 10 ms on its own connection, until the bodies are done
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const latencies = []
let probing = true
const probe = (async () => {
  while (probing) {
    const t = performance.now()
    await new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: server.port, path: '/livez', agent }, (res) => {
          res.resume()
          res.on('end', resolve)
        })
        .on('error', reject)
    })
    latencies.push(performance.now() - t)
    await sleep(10)
  }
})()
await sleep(500)
const started = performance.now()
const results = {}
const ONLY = process.env.BENCH_BODIES?.split(',')
for (const [name, [session, query]] of Object.entries(BODIES)) {
  if (ONLY && !ONLY.includes(name)) continue
  const runs = []
  for (let i = 0; i < REPEAT; i++) runs.push(await post(session, query))
  runs.push(...(await Promise.all(Array.from({ length: BURST }, () => post(session, query)))))
  results[name] = {
    statuses: [...new Set(runs.map((r) => r.status))],
    applied: runs.map((r) => r.applied).join(''),
    maxMs: Math.round(Math.max(...runs.map((r) => r.ms))),
  }
}
const elapsed = (performance.now() - started) / 1000
console.log(
  `bodies posted in ${elapsed.toFixed(1)} s (each ${REPEAT} times, then ${BURST} at once)`
)
for (const [name, r] of Object.entries(results)) console.log(name.padEnd(12), JSON.stringify(r))
probing = false
await probe
agent.destroy()
await server.stop()
latencies.sort((x, y) => x - y)
const pct = (p) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]
console.log(
  'livez while they were ingested (ms):',
  JSON.stringify({
    n: latencies.length,
    p50: +pct(50).toFixed(1),
    p99: +pct(99).toFixed(1),
    max: +latencies.at(-1).toFixed(1),
  })
)
