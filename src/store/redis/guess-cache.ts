/**
 * @module store/redis/guess-cache
 * The last record this instance stored or read, per session: where its next update of that
 * session starts, as a guess the write script verifies (never what a read returns).
 */
import type { Session } from '../../core/session.js'

/** A stored record and the token of the write that stored it (null: written without one). */
export interface Base {
  session: Session | null
  token: string | null
  /** For an absent session: the version its tombstone keeps (0 when none). */
  floor: number
}

export interface GuessCache {
  get(sessionKey: string): Base | undefined
  /** Keeps a base as the session's guess, or forgets the session when the base cannot be one. */
  remember(sessionKey: string, base: Base): void
  forget(sessionKey: string): void
}

/**
 * A bounded cache, least recently used dropped first. A Map keeps insertion order, so re-inserting
 * on use makes its first key the least recently used.
 * @param size - sessions kept; 0 keeps none
 */
export function createGuessCache(size: number): GuessCache {
  if (!Number.isInteger(size) || size < 0) {
    throw new Error(`baseCacheSize must be a whole number >= 0, got ${size}`)
  }
  const bases = new Map<string, Base>()
  return {
    get: (sessionKey) => bases.get(sessionKey),
    remember(sessionKey, base) {
      bases.delete(sessionKey)
      // an absent session, or a record written without a token, is not kept: only a token tells
      // one write from another at the same version (a delete and re-creation elsewhere)
      if (size === 0 || !base.session || base.token === null) return
      bases.set(sessionKey, base)
      if (bases.size > size) bases.delete(bases.keys().next().value!)
    },
    forget: (sessionKey) => {
      bases.delete(sessionKey)
    },
  }
}
