// Server CPU per todo write, per observed agent's route (issue 26: each new route within 1.2× of a
// Claude Code hook on the same store). In process, like bench/ab-inproc.mjs: the compiled app
// (dist/http/app.js) answers `app.request()` deliveries, on the memory store and on the SQLite
// store (a temp file), no sockets and no client process. Per route a realistic todo write in the
// agent's own format, shaped after its captured payloads (test/fixtures/ingest/): every delivery
// carries a new call id / event id / timestamp and the session's next list, so each is applied and
// stored (a new version):
//   claude-code  PostToolUse TodoWrite hook (tool_input + tool_response old/new todos)
//   qwen-code    PostToolUse todo_write hook (tool_input + tool_response llmContent/returnDisplay)
//   opencode     a todo.updated event, as the plugin posts it (an array of events)
//   copilot      camelCase postToolUse of `sql`: one `UPDATE todos SET status = … WHERE id = …`
//                (each session's titles its own, so no replay is shared between sessions)
//   acp          an `agent-todos acp` tap line: the agent's session/update plan
// 64 sessions per route, the deliveries round-robin over them. Routes alternate batch by batch (the
// order reversed every other round), each batch after a full collection (run with --expose-gc);
// the first round is a warm-up. The process's CPU time (user + system, the SQLite checkpoint
// thread included) per delivery is taken per batch; the median per route and the ratio to the
// Claude Code batch of the same round (paired median) are printed.
// Usage: node --expose-gc bench/ingest-routes.mjs [batches=30] [per-batch=200] [store=both|memory|sqlite]
// (BENCH_ROUTES=claude-code,copilot runs only those routes, e.g. under --cpu-prof;
// BENCH_COPILOT_IDS=session gives each Copilot session row ids of its own, so no two sessions
// send the same statement text and the replay's kept verdicts (sql.ts, by exact text) miss)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { builtApp, loadBuilt, median } from './lib.mjs'

const BATCHES = Number(process.argv[2] ?? 30)
const PER_BATCH = Number(process.argv[3] ?? 200)
const STORES = (process.argv[4] ?? 'both') === 'both' ? ['memory', 'sqlite'] : [process.argv[4]]
const SESSIONS = 64
/** BENCH_ROUTES=claude-code,copilot: only these routes (to profile one). */
const ONLY = process.env.BENCH_ROUTES?.split(',')
/** BENCH_COPILOT_IDS=session: Copilot row ids of each session's own (`t1-<session>`). */
const OWN_IDS = process.env.BENCH_COPILOT_IDS === 'session'
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const dist = path.join(ROOT, 'dist')
const load = (file) => loadBuilt(dist, file)

const CONTENTS = [
  'Write the /health handler',
  'Add a test for /health',
  'Update the README',
  'Run the linter',
  'Open the pull request',
]
const ACTIVE = [
  'Writing the /health handler',
  'Adding a test for /health',
  'Updating the README',
  'Running the linter',
  'Opening the pull request',
]
/** The k-th list of a session: the first n-1 done, the n-th in progress, the rest pending. */
const statusesOf = (k) => {
  const n = (k % 5) + 1
  return CONTENTS.map((_, i) => (i < n - 1 ? 'completed' : i === n - 1 ? 'in_progress' : 'pending'))
}
/** A Copilot row id: `t1`…`t5`, or with BENCH_COPILOT_IDS=session `t1-<session>`…. */
const rowId = (session, i) => (OWN_IDS ? `t${i + 1}-${session}` : `t${i + 1}`)
const HEADERS = { 'X-Agent-User': 'ada', 'X-Agent-Host': 'laptop-1' }
const iso = (ms) => new Date(ms).toISOString()
let clock = Date.parse('2026-12-02T09:26:22.883Z')

/** Each route: its path, content type, and the body of a session's k-th write. */
const ROUTES = {
  'claude-code': {
    prefix: 'claude',
    path: '/v1/ingest/claude-code',
    type: 'application/json',
    body(session, k, serial) {
      const todos = (j) =>
        statusesOf(j).map((status, i) => ({ content: CONTENTS[i], status, activeForm: ACTIVE[i] }))
      return JSON.stringify({
        session_id: session,
        transcript_path: `/home/user/.claude/projects/-home-user-project/${session}.jsonl`,
        cwd: '/home/user/project',
        prompt_id: '5eb9be95-3bf5-4200-aa47-d538188e20e8',
        permission_mode: 'default',
        effort: { level: 'medium' },
        hook_event_name: 'PostToolUse',
        tool_name: 'TodoWrite',
        tool_input: { todos: todos(k) },
        tool_response: { oldTodos: k ? todos(k - 1) : [], newTodos: todos(k) },
        tool_use_id: `toolu_bench_${serial}`,
        duration_ms: 1,
      })
    },
  },
  'qwen-code': {
    prefix: 'qwen',
    path: '/v1/ingest/qwen-code',
    type: 'application/json',
    body(session, k, serial) {
      const todos = statusesOf(k).map((status, i) => ({
        id: String(i + 1),
        content: CONTENTS[i],
        status,
      }))
      const n = k % 5
      return JSON.stringify({
        session_id: session,
        transcript_path: `/home/user/.qwen/projects/-home-user-project/chats/${session}.jsonl`,
        cwd: '/home/user/project',
        hook_event_name: 'PostToolUse',
        timestamp: iso(clock++),
        permission_mode: 'auto',
        prompt_id: `${session}########${k}`,
        tool_name: 'todo_write',
        tool_input: { todos },
        tool_response: {
          llmContent: `Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable\n\n<system-reminder>\nYour todo list has changed. DO NOT mention this explicitly to the user. Here are the latest contents of your todo list:\n\n${JSON.stringify(todos)}. Continue on with the tasks at hand if applicable.\n</system-reminder>`,
          returnDisplay: {
            type: 'todo_list',
            planId: '75404605-4c2d-42b8-aba8-fb906bc11aae',
            todos,
            changes: { created: [], completed: n ? [todos[n - 1]] : [] },
          },
        },
        tool_use_id: `toolu_${clock}_bench`,
        tool_call_id: `call_qwen_bench_${serial}`,
        duration_ms: 19,
      })
    },
  },
  opencode: {
    prefix: 'opencode',
    path: '/v1/ingest/opencode',
    type: 'application/json',
    body(session, k, serial) {
      const priorities = ['high', 'medium', 'low', 'medium', 'low']
      // ascending ids, as opencode's: 12 hex digits of time and counter, then 14 random ones
      const seq = (0x236108b69001 + serial).toString(16).padStart(12, '0')
      return JSON.stringify([
        {
          id: `evt_${seq}7cI7CFflTVIm2U`,
          type: 'todo.updated',
          properties: {
            sessionID: session,
            todos: statusesOf(k).map((status, i) => ({
              content: CONTENTS[i],
              status,
              priority: priorities[i],
            })),
          },
        },
      ])
    },
  },
  copilot: {
    prefix: 'copilot',
    path: '/v1/ingest/copilot',
    type: 'application/json',
    body(session, k) {
      const hook = (query, description, text) =>
        JSON.stringify({
          sessionId: session,
          timestamp: clock++,
          cwd: '/tmp/copilot-run/project',
          toolName: 'sql',
          toolArgs: { description, query },
          toolResult: { resultType: 'success', textResultForLlm: text },
        })
      if (k === 0) {
        // titles of the session's own: no two sessions replay the same tables (the replay's
        // outcomes are kept by what they are computed from, so equal lists would share one)
        const rows = CONTENTS.map(
          (title, i) => `('${rowId(session, i)}', '${title} (${session})', NULL, 'pending')`
        )
        return hook(
          `INSERT INTO todos (id, title, description, status) VALUES ${rows.join(', ')};`,
          'Create the todo list',
          `${rows.length} row(s) inserted. Last inserted row ID: ${rows.length}.`
        )
      }
      // one status per write, as Copilot does: item j starts, then is done, then the next one
      const step = k - 1
      const item = Math.floor(step / 2) % 5
      const status = step % 2 ? 'done' : 'in_progress'
      return hook(
        `UPDATE todos SET status = '${status}' WHERE id = '${rowId(session, item)}';`,
        status === 'done' ? 'Finish the step' : 'Start the step',
        '1 row(s) updated.'
      )
    },
  },
  acp: {
    prefix: 'acp',
    path: '/v1/ingest/acp',
    type: 'application/x-ndjson',
    body(session, k, serial) {
      const entries = statusesOf(k).map((status, i) => ({
        content: CONTENTS[i],
        priority: 'medium',
        status,
        _meta: { qwenTodo: { id: String(i + 1) } },
      }))
      return (
        JSON.stringify({
          from: 'agent',
          connection: '66e0e3fb-4f6d-4285-8284-e8115db7716e',
          seq: serial,
          session,
          message: {
            jsonrpc: '2.0',
            method: 'session/update',
            params: {
              sessionId: session,
              update: {
                sessionUpdate: 'plan',
                entries,
                _meta: {
                  stats: { promptTokens: 10, cachedTokens: 0, candidateTokens: 5, apiTimeMs: 1303 },
                  qwenTodoPlan: { id: '41dfc564-425c-4c17-8a51-b8c8054679ab' },
                },
              },
            },
          },
        }) + '\n'
      )
    },
  },
}

/** The app on one store, and per route a deliverer of its next write. */
async function setup(storeName) {
  const now = () => Date.now()
  const options = { ttlMs: 24 * 3600 * 1000, historyLimit: 50, now }
  let store
  let cleanup = async () => {}
  if (storeName === 'sqlite') {
    const { createSqliteStore } = await load('store/sqlite.js')
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-routes-'))
    store = createSqliteStore({
      ...options,
      path: path.join(dir, 'todos.db'),
      synchronous: 'normal',
    })
    cleanup = async () => {
      await store.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  } else {
    const { createMemoryStore } = await load('store/memory.js')
    store = createMemoryStore(options)
  }
  const app = await builtApp(dist, { store, now })
  const routes = []
  for (const [name, route] of Object.entries(ROUTES)) {
    if (ONLY && !ONLY.includes(name)) continue
    const counts = new Map()
    let serial = 0
    const post = async (body) => {
      const res = await app.request(route.path, {
        method: 'POST',
        headers: { 'Content-Type': route.type, ...HEADERS },
        body,
      })
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
    }
    const next = async (i) => {
      const session = `bench-${name}-${i % SESSIONS}`
      const k = counts.get(session) ?? 0
      counts.set(session, k + 1)
      return post(route.body(session, k, serial++))
    }
    // the sessions exist before the runs (Copilot's first write creates its table rows)
    for (let i = 0; i < SESSIONS; i++) await next(i)
    // every write is applied: a new version each (checked here, not in the timed batches)
    const version = async (i) => {
      const res = await app.request(`/v1/sessions/${route.prefix}:bench-${name}-${i}`)
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`)
      return (await res.json()).version
    }
    for (let i = 0; i < SESSIONS; i++) {
      const before = await version(i)
      await next(i)
      if ((await version(i)) !== before + 1) throw new Error(`${name}: a write was not applied`)
    }
    routes.push({ name, deliver: next, cpu: [] })
  }
  return { routes, cleanup }
}

const collect = globalThis.gc ?? (() => {})
const loadBefore = os.loadavg()
console.log(
  `ingest routes: ${BATCHES} batches of ${PER_BATCH} deliveries per route and store, ${SESSIONS} sessions per route, in process${globalThis.gc ? '' : ' (no --expose-gc)'}; node ${process.version}, ${os.cpus().length} CPUs, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`
)
const results = {}
for (const storeName of STORES) {
  const { routes, cleanup } = await setup(storeName)
  let offset = 0
  for (let b = -1; b < BATCHES; b++) {
    for (const route of b % 2 ? [...routes].reverse() : routes) {
      collect()
      const start = process.cpuUsage()
      for (let i = 0; i < PER_BATCH; i++) await route.deliver(offset + i)
      const used = process.cpuUsage(start)
      if (b >= 0) route.cpu.push((used.user + used.system) / PER_BATCH)
    }
    offset += PER_BATCH
  }
  await cleanup()
  const claude = routes[0]
  console.log(`\n${storeName} store`)
  console.log('route         µs CPU/delivery (median)  × claude-code (paired median, range)')
  results[storeName] = {}
  for (const route of routes) {
    const ratios = route.cpu.map((c, i) => c / claude.cpu[i]).sort((a, b) => a - b)
    results[storeName][route.name] = { cpu: median(route.cpu), ratio: median(ratios) }
    console.log(
      `${route.name.padEnd(12)} ${median(route.cpu).toFixed(1).padStart(8)}                  ${median(ratios).toFixed(3)} (${ratios[0].toFixed(2)}–${ratios.at(-1).toFixed(2)})${route !== claude && median(ratios) > 1.2 ? '  over 1.2×' : ''}`
    )
  }
}
console.log(
  `\nload average after: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`
)
if (process.env.BENCH_JSON)
  fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2))
