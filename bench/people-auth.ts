/**
 * People (issue 33): what recognising a caller costs, in process, CPU per request.
 * - A round with a bearer key (AUTH_KEYS), this tree against a base tree (BASE, default
 *   /tmp/people-base: `git worktree add --detach /tmp/people-base <commit>` with node_modules
 *   linked), alternating, so the figure is the ratio of the two in one run: only `atk_` bearers
 *   go to the store now, a key must cost what it did.
 * - The sign-in cookie's authentication alone (`sessionCookies().read`: the cookie read,
 *   AES-256-GCM opened, the CSRF HMAC), and a round with a personal token (a store lookup).
 * Run: node --import tsx bench/people-auth.ts   (BENCH_N requests a batch, BENCH_BATCHES)
 */
import { Context } from 'hono'
import pino from 'pino'

/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- the trees are loaded by path: their modules are untyped here */
const workload = './workload.mjs'
const { ROUND_TODO_BODY } = (await import(workload)) as { ROUND_TODO_BODY: string }
const BASE = process.env.BASE ?? '/tmp/people-base'
const N = Number(process.env.BENCH_N ?? 3000)
const BATCHES = Number(process.env.BENCH_BATCHES ?? 7)
const KEY = 'bench-agent-key-0001'

type Built = { request: (path: string, init: RequestInit) => Promise<Response> }

async function build(root: string): Promise<Built> {
  const { createApp } = await import(`${root}/src/http/app.ts`)
  const { createMemoryStore } = await import(`${root}/src/store/memory.ts`)
  const { parseAuthKeys } = await import(`${root}/src/http/auth.ts`)
  const now = Date.now
  return createApp({
    store: createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now }),
    logger: pino({ level: 'silent' }),
    keys: parseAuthKeys(`acme:agent:${KEY},acme:admin:bench-admin-key-0001`),
    bodyLimitBytes: 1 << 20,
    staleAfterMs: 900_000,
    historyLimit: 50,
    idempotencyTtlMs: 86_400_000,
    now,
    isDraining: () => false,
    openapiDocument: null,
    sseHeartbeatMs: 15_000,
  })
}

/** CPU µs per call of `run`, over `n` calls (awaited one after another). */
async function cpuPerCall(n: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage()
  for (let i = 0; i < n; i++) await run(i)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / n
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const round = (app: Built, bearer: string) => (i: number) =>
  app
    .request(`/v1/sessions/s${i % 1000}/rounds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: ROUND_TODO_BODY,
    })
    .then((res) => res.arrayBuffer())

const here = new URL('..', import.meta.url).pathname.replace(/\/$/, '')
const [base, current] = [await build(BASE), await build(here)]
// a personal token, minted by a key with a user (AUTH_KEYS_FILE's kind)
const { createMemoryStore } = await import(`${here}/src/store/memory.ts`)
const { createApp } = await import(`${here}/src/http/app.ts`)
const { hashKey } = await import(`${here}/src/http/auth.ts`)
const withUser = createApp({
  store: createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: Date.now }),
  logger: pino({ level: 'silent' }),
  keys: new Map([[hashKey(KEY), { tenant: 'acme', role: 'agent', user: 'ada@acme.test' }]]),
  bodyLimitBytes: 1 << 20,
  staleAfterMs: 900_000,
  historyLimit: 50,
  idempotencyTtlMs: 86_400_000,
  now: Date.now,
  isDraining: () => false,
  openapiDocument: null,
  sseHeartbeatMs: 15_000,
}) as Built
const made = await withUser.request('/v1/tokens', {
  method: 'POST',
  headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'bench', role: 'agent' }),
})
const token = ((await made.json()) as { token: string }).token

// warm-up
for (const app of [base, current]) await cpuPerCall(N, round(app, KEY))
await cpuPerCall(N, round(withUser, token))

const baseKey: number[] = []
const currentKey: number[] = []
const tokenRound: number[] = []
for (let b = 0; b < BATCHES; b++) {
  // alternate which goes first
  const order = b % 2 ? [current, base] : [base, current]
  for (const app of order)
    (app === base ? baseKey : currentKey).push(await cpuPerCall(N, round(app, KEY)))
  tokenRound.push(await cpuPerCall(N, round(withUser, token)))
}

// the cookie's authentication alone
const { sessionCookies } = await import(`${here}/src/http/people/session-cookie.ts`)
const cookies = sessionCookies(
  {
    secret: 'a-bench-session-secret-of-32-chars-or-more',
    hours: 12,
    publicUrl: 'https://todos.example',
  },
  Date.now
)
const setCookie = cookies.signIn({ user: 'ada@acme.test', tenant: 'acme', role: 'agent' })
const cookie = setCookie.split(';')[0]
const request = new Request('https://todos.example/v1/whoami', { headers: { cookie } })
const cookieAuth: number[] = []
for (let b = 0; b < BATCHES; b++) {
  cookieAuth.push(
    await cpuPerCall(N * 10, () => {
      const session = cookies.read(new Context(request) as never)
      if (!session || session === 'invalid') throw new Error('the cookie did not open')
      return Promise.resolve()
    })
  )
}

const fmt = (us: number) => `${us.toFixed(1)} µs`
const ratio = median(currentKey) / median(baseKey)
console.log(
  JSON.stringify(
    {
      batches: BATCHES,
      requests_per_batch: N,
      round_with_key_base_us: +median(baseKey).toFixed(1),
      round_with_key_current_us: +median(currentKey).toFixed(1),
      round_with_key_ratio: +ratio.toFixed(3),
      round_with_token_us: +median(tokenRound).toFixed(1),
      cookie_authentication_us: +median(cookieAuth).toFixed(2),
    },
    null,
    2
  )
)
console.error(
  `round with a key: base ${fmt(median(baseKey))}, now ${fmt(median(currentKey))} (×${ratio.toFixed(3)}); with a token ${fmt(median(tokenRound))}; cookie authentication ${fmt(median(cookieAuth))}`
)
