/**
 * @module store/redis/reads
 * Reads of one session. They always go to Redis: the guess cache is refreshed by them, never
 * served.
 */
import type { Cluster, Redis } from 'ioredis'
import type { HistoryEntry, Session, SessionKey } from '../../core/session.js'
import { guarded } from './errors.js'
import type { Base, GuessCache } from './guess-cache.js'
import { liveRecord, type KeyLayout } from './keys.js'

export interface Reads {
  /** The live record and its token, remembered as the session's next guess. */
  readBase(key: SessionKey): Promise<Base>
  get(key: SessionKey): Promise<Session | null>
  history(key: SessionKey, limit: number): Promise<HistoryEntry[]>
}

export interface ReadsOptions {
  client: Redis | Cluster
  keys: KeyLayout
  cache: GuessCache
  now: () => number
}

/**
 * The reads of a store.
 * @param options - connection, key layout, guess cache, clock
 */
export function createReads({ client, keys, cache, now }: ReadsOptions): Reads {
  const readBase = async (key: SessionKey): Promise<Base> => {
    const sessionKey = keys.session(key)
    const [exp, data, token] = await guarded(() => client.hmget(sessionKey, 'exp', 'data', 't'))
    const session = liveRecord([exp, data], now())
    const base: Base = { session, token: session ? token : null }
    cache.remember(sessionKey, base)
    return base
  }
  return {
    readBase,
    get: async (key) => (await readBase(key)).session,
    async history(key, limit) {
      if (limit <= 0) return []
      const entries = await guarded(() =>
        client.atHistory(keys.session(key), keys.history(key), String(now()), String(limit))
      )
      return entries.map((json) => JSON.parse(json) as HistoryEntry)
    },
  }
}
