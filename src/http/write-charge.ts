/**
 * @module http/write-charge
 * Lets a route spend more of the tenant's write budget than the one request the rate limiter
 * counted on the way in: an ingest delivery that touches several sessions, or stores several
 * lists, costs one write per store update it makes (http/routes/ingest).
 *
 * The limiter's counters live inside its middleware (in process, or the store's shared ones), so
 * the app hands it over per request: `offerWriteCharge(limiter)` is mounted right after the write
 * limiter on the routes that charge more; without it (no rate limit configured) a charge is free.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from './context.js'

type Spend = () => Promise<Response | void>

const spenders = new WeakMap<Request, Spend>()
const nothing = async () => {}

/**
 * Makes the tenant's write limiter chargeable by the route that handles the request.
 * @param limiter - the write budget's rate-limit middleware (http/rate-limit)
 */
export function offerWriteCharge(limiter: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async function writeCharge(c, next) {
    spenders.set(c.req.raw, async () => (await limiter(c, nothing)) ?? undefined)
    await next()
  }
}

/**
 * Spends `units` more writes of the request's tenant budget.
 * @param c - the request's context
 * @param units - writes beyond the request itself
 * @param refuse - stop at the first unit the budget does not hold and return its 429 response;
 *   otherwise every unit is counted (what was already done is charged even past the budget)
 * @returns the limiter's 429 response when `refuse` and the budget is spent, else undefined
 */
export async function chargeWrites(
  c: Context<AppEnv>,
  units: number,
  refuse: boolean
): Promise<Response | undefined> {
  const spend = spenders.get(c.req.raw)
  if (!spend) return undefined
  for (let i = 0; i < units; i++) {
    const refused = await spend()
    if (refused && refuse) return refused
  }
  return undefined
}
