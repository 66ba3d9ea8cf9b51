/**
 * @module store/redis/seats
 * The session cap on Cluster. A tenant's sessions live in many slots and its listing index in
 * another one, so no script can count and create in one step. A creation first takes a seat in
 * the tenant's count (reserve-seat.lua, on the tenant's slot: refused at the cap); the write
 * script creates only before the seat's deadline; index-add.lua gives the seat back once the
 * session counts in the index; a creation that does not happen drops it. On standalone Redis the
 * write script counts the index itself and needs no seat.
 */
import { randomUUID } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import type { SessionKey } from '../../core/session.js'
import { QuotaExceededError } from '../types.js'
import { guarded } from './errors.js'
import type { KeyLayout } from './keys.js'

/**
 * How long a seat holds (server time). A creation whose write reaches Redis later writes nothing
 * and takes a new seat; one whose reply is lost keeps its seat until the session is indexed.
 */
export const SEAT_MS = 10_000

/** A place in a tenant's count held for one creation. */
export interface Seat {
  id: string
  /** Server time (ms) until which it holds. */
  deadline: number
}

export interface Seats {
  /**
   * Holds a seat for a creation of the session.
   * @throws QuotaExceededError when the tenant's live sessions and seats reach the cap
   */
  reserve(key: SessionKey, cap: number): Promise<Seat>
  /** Gives a seat back (a creation that did not happen); not awaited. */
  release(key: SessionKey, seat: Seat): void
}

export interface SeatsOptions {
  client: Redis | Cluster
  keys: KeyLayout
  ttlMs: number
  now: () => number
}

/**
 * The seats of a store on Cluster.
 * @param options - connection, key layout, session TTL, the store's clock
 */
export function createSeats({ client, keys, ttlMs, now }: SeatsOptions): Seats {
  return {
    async reserve(key, cap) {
      const id = `${key.sessionId}\u0000${randomUUID()}`
      const deadline = await guarded(() =>
        client.atSeatReserve(
          keys.index(key.tenant),
          keys.seats(key.tenant),
          String(now()),
          String(ttlMs),
          String(cap),
          id,
          String(SEAT_MS)
        )
      )
      if (deadline === 0) throw new QuotaExceededError(cap)
      return { id, deadline }
    },
    release(key, seat) {
      client.zrem(keys.seats(key.tenant), seat.id).catch(() => undefined)
    },
  }
}
