/**
 * @module http/rate-limit
 * A per-tenant request budget (hono-rate-limiter), answered with a 429 problem.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { rateLimiter, type Store } from 'hono-rate-limiter'
import { StoreUnavailableError, type SharedCounters } from '../store/types.js'
import type { AppEnv } from './context.js'
import { problem } from './problem.js'

/**
 * The limiter's counter store on a session store's shared counters, so a fleet has one budget per
 * tenant. Not hono-rate-limiter's RedisStore: on any error it reloads its script and tries again,
 * so a stalled Redis cost two command timeouts (over 2 s) before a request could fail, and on a
 * Cluster its SCRIPT LOAD lands on a random node, so EVALSHA on another fails.
 * @param counters - the store's counters
 */
export function sharedCounterStore(counters: SharedCounters): Store<AppEnv> {
  let windowMs = 60_000
  return {
    init: (options) => {
      windowMs = options.windowMs
    },
    increment: async (key) => {
      const { hits, resetInMs } = await counters.increment(key, windowMs)
      return { totalHits: hits, resetTime: new Date(Date.now() + resetInMs) }
    },
    decrement: (key) => counters.decrement(key),
    resetKey: (key) => counters.reset(key),
  }
}

/** Which budget a request spends: writes (rounds, edits, ingest, MCP) or reads (views, streams). */
export type Budget = 'write' | 'read'

/** GET, HEAD and OPTIONS read (a method check is no write); every other method may write. */
export const budgetOf = (method: string): Budget =>
  method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'read' : 'write'

/** A write spends one unit per this many bytes of its body, beyond its first unit. */
export const WRITE_UNIT_BYTES = 64 * 1024

/**
 * What a write request costs of its tenant's write budget: `1 + floor(body bytes / 64 KiB)`, so
 * that a key writing the largest sessions in a loop spends its budget by what it stores, not
 * only by how often. The first unit decides whether the request passes; the others are spent
 * after it, and refuse the requests that follow.
 * @param bodyBytes - the request body's size
 */
export const writeUnits = (bodyBytes: number): number =>
  1 + Math.floor(Math.max(0, bodyBytes) / WRITE_UNIT_BYTES)

/** Requests whose body's units were charged already. */
const bodiesCharged = new WeakSet<Request>()

/**
 * A request body's size: its Content-Length, else (a chunked body, which the body limit has
 * buffered by now, within BODY_LIMIT_BYTES) its bytes, read from a copy, or from what a guard
 * before (MCP's) read of it.
 */
async function bodyBytes(c: Context<AppEnv>): Promise<number> {
  const request = c.req.raw
  const declared = Number(request.headers.get('content-length'))
  if (Number.isSafeInteger(declared) && declared > 0) return declared
  if (!request.body) return 0
  try {
    if (request.bodyUsed) return Buffer.byteLength(await c.req.text())
    return (await request.clone().arrayBuffer()).byteLength
  } catch {
    // unreadable here: the route that reads it answers for it
    return 0
  }
}

const ENV_NAME: Record<Budget, string> = {
  write: 'RATE_LIMIT_PER_MINUTE',
  read: 'READ_RATE_LIMIT_PER_MINUTE',
}

/**
 * Limits each tenant to `perMinute` requests of one budget per minute, across instances when the
 * counters are shared (Redis); a write costs more units the larger its body (`writeUnits`). Reads and writes have separate budgets, so a dashboard's polling
 * never pushes the tenant's agents into 429. Sends the IETF draft-7 `RateLimit` and
 * `RateLimit-Policy` headers. When the shared counters cannot be reached or written (Redis down
 * or out of memory), reads go through uncounted; writes get the store's 503.
 * @param budget - which requests this limiter counts; the others pass untouched
 * @param perMinute - requests per tenant per minute
 * @param counters - the store's shared counters; in process when absent
 */
export function tenantRateLimit(
  budget: Budget,
  perMinute: number,
  counters?: SharedCounters
): MiddlewareHandler<AppEnv> {
  const store = counters ? sharedCounterStore(counters) : undefined
  const limiter = rateLimiter<AppEnv>({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    keyGenerator: (c) => `tenant:${c.get('tenant')}:${budget}`,
    ...(store ? { store } : {}),
    // the limiter has already set RateLimit, RateLimit-Policy and Retry-After on the context
    handler: (c) =>
      problem(
        c,
        'rate-limited',
        `Tenant ${budget} budget exceeded: at most ${perMinute} ${budget === 'read' ? 'reads' : 'writes'} per minute (${ENV_NAME[budget]}).`
      ) as unknown as void,
  }) as MiddlewareHandler<AppEnv>
  const nothing = async () => {}
  return async function rateLimit(c, next) {
    if (budgetOf(c.req.method) !== budget) return next()
    let passed = false
    const counted = async () => {
      passed = true
      if (budget === 'write' && !bodiesCharged.has(c.req.raw)) {
        // a large body costs what it makes the store write: its units beyond the first are
        // spent once the request passed (once per request: the MCP limiter calls this once per
        // message), refusing the requests after it rather than this one, which a smaller body
        // would have passed
        bodiesCharged.add(c.req.raw)
        const units = writeUnits(await bodyBytes(c))
        for (let unit = 1; unit < units; unit++) await limiter(c, nothing)
        // this request passed: a refusal of its extra units tells the next one
        if (units > 1) c.header('Retry-After', undefined)
      }
      await next()
    }
    try {
      return await limiter(c, counted)
    } catch (error) {
      if (passed || budget !== 'read' || !(error instanceof StoreUnavailableError)) throw error
      return next()
    }
  }
}
