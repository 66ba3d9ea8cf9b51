// Decisions (docs/decisions.md): how long a held `?decide=1` hook takes to hear an answer on one
// instance (memory store), and what 500 held hooks cost: memory, and the rounds of other sessions
// meanwhile. Across a fleet (two server processes on Redis) the time is measured by
// test/e2e/decisions-fleet.test.ts.
//   node --expose-gc --import tsx bench/decisions.mjs [answers=200] [held=500] [rounds=3000]
// In process (app.request), from the sources through tsx: the same code the server runs.
import { setImmediate as tick } from 'node:timers/promises'
import pino from 'pino'
import { createApp } from '../src/http/app.ts'
import { parseAuthKeys } from '../src/http/auth.ts'
import { createMemoryStore } from '../src/store/memory.ts'

const [answers = 200, held = 500, rounds = 3000] = process.argv.slice(2).map(Number)
const hook = {
  session_id: 'bench',
  cwd: '/home/user/project',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch marker.txt', description: 'Create the marker file' },
}

const appOn = (store) =>
  createApp({
    store,
    logger: pino({ level: 'silent' }),
    keys: parseAuthKeys(undefined),
    bodyLimitBytes: 1024 * 1024,
    staleAfterMs: 900_000,
    historyLimit: 50,
    idempotencyTtlMs: 24 * 3600 * 1000,
    now: Date.now,
    isDraining: () => false,
    openapiDocument: null,
    sseHeartbeatMs: 15_000,
    decisions: { waitMs: 600_000, holdMs: 600_000, open: true },
  })

const json = (method, body) => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})
// open access answers only from loopback (DECISIONS_OPEN): the in-process request says so
const LOOPBACK = { incoming: { socket: { remoteAddress: '127.0.0.1' } } }

const holdOn = (app, session) =>
  app.request(`/v1/ingest/claude-code?decide=1&session_id=${session}`, json('POST', hook))

async function pendingId(store, session) {
  for (;;) {
    const request = (await store.get({ tenant: 'default', sessionId: session }))?.observed?.waiting
      ?.request
    if (request) return request.id
    await tick()
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
const summary = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b)
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1),
  }
}

/** Decision → held reply, `n` times: the hook held by `holder`, answered through `answerer`. */
async function answerTimes(n, holder, answerer, prefix) {
  const afterPost = []
  const fromPost = []
  for (let i = 0; i < n; i++) {
    const session = `${prefix}-${i}`
    const reply = holdOn(holder.app, session)
    const id = await pendingId(answerer.store, session)
    const t0 = performance.now()
    const res = await answerer.app.request(
      `/v1/sessions/${session}/decisions`,
      json('POST', { request_id: id, decision: 'allow' }),
      LOOPBACK
    )
    if (res.status !== 200) throw new Error(`answer ${res.status}: ${await res.text()}`)
    const t1 = performance.now()
    const body = await (await reply).json()
    const t2 = performance.now()
    if (body.hookSpecificOutput?.decision?.behavior !== 'allow') throw new Error('no allow')
    fromPost.push(t2 - t0)
    afterPost.push(t2 - t1)
  }
  return { from_post: summary(fromPost), after_post_reply: summary(afterPost) }
}

const round = (app, session, i) =>
  app.request(
    `/v1/sessions/${session}/rounds`,
    json('POST', {
      tool_calls: [
        {
          id: `t${i}`,
          name: 'todo',
          input: {
            items: [
              { id: '1', text: `Plan ${i}`, status: 'completed' },
              { id: '2', text: 'Build', status: 'in_progress' },
            ],
          },
        },
      ],
    })
  )

/** µs per round over `n` rounds on 32 sessions. */
async function roundCost(app, n, tag) {
  const t0 = performance.now()
  for (let i = 0; i < n; i++) {
    const res = await round(app, `${tag}-${i % 32}`, i)
    if (res.status !== 200) throw new Error(`round ${res.status}`)
  }
  return ((performance.now() - t0) * 1000) / n
}

const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10
const gc = () => globalThis.gc?.()

const results = {}
const log = (...a) => process.stderr.write(a.join(' ') + '\n')
{
  const store = createMemoryStore({ ttlMs: 3600_000, historyLimit: 50, now: Date.now })
  const one = { app: appOn(store), store }
  log('one instance')
  results.one_instance = await answerTimes(answers, one, one, 'one')
}
{
  const store = createMemoryStore({ ttlMs: 3600_000, historyLimit: 50, now: Date.now })
  const app = appOn(store)
  // warm both paths, then the baseline
  await roundCost(app, 500, 'warm')
  await answerTimes(5, { app, store }, { app, store }, 'warm-decide')
  const base1 = await roundCost(app, rounds, 'base')
  gc()
  const before = process.memoryUsage()
  const replies = []
  for (let i = 0; i < held; i++) replies.push(holdOn(app, `held-${i}`))
  for (let i = 0; i < held; i++) await pendingId(store, `held-${i}`)
  gc()
  const during = process.memoryUsage()
  const withHeld = await roundCost(app, rounds, 'rounds-with-held')
  // release them: each answered
  for (let i = 0; i < held; i++) {
    const id = await pendingId(store, `held-${i}`)
    await app.request(
      `/v1/sessions/held-${i}/decisions`,
      json('POST', { request_id: id, decision: 'deny' }),
      LOOPBACK
    )
  }
  await Promise.all(replies)
  const base2 = await roundCost(app, rounds, 'base2')
  const base = (base1 + base2) / 2
  log('held done')
  results.held_hooks = {
    held,
    heap_mb: mb(during.heapUsed - before.heapUsed),
    rss_mb: mb(during.rss - before.rss),
    // the 500 sessions themselves are part of the heap: each holds a request and its wait
    round_us_base: Math.round(base),
    round_us_with_held: Math.round(withHeld),
    slowdown: Math.round((withHeld / base) * 1000) / 1000,
  }
}
console.log(JSON.stringify(results, null, 2))
process.exit(0)
