// In-process A/B of the ingest and round paths of compiled variants: each variant's app (dist/http/app.js on
// its memory store) answers `app.request()` deliveries of a scenario in one process, the variants
// alternating batch by batch, and the process's CPU time per delivery is taken for each batch.
// No sockets, no client and no second process: on a loaded machine this measures what the
// service's own code costs per delivery far more steadily than bench/ab.mjs can.
// Each batch starts after a full collection (run with --expose-gc), so one variant's garbage is
// not collected in the other's batch; the first round of batches is a warm-up and not counted.
// Usage: node --expose-gc bench/ab-inproc.mjs <scenario> <batches> <per-batch> name=dir …
// scenario: ingest-todo (a new TodoWrite call, the next list, 64 sessions), ingest-cap (the same
// on sessions already holding 64 applied calls), ingest-dup (a delivery already applied),
// round-todo (an s03 round: a `todo` call with the next list and a `bash` call, 64 sessions).
import path from 'node:path'
import { builtApp, loadBuilt, median } from './lib.mjs'

const [scenario, batches, perBatch, ...specs] = process.argv.slice(2)
const SESSIONS = 64
const LISTS = [1, 2, 3, 4, 5].map((n) =>
  JSON.stringify(
    Array.from({ length: 5 }, (_, i) => ({
      content: `Step ${i + 1} of the task`,
      status: i < n - 1 ? 'completed' : i === n - 1 ? 'in_progress' : 'pending',
      activeForm: `Doing step ${i + 1}`,
    }))
  )
)
const hook = (session, id, k) =>
  `{"session_id":"${session}","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":${LISTS[k % 5]}},"tool_response":{"oldTodos":${k ? LISTS[(k - 1) % 5] : '[]'},"newTodos":${LISTS[k % 5]}},"tool_use_id":"${id}","duration_ms":1}`

const S03_LISTS = [1, 2, 3, 4, 5].map((n) =>
  JSON.stringify(
    Array.from({ length: 5 }, (_, i) => ({
      id: String(i + 1),
      text: `Step ${i + 1} of the task`,
      status: i < n - 1 ? 'completed' : i === n - 1 ? 'in_progress' : 'pending',
    }))
  )
)
const round = (id, k) =>
  `{"tool_calls":[{"id":"${id}","name":"todo","input":{"items":${S03_LISTS[k % 5]}}},{"id":"${id}_b","name":"bash","input":{"command":"ls"}}]}`

async function variant(name, dir) {
  const dist = path.resolve(dir, 'dist')
  const { createMemoryStore } = await loadBuilt(dist, 'store/memory.js')
  const now = () => Date.now()
  const app = await builtApp(dist, {
    store: createMemoryStore({ ttlMs: 24 * 3600 * 1000, historyLimit: 50, now }),
    now,
  })
  const counts = new Map()
  let serial = 0
  const post = async (body, session) => {
    const url = session ? `/v1/sessions/${session}/rounds` : '/v1/ingest/claude-code'
    const res = await app.request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    })
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`)
    await res.arrayBuffer()
  }
  const next = (i) => {
    const session = `s${i % SESSIONS}`
    const k = counts.get(session) ?? 0
    counts.set(session, k + 1)
    return hook(session, `toolu_${name}_${serial++}`, k)
  }
  if (scenario === 'round-todo') {
    const nextRound = (i) => {
      const session = `r${i % SESSIONS}`
      const k = counts.get(session) ?? 0
      counts.set(session, k + 1)
      return post(round(`toolu_${name}_${serial++}`, k), session)
    }
    for (let i = 0; i < SESSIONS; i++) await nextRound(i)
    return { name, deliver: nextRound, cpu: [] }
  }
  // the sessions exist (and, at cap, hold as many applied calls as they keep) before the runs
  const fill = scenario === 'ingest-cap' ? 64 : 1
  for (let i = 0; i < SESSIONS * fill; i++) await post(next(i))
  const dup = hook('s0', 'toolu_dup', 0)
  await post(dup)
  return { name, deliver: (i) => post(scenario === 'ingest-dup' ? dup : next(i)), cpu: [] }
}

const variants = []
for (const spec of specs) {
  const [name, dir] = spec.split('=')
  variants.push(await variant(name, dir))
}
const collect = globalThis.gc ?? (() => {})
for (let b = -1; b < Number(batches); b++) {
  for (const v of b % 2 ? [...variants].reverse() : variants) {
    collect()
    const start = process.cpuUsage()
    for (let i = 0; i < Number(perBatch); i++) await v.deliver(i)
    const used = process.cpuUsage(start)
    if (b >= 0) v.cpu.push((used.user + used.system) / Number(perBatch))
  }
}
const [first] = variants
console.log(
  `${scenario}: ${batches} batches of ${perBatch} deliveries, in process${globalThis.gc ? '' : ' (no --expose-gc)'}`
)
for (const v of variants) {
  const ratios = v.cpu.map((c, i) => c / first.cpu[i]).sort((a, b) => a - b)
  console.log(
    `${v.name.padEnd(8)} ${median(v.cpu).toFixed(1).padStart(7)} µs CPU/delivery  × ${first.name} (paired median) ${median(ratios).toFixed(3)} (${ratios[0].toFixed(2)}–${ratios.at(-1).toFixed(2)})`
  )
}
