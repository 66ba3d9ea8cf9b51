/**
 * @module http/store-health
 * Whether the store can write: a failed write turns readiness 503 until a write succeeds again.
 */
import { StoreUnavailableError, type SessionStore } from '../store/types.js'

/** The outcome of the last write, as readiness reads it. */
export interface WriteHealth {
  /** The last write failed with a store fault (disk full, read-only, out of memory). */
  failing(): boolean
  /** A probe write succeeded. */
  recovered(): void
}

const WRITES = ['update', 'delete'] as const

/**
 * Wraps a store so that its writes report their health.
 * @param store - the store
 * @returns the wrapped store and its write health
 */
export function watchWrites(store: SessionStore): { store: SessionStore; health: WriteHealth } {
  let failing = false
  const watched: Partial<SessionStore> = {}
  for (const op of WRITES) {
    const original = store[op].bind(store) as (...args: unknown[]) => Promise<unknown>
    ;(watched as Record<string, unknown>)[op] = async (...args: unknown[]) => {
      try {
        const value = await original(...args)
        failing = false
        return value
      } catch (error) {
        if (error instanceof StoreUnavailableError) failing = true
        throw error
      }
    }
  }
  return {
    store: Object.assign(Object.create(store), watched) as SessionStore,
    health: {
      failing: () => failing,
      recovered: () => {
        failing = false
      },
    },
  }
}
