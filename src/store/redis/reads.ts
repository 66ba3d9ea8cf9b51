/**
 * @module store/redis/reads
 * Reads of one session. They always go to Redis: the guess cache is refreshed by them, never
 * served.
 */
import type { Cluster, Redis } from 'ioredis'
import type { HistoryEntry, SessionKey } from '../../core/session.js'
import type { HistoryText, SessionStore } from '../types.js'
import { guarded } from './errors.js'
import type { Base, GuessCache } from './guess-cache.js'
import { liveRecord, type KeyLayout } from './keys.js'

export interface Reads {
  /**
   * The live record and its token (or, when absent, its tombstone's version), remembered as the
   * session's next guess. One HMGET.
   */
  readBase: (key: SessionKey) => Promise<Base>
  get: SessionStore['get']
  history: SessionStore['history']
  historyText: SessionStore['historyText']
}

export interface ReadsOptions {
  client: Redis | Cluster
  keys: KeyLayout
  cache: GuessCache
  now: () => number
}

/**
 * The version a tombstone in an `HMGET … v tomb` reply keeps, or 0 when none holds.
 * @param version - the `v` field
 * @param tombUntil - the `tomb` field
 * @param now - the store's clock
 */
export const floorOf = (version: string | null, tombUntil: string | null, now: number) =>
  version !== null && tombUntil !== null && Number(tombUntil) > now ? Number(version) : 0

/**
 * A stored history entry (`JSON.stringify(historyEntryOf(…))`: version, at, source, items, in
 * that order) with its list left as text: only the few fields before it are parsed.
 * @param json - the stored entry
 */
export function entryText(json: string): HistoryText {
  const at = json.indexOf(',"items":')
  const head = JSON.parse(`${json.slice(0, at)}}`) as Omit<HistoryText, 'items'>
  return { ...head, items: json.slice(at + ',"items":'.length, -1) }
}

/**
 * The reads of a store.
 * @param options - connection, key layout, guess cache, clock
 */
export function createReads({ client, keys, cache, now }: ReadsOptions): Reads {
  const readBase = async (key: SessionKey): Promise<Base> => {
    const sessionKey = keys.session(key)
    const [exp, data, token, version, tombUntil] = await guarded(() =>
      client.hmget(sessionKey, 'exp', 'data', 't', 'v', 'tomb')
    )
    const at = now()
    const session = liveRecord([exp, data], at)
    const base: Base = session
      ? { session, token, floor: 0 }
      : { session: null, token: null, floor: floorOf(version, tombUntil, at) }
    cache.remember(sessionKey, base)
    return base
  }
  /** The stored entries' JSON, oldest first (`SessionStore.history`). */
  const readEntries = async (
    key: SessionKey,
    limit: number,
    beforeVersion: number | undefined,
    maxBytes: number | undefined
  ): Promise<string[]> => {
    if (limit <= 0 || (beforeVersion !== undefined && beforeVersion <= 1)) return []
    const entries = await guarded(() =>
      client.atHistory(
        keys.session(key),
        keys.history(key),
        String(now()),
        String(limit),
        String(Math.ceil(beforeVersion ?? 0)),
        maxBytes === undefined || maxBytes === Infinity ? '' : String(Math.floor(maxBytes))
      )
    )
    // the script finds the page by position; a list with a gap would only make it shorter
    return beforeVersion === undefined
      ? entries
      : entries.filter((json) => entryText(json).version < beforeVersion)
  }

  return {
    readBase,
    get: async (key) => (await readBase(key)).session,
    async history(key, limit, beforeVersion, maxBytes) {
      const entries = await readEntries(key, limit, beforeVersion, maxBytes)
      return entries.map((json) => JSON.parse(json) as HistoryEntry)
    },
    async historyText(key, limit, beforeVersion, maxBytes) {
      const entries = await readEntries(key, limit, beforeVersion, maxBytes)
      return entries.map(entryText)
    },
  }
}
