/**
 * @module store/memory
 * An in-process store for tests and single-instance experiments. It keeps the objects updaters
 * return: updaters are pure and every caller builds new objects from a session, so sharing them
 * is safe and spares a parse and two serialisations per round.
 */
import {
  historyEntryOf,
  type HistoryEntry,
  type Session,
  type SessionKey,
} from '../core/session.js'
import { matchesListQuery } from './filter.js'
import { changeEvent, createChangeFeed } from './changes.js'
import {
  assertNextVersion,
  type IdempotencyClaim,
  type ListPage,
  type ListQuery,
  type SessionStore,
  type StoreOptions,
  type Updater,
} from './types.js'
import { cursorAfter, isBeforeCursor } from './cursor.js'

interface Entry {
  tenant: string
  session: Session
  expiresAt: number
  history: HistoryEntry[]
}

const keyOf = (key: SessionKey) => `${key.tenant}\u0000${key.sessionId}`

/** Creates a memory store. */
export function createMemoryStore(options: StoreOptions): SessionStore {
  const sessions = new Map<string, Entry>()
  const feed = createChangeFeed()
  const idempotency = new Map<
    string,
    { fingerprint: string; reply: string | null; expiresAt: number }
  >()

  const live = (k: string): Entry | undefined => {
    const entry = sessions.get(k)
    if (entry && entry.expiresAt <= options.now()) {
      sessions.delete(k)
      return undefined
    }
    return entry
  }

  const sweep = setInterval(() => {
    const now = options.now()
    for (const [k, entry] of sessions) if (entry.expiresAt <= now) sessions.delete(k)
    for (const [k, record] of idempotency) if (record.expiresAt <= now) idempotency.delete(k)
  }, 60_000)
  sweep.unref()

  return {
    kind: 'memory',
    async get(key) {
      const entry = live(keyOf(key))
      return entry ? entry.session : null
    },
    async update<T>(key: SessionKey, fn: Updater<T>) {
      const k = keyOf(key)
      const entry = live(k)
      const current = entry ? entry.session : null
      const decision = fn(current)
      if (decision.write) {
        const { session, source } = decision.write
        assertNextVersion(current, session)
        const history = entry?.history ?? []
        history.push(historyEntryOf(session, source))
        if (history.length > options.historyLimit)
          history.splice(0, history.length - options.historyLimit)
        sessions.set(k, {
          tenant: key.tenant,
          session,
          expiresAt: options.now() + options.ttlMs,
          history,
        })
        feed.emit(changeEvent(key, session.version, source))
      }
      return decision.value
    },
    async delete(key) {
      const k = keyOf(key)
      const existed = live(k) !== undefined
      sessions.delete(k)
      if (existed) feed.emit(changeEvent(key, 0, 'delete'))
      return existed
    },
    async list(tenant, query: ListQuery): Promise<ListPage> {
      const now = options.now()
      const matches: Session[] = []
      for (const entry of sessions.values()) {
        if (entry.expiresAt <= now || entry.tenant !== tenant) continue
        const session = entry.session
        if (query.cursor && !isBeforeCursor(session.updated_at, session.session_id, query.cursor))
          continue
        if (!matchesListQuery(session, query)) continue
        matches.push(session)
      }
      matches.sort((a, b) => b.updated_at - a.updated_at || (a.session_id < b.session_id ? 1 : -1))
      const page = matches.slice(0, query.limit)
      const last = page[page.length - 1]
      const next = matches.length > query.limit && last ? cursorAfter(last) : null
      return { sessions: page, next }
    },
    async countSessions(tenant) {
      const now = options.now()
      let count = 0
      for (const entry of sessions.values()) {
        if (entry.expiresAt > now && entry.tenant === tenant) count++
      }
      return count
    },
    async history(key, limit) {
      const entry = live(keyOf(key))
      if (!entry) return []
      return entry.history.slice(-limit)
    },
    async claimIdempotency(scope, fingerprint, ttlMs): Promise<IdempotencyClaim> {
      const existing = idempotency.get(scope)
      if (existing && existing.expiresAt > options.now()) {
        return {
          claimed: false,
          record: { fingerprint: existing.fingerprint, reply: existing.reply },
        }
      }
      idempotency.set(scope, { fingerprint, reply: null, expiresAt: options.now() + ttlMs })
      return { claimed: true }
    },
    async completeIdempotency(scope, fingerprint, reply, ttlMs) {
      idempotency.set(scope, { fingerprint, reply, expiresAt: options.now() + ttlMs })
    },
    async releaseIdempotency(scope) {
      idempotency.delete(scope)
    },
    subscribe: feed.subscribe,
    async ping() {},
    async close() {
      clearInterval(sweep)
    },
  }
}
