// The costliest calls the Copilot replay takes on the event loop (src/dialects/copilot-todos/
// inline.ts: provably cheap ones run in place, the rest in the worker thread): each candidate
// is made as large as the bound lets it be inline (`replaysInline`), then replayed in this process's main thread, and its
// CPU time per replay printed (median and max of `runs`; CPU, not wall time: on a shared host a
// process waits for a CPU, and that wait is no work of the replay's), and the same for a no-op
// write on the same tables (what any replay of them costs: filling the copy, reading it back). Candidates push each term of the
// bound: many rows with foreign-key scans, long OR chains and IN lists at the length limit, long
// values copied between columns, eight statements.
// Usage: node bench/copilot-inline-worst.mjs [runs=50] [dist=dist] (after npm run build)
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT } from './lib.mjs'

const RUNS = Number(process.argv[2] ?? 50)
const DIST = path.resolve(ROOT, process.argv[3] ?? 'dist')
const load = (file) => import(pathToFileURL(path.join(DIST, file)).href)
const { replayTodoQuery } = await load('dialects/copilot-todos/sql.js')
const { replaysInline, inlineWork, MAX_INLINE_WORK } = await load(
  'dialects/copilot-todos/inline.js'
)

const rows = (n, length = 8) =>
  Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    title: `T${i}`.padEnd(length, 'x'),
    description: null,
    status: 'pending',
  }))
const chain = (n) => Array.from({ length: n }, (_, i) => [`t${i + 1}`, `t${i}`])
/** The largest `make(size)` (size counting down from `from`) that is still inline. */
function largest(from, make) {
  for (let size = from; size > 0; size--) {
    const { tables, query } = make(size)
    if (replaysInline(tables, query)) return { tables, query }
  }
  throw new Error('none inline')
}
const orChain = (n) =>
  `UPDATE todos SET status = 'done' WHERE ${Array.from({ length: n }, (_, i) => `title = 'T${i}xxxxx'`).join(' OR ')}`
const eight = (statement) => Array(8).fill(statement).join('; ')

const candidates = [
  {
    name: 'fk-scans: 8 DELETEs of every todo, todos = deps + 10',
    ...largest(200, (n) => ({
      tables: { todos: rows(n + 10), deps: chain(n) },
      query: eight("DELETE FROM todos WHERE status = 'pending'"),
    })),
  },
  {
    name: 'fk-scans: 1 DELETE of every todo, todos = deps + 10',
    ...largest(200, (n) => ({
      tables: { todos: rows(n + 10), deps: chain(n) },
      query: "DELETE FROM todos WHERE status = 'pending'",
    })),
  },
  {
    name: 'pk-update: 8 rewrites of every id, todos = deps + 10',
    ...largest(200, (n) => ({
      tables: { todos: rows(n + 10), deps: chain(n) },
      query: eight('UPDATE todos SET id = coalesce(id, title)'),
    })),
  },
  {
    name: 'or-chain: 8 UPDATEs of an OR chain over 60 todos',
    ...largest(400, (n) => ({ tables: { todos: rows(60), deps: [] }, query: eight(orChain(n)) })),
  },
  {
    name: 'or-chain: 1 UPDATE of an OR chain over 40 todos',
    ...largest(400, (n) => ({ tables: { todos: rows(40), deps: [] }, query: orChain(n) })),
  },
  {
    name: 'long values: 8 swaps of 8 todos of n characters',
    ...largest(20_000, (n) => ({
      tables: { todos: rows(8, n).map((r) => ({ ...r, description: r.title })), deps: [] },
      query: eight('UPDATE todos SET title = description, description = title'),
    })),
  },
]

for (const candidate of candidates) {
  const { query } = candidate
  const inline = replaysInline(candidate.tables, query)
  const time = (q) => {
    const times = []
    let outcome
    for (let i = 0; i < RUNS; i++) {
      const t = process.cpuUsage()
      outcome = replayTodoQuery(candidate.tables, q)
      const used = process.cpuUsage(t)
      times.push((used.user + used.system) / 1000)
    }
    times.sort((a, b) => a - b)
    return { outcome, median: times[times.length >> 1].toFixed(3), max: times.at(-1).toFixed(3) }
  }
  const { outcome, median, max } = time(query)
  const noop = time("UPDATE todos SET status = 'done' WHERE id = 'none'")
  console.log(
    `${candidate.name}: ${candidate.tables.todos.length} todos, ${candidate.tables.deps.length} deps, longest value ${Math.max(...candidate.tables.todos.map((r) => r.title.length))}; inline ${inline}, work ${Math.round(inlineWork(candidate.tables, query))} of ${MAX_INLINE_WORK}, ${query.length} chars; ran ${outcome.ran}, refused ${outcome.refused ?? '-'}; CPU ms median ${median} max ${max} (a no-op write on these tables: ${noop.median} / ${noop.max})`
  )
}
