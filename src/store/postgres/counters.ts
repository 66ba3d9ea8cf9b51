/**
 * @module store/postgres/counters
 * Fixed-window counters in PostgreSQL, so a fleet's rate limit is one budget per tenant.
 */
import type pg from 'pg'
import type { SharedCounters } from '../types.js'
import { COUNTER_HIT } from './sql.js'

type Query = <R extends pg.QueryResultRow>(
  text: string | pg.QueryConfig,
  values?: unknown[]
) => Promise<pg.QueryResult<R>>

/** The counters on the store's pool and clock. */
export function createPgCounters(query: Query, now: () => number): SharedCounters {
  return {
    async increment(key, windowMs) {
      const at = now()
      const { rows } = await query<{ hits: number; reset_at: string }>(
        { name: 'counter-hit', text: COUNTER_HIT },
        [`rate:${key}`, at + windowMs, at]
      )
      return { hits: rows[0].hits, resetInMs: Math.max(0, Number(rows[0].reset_at) - at) }
    },
    async decrement(key) {
      await query('UPDATE counters SET hits = GREATEST(hits - 1, 0) WHERE key = $1', [
        `rate:${key}`,
      ])
    },
    async reset(key) {
      await query('DELETE FROM counters WHERE key = $1', [`rate:${key}`])
    },
  }
}
