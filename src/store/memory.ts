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
import { randomUUID } from 'node:crypto'
import {
  assertNextVersion,
  IdempotencyClaimLostError,
  QuotaExceededError,
  type IdempotencyClaim,
  type ListPage,
  type ListQuery,
  type SessionStore,
  type StoreOptions,
  type UpdateOptions,
  type Updater,
  historyBytes,
} from './types.js'
import { cursorAfter, isBeforeCursor } from './cursor.js'
import { briefOf, type SessionBrief } from './brief.js'
import { alertTransitions } from '../core/transitions.js'
import { createMemoryAlerts } from './alerts/memory.js'
import { createMemoryPeople } from './people/memory.js'

interface Entry {
  tenant: string
  session: Session
  /** Computed at write: what listings show. */
  brief: SessionBrief
  expiresAt: number
  history: HistoryEntry[]
}

/** `historyBytes` of kept entries, measured once (the memory store keeps objects, not JSON). */
const entrySizes = new WeakMap<HistoryEntry, number>()
const entryBytes = (entry: HistoryEntry) => {
  let size = entrySizes.get(entry)
  if (size === undefined) entrySizes.set(entry, (size = historyBytes(JSON.stringify(entry.items))))
  return size
}

const keyOf = (key: SessionKey) => `${key.tenant}\u0000${key.sessionId}`

/** Creates a memory store. */
export function createMemoryStore(options: StoreOptions): SessionStore {
  const sessions = new Map<string, Entry>()
  /** The last version of deleted sessions, kept for the TTL. */
  const tombstones = new Map<string, { version: number; expiresAt: number }>()
  const feed = createChangeFeed()
  const alerts = createMemoryAlerts({
    *live() {
      const now = options.now()
      for (const entry of sessions.values()) {
        if (entry.expiresAt > now) yield { tenant: entry.tenant, brief: entry.brief }
      }
    },
  })
  const idempotency = new Map<
    string,
    { fingerprint: string; token: string; reply: string | null; expiresAt: number }
  >()

  const live = (k: string): Entry | undefined => {
    const entry = sessions.get(k)
    if (entry && entry.expiresAt <= options.now()) {
      sessions.delete(k)
      return undefined
    }
    return entry
  }

  const floorOf = (k: string): number => {
    const tombstone = tombstones.get(k)
    if (!tombstone) return 0
    if (tombstone.expiresAt > options.now()) return tombstone.version
    tombstones.delete(k)
    return 0
  }

  const liveClaim = (scope: string) => {
    const record = idempotency.get(scope)
    return record && record.expiresAt > options.now() ? record : undefined
  }

  const countLive = (tenant: string) => {
    const now = options.now()
    let count = 0
    for (const entry of sessions.values()) {
      if (entry.expiresAt > now && entry.tenant === tenant) count++
    }
    return count
  }

  const sweep = setInterval(() => {
    const now = options.now()
    for (const [k, entry] of sessions) if (entry.expiresAt <= now) sessions.delete(k)
    for (const [k, record] of idempotency) if (record.expiresAt <= now) idempotency.delete(k)
    for (const [k, record] of tombstones) if (record.expiresAt <= now) tombstones.delete(k)
  }, 60_000)
  sweep.unref()

  /** `history`'s page, synchronously. */
  const historyPage = (
    key: SessionKey,
    limit: number,
    beforeVersion?: number,
    maxBytes?: number
  ): HistoryEntry[] => {
    const entry = live(keyOf(key))
    if (!entry) return []
    const older =
      beforeVersion === undefined
        ? entry.history
        : entry.history.filter((h) => h.version < beforeVersion)
    const page = older.slice(-limit)
    if (maxBytes === undefined) return page
    let bytes = 0
    let from = page.length
    while (from > 0) {
      bytes += entryBytes(page[--from])
      if (bytes > maxBytes) break
    }
    return page.slice(from)
  }

  // The SessionStore interface is async; these methods work synchronously on maps, and `async` is
  // what turns their throws (a lost claim, a quota, a version conflict) into the rejected promises the interface promises.
  /* eslint-disable @typescript-eslint/require-await */
  return {
    kind: 'memory',
    alerts: alerts.store,
    people: createMemoryPeople(options.now),
    async get(key) {
      const entry = live(keyOf(key))
      return entry ? entry.session : null
    },
    async brief(key) {
      return live(keyOf(key))?.brief ?? null
    },
    async update<T>(key: SessionKey, fn: Updater<T>, updateOptions?: UpdateOptions<T>) {
      const k = keyOf(key)
      const entry = live(k)
      const current = entry ? entry.session : null
      const versionFloor = current ? 0 : floorOf(k)
      const decision = fn(current, { versionFloor })
      const claim = updateOptions?.idempotency
      if (claim && liveClaim(claim.scope)?.token !== claim.token) {
        throw new IdempotencyClaimLostError()
      }
      if (decision.write) {
        const { session, source, quiet } = decision.write
        assertNextVersion(current, session, versionFloor, quiet)
        const cap = updateOptions?.maxSessionsPerTenant
        if (!current && cap && countLive(key.tenant) >= cap) throw new QuotaExceededError(cap)
        const history = entry?.history ?? []
        if (!quiet) history.push(historyEntryOf(session, source))
        if (history.length > options.historyLimit)
          history.splice(0, history.length - options.historyLimit)
        sessions.set(k, {
          tenant: key.tenant,
          session,
          brief: briefOf(session),
          expiresAt: options.now() + options.ttlMs,
          history,
        })
        tombstones.delete(k)
        if (options.staleAfterMs !== undefined) {
          alerts.append(key, alertTransitions(current, session, options.staleAfterMs))
        }
      }
      if (claim) {
        const record = liveClaim(claim.scope)!
        record.reply = claim.reply(decision.value)
        record.expiresAt = options.now() + claim.ttlMs
      }
      if (decision.write) {
        const { session, source, quiet } = decision.write
        feed.emit(changeEvent(key, session.version, source, quiet))
      }
      return decision.value
    },
    async delete(key) {
      const k = keyOf(key)
      const entry = live(k)
      sessions.delete(k)
      if (!entry) return false
      tombstones.set(k, {
        version: entry.session.version,
        expiresAt: options.now() + options.ttlMs,
      })
      feed.emit(changeEvent(key, 0, 'delete'))
      return true
    },
    async list(tenant, query: ListQuery): Promise<ListPage> {
      const now = options.now()
      const matches: SessionBrief[] = []
      for (const entry of sessions.values()) {
        if (entry.expiresAt <= now || entry.tenant !== tenant) continue
        const brief = entry.brief
        if (query.cursor && !isBeforeCursor(brief.updated_at, brief.session_id, query.cursor))
          continue
        if (!matchesListQuery(brief, query)) continue
        matches.push(brief)
      }
      matches.sort((a, b) => b.updated_at - a.updated_at || (a.session_id < b.session_id ? 1 : -1))
      const page = matches.slice(0, query.limit)
      const last = page[page.length - 1]
      const next = matches.length > query.limit && last ? cursorAfter(last) : null
      return { sessions: page, next }
    },
    async countSessions(tenant) {
      return countLive(tenant)
    },
    async historyText(key, limit, beforeVersion, maxBytes) {
      return historyPage(key, limit, beforeVersion, maxBytes).map((entry) => ({
        ...entry,
        items: JSON.stringify(entry.items),
      }))
    },
    async history(key, limit, beforeVersion, maxBytes) {
      return historyPage(key, limit, beforeVersion, maxBytes)
    },
    async claimIdempotency(scope, fingerprint, ttlMs): Promise<IdempotencyClaim> {
      const existing = liveClaim(scope)
      if (existing) {
        return {
          claimed: false,
          record: { fingerprint: existing.fingerprint, reply: existing.reply },
        }
      }
      const token = randomUUID()
      idempotency.set(scope, { fingerprint, token, reply: null, expiresAt: options.now() + ttlMs })
      return { claimed: true, token }
    },
    async releaseIdempotency(scope, token) {
      const record = idempotency.get(scope)
      if (record && record.token === token && record.reply === null) idempotency.delete(scope)
    },
    subscribe: feed.subscribe,
    async ping() {},
    async checkWritable() {},
    async close() {
      clearInterval(sweep)
    },
  }
  /* eslint-enable @typescript-eslint/require-await */
}
