/**
 * @module service/reads
 * Reading sessions: one session, the tenant's listing in pages, a session's history in pages.
 * The routes, the event streams and MCP read through here, as they write through
 * service/sessions and service/rounds.
 */
import type { HistoryEntry, Session, SessionKey } from '../core/session.js'
import { decodeCursor, decodeHistoryCursor, encodeHistoryCursor } from '../store/cursor.js'
import type { SessionBrief } from '../store/brief.js'
import type { HistoryText, ListCursor, ListPage, ListQuery } from '../store/types.js'
import type { ServiceDeps } from './deps.js'
import { ServiceError, sessionNotFound } from './errors.js'

/** What a read needs: the store. */
type ReadDeps = Pick<ServiceDeps, 'store'>

/** The 400 of a cursor this service did not hand out. */
export const invalidCursor = () =>
  new ServiceError('invalid-cursor', 'cursor is not one this service returned', {
    errors: [{ pointer: '/query/cursor', detail: 'invalid cursor' }],
  })

/**
 * A session the tenant may or may not have (MCP reads an unknown one as the empty list it would
 * start as; a stream tells a client it is gone).
 * @param deps - the store
 * @param key - tenant and session
 */
export const findSession = (deps: ReadDeps, key: SessionKey): Promise<Session | null> =>
  deps.store.get(key)

/**
 * A session's listing summary, without reading the session (the tenant stream's updates).
 * @param deps - the store
 * @param key - tenant and session
 */
export const findBrief = (deps: ReadDeps, key: SessionKey): Promise<SessionBrief | null> =>
  deps.store.brief(key)

/**
 * The listing cursor a client sent back, decoded.
 * @param token - the `cursor` query parameter, if any
 * @throws ServiceError `invalid-cursor` for one this service did not hand out
 */
export function listCursor(token: string | undefined): ListCursor | undefined {
  if (token === undefined) return undefined
  const cursor = decodeCursor(token)
  if (!cursor) throw invalidCursor()
  return cursor
}

/**
 * A page of the tenant's sessions, newest change first, filtered (`GET /v1/sessions`, the tenant
 * stream's snapshot and its stale scan).
 * @param deps - the store
 * @param tenant - the tenant
 * @param query - filters, page size and cursor (`listCursor`)
 */
export const listSessions = (deps: ReadDeps, tenant: string, query: ListQuery): Promise<ListPage> =>
  deps.store.list(tenant, query)

/**
 * The history cursor a client sent back, decoded: the version the page ends before.
 * @param token - the `cursor` query parameter, if any
 * @throws ServiceError `invalid-cursor` for one this service did not hand out
 */
export function historyCursor(token: string | undefined): number | undefined {
  if (token === undefined) return undefined
  const before = decodeHistoryCursor(token)
  if (before === undefined) throw invalidCursor()
  return before
}

/**
 * The current version of a session, read from its brief without reading the session (the
 * history's ETag).
 * @param deps - the store
 * @param key - tenant and session
 * @throws ServiceError `session-not-found`
 */
export async function sessionVersion(deps: ReadDeps, key: SessionKey): Promise<number> {
  const brief = await deps.store.brief(key)
  if (!brief) throw sessionNotFound(key.sessionId)
  return brief.version
}

/**
 * At most `limit` entries of a session's history older than `before`, newest first, with their
 * lists parsed (an event stream's replay).
 * @param deps - the store
 * @param key - tenant and session
 * @param limit - how many
 * @param before - the version they end before
 */
export const sessionHistory = (
  deps: ReadDeps,
  key: SessionKey,
  limit: number,
  before: number
): Promise<HistoryEntry[]> => deps.store.history(key, limit, before)

/** What a page of history is read with. */
export interface HistoryPageRequest {
  /** At most this many entries. */
  limit: number
  /** The version the page ends before (`historyCursor`); the newest entries when absent. */
  before: number | undefined
  /** At most this many bytes of entries, the first one always taken. */
  pageBytes: number
  /** The most bytes of lists one read of the store takes; the loop yields between reads. */
  readBytes: number
  /** An entry as the reply's JSON text (its stored list inside, unparsed). */
  render: (entry: HistoryText) => string
}

/** A page of history: the rendered entries, newest first, and the cursor of older ones. */
export interface HistoryPage {
  newestFirst: string[]
  /** The cursor of the page of older entries, null when none remain. */
  nextCursor: string | null
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * A page of a session's history: newest first while reading, a few hundred KB (or one large
 * list) per read of the store and a turn of the event loop between reads, until the page is full
 * or its bytes are spent.
 * @param deps - the store
 * @param key - tenant and session
 * @param page - its size, its end and how an entry is rendered
 */
export async function historyPage(
  deps: ReadDeps,
  key: SessionKey,
  page: HistoryPageRequest
): Promise<HistoryPage> {
  const { limit, pageBytes, readBytes, render } = page
  let before = page.before
  const parts: string[] = []
  let bytes = 0
  let more = false
  for (;;) {
    const want = limit - parts.length
    if (parts.length) await yieldToLoop()
    // one more than wanted tells whether older entries remain (with the page's entries all
    // taken, that one alone); the store stops once its lists pass `budget`
    const budget = Math.min(pageBytes - bytes, readBytes)
    const batch = await deps.store.historyText(key, want + 1, before, budget)
    const olderRemain = batch.length > want
    const usable = olderRemain ? batch.slice(1) : batch
    const bytesBefore = bytes
    let full = false
    for (const entry of usable.reverse()) {
      // the stored list goes out as it is: no parse, no serialisation
      const json = render(entry)
      // counted on the stored text (flat) rather than the joined one, which would flatten it
      // here; the rest of the entry is ASCII
      const size = Buffer.byteLength(entry.items) + json.length - entry.items.length + 1
      if (parts.length && bytes + size > pageBytes) {
        full = true
        break
      }
      parts.push(json)
      bytes += size
      before = entry.version
    }
    if (full || olderRemain) {
      more = true
      break
    }
    // a batch the store ended at the budget may leave older entries: the next read tells
    if (usable.length === 0 || bytes - bytesBefore <= budget) break
  }
  const nextCursor = more && before !== undefined ? encodeHistoryCursor(before) : null
  return { newestFirst: parts, nextCursor }
}
