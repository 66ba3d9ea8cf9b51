/**
 * @module store/redis/listing
 * A tenant's sessions without KEYS or SCAN: its sorted set (member session id, score updated_at)
 * walked from newest to oldest, each member's brief (never its record) read and filtered in
 * process; members whose session is gone are dropped when a listing meets them.
 */
import type { Cluster, Redis } from 'ioredis'
import type { Session, SessionKey } from '../../core/session.js'
import { briefOf, parseBrief, type SessionBrief } from '../brief.js'
import { isBeforeCursor } from '../cursor.js'
import { matchesListQuery } from '../filter.js'
import type { ListCursor, SessionStore, StoreLogger } from '../types.js'
import { errorText } from './connection.js'
import { guarded } from './errors.js'
import { liveRecord, type KeyLayout } from './keys.js'
import type { Seat } from './seats.js'

/** Index entries one listing call may examine before it returns a short page with a cursor. */
const LIST_SCAN_BUDGET = 2000
/**
 * Briefs read in one round of commands: each is a few hundred bytes, so a round stays far
 * below the command timeout whatever the sessions' size.
 */
const BRIEF_BATCH = 100

export interface Listing {
  list: SessionStore['list']
  brief: SessionStore['brief']
  countSessions: SessionStore['countSessions']
  /**
   * Cluster only (the index is in another slot than the session): moves a session in the index
   * after its write, and gives back its creation's seat. Resolves once the index holds it, so a
   * write answers only when listings and counts on every instance show it; never rejects: a step
   * that fails (the cluster refreshing its slots, a node failing over) is tried again in the
   * background, so the session is not left out of its tenant's listing until its next write.
   */
  indexAdd: (key: SessionKey, updatedAt: number, seat?: Seat | null) => Promise<void>
}

/** The waits before each retry of a failed index step (Cluster). */
const INDEX_RETRY_MS = [250, 1_000, 4_000, 15_000]

export interface ListingOptions {
  client: Redis | Cluster
  keys: KeyLayout
  ttlMs: number
  now: () => number
  logger: StoreLogger
}

/**
 * The listing of a store.
 * @param options - connection, key layout, TTL, clock, logger
 */
export function createListing({ client, keys, ttlMs, now, logger }: ListingOptions): Listing {
  const dropFromIndex = (tenant: string, sessionId: string, score: number) => {
    client.atIndexDrop(keys.index(tenant), sessionId, String(score)).catch(() => undefined)
  }

  /**
   * A brief kept by an older release's write is missing (or stale): the record is read whole
   * once, one at a time, and its brief stored for the next listing (not awaited).
   */
  const briefFromRecord = async (key: SessionKey, at: number): Promise<SessionBrief | null> => {
    const sessionKey = keys.session(key)
    const [exp, data, token] = await guarded(() => client.hmget(sessionKey, 'exp', 'data', 't'))
    const session: Session | null = liveRecord([exp, data], at)
    if (!session) return null
    const brief = briefOf(session)
    client.atFillBrief(sessionKey, token ?? '', JSON.stringify(brief)).catch(() => undefined)
    return brief
  }

  /** The live briefs of a tenant's sessions at these positions (null: gone or expired). */
  const readBriefs = async (tenant: string, positions: ListCursor[], at: number) => {
    const briefs: (SessionBrief | null)[] = []
    for (let i = 0; i < positions.length; i += BRIEF_BATCH) {
      const batch = positions.slice(i, i + BRIEF_BATCH)
      const replies = await Promise.all(
        batch.map(({ sessionId }) =>
          guarded(() => client.hmget(keys.session({ tenant, sessionId }), 'exp', 't', 'bt', 'b'))
        )
      )
      for (let j = 0; j < batch.length; j++) {
        const [exp, token, briefToken, json] = replies[j]
        if (exp === null || Number(exp) <= at) {
          briefs.push(null)
          continue
        }
        const current = briefToken !== null && (token ?? '') === briefToken
        const brief = current ? parseBrief(json) : null
        briefs.push(brief ?? (await briefFromRecord({ tenant, sessionId: batch[j].sessionId }, at)))
      }
    }
    return briefs
  }

  return {
    async brief(key) {
      const [brief] = await readBriefs(
        key.tenant,
        [{ sessionId: key.sessionId, updatedAt: 0 }],
        now()
      )
      return brief
    },
    indexAdd(key, updatedAt, seat) {
      const attempt = (retry: number): Promise<void> =>
        client
          .atIndexAdd(
            keys.index(key.tenant),
            keys.seats(key.tenant),
            String(updatedAt),
            key.sessionId,
            String(ttlMs),
            seat?.id ?? ''
          )
          .then(
            () => undefined,
            (error: unknown) => {
              const last = retry >= INDEX_RETRY_MS.length
              logger.warn(
                { err: errorText(error), session_id: key.sessionId, retry },
                last ? 'session index not updated' : 'session index not updated yet; retrying'
              )
              if (last) return
              // ZADD GT: a retry that lands after a newer write's never moves the session back
              setTimeout(() => void attempt(retry + 1), INDEX_RETRY_MS[retry]).unref()
            }
          )
      return attempt(0)
    },

    async countSessions(tenant) {
      // every write moves its session to its updated_at, so older members have expired
      return guarded(() => client.zcount(keys.index(tenant), `(${now() - ttlMs}`, '+inf'))
    },

    async list(tenant, query) {
      const index = keys.index(tenant)
      const want = query.limit + 1
      const filtered =
        query.state !== 'all' || query.dialect !== undefined || query.source !== undefined
      const batchSize = !filtered ? want : Math.min(Math.max(want * 2, 50), 500)
      let max = query.cursor ? String(query.cursor.updatedAt) : '+inf'
      if (
        query.state === 'stale' &&
        (!query.cursor || query.cursor.updatedAt >= query.staleBefore)
      ) {
        max = `(${query.staleBefore}`
      }
      const found: { brief: SessionBrief; position: ListCursor }[] = []
      let lastExamined: ListCursor | null = null
      let offset = 0
      let scanned = 0
      let exhausted = false
      while (found.length < want && !exhausted && scanned < LIST_SCAN_BUDGET) {
        const flat = await guarded(() =>
          client.zrange(
            index,
            max,
            query.updatedSince === undefined ? '-inf' : String(query.updatedSince),
            'BYSCORE',
            'REV',
            'LIMIT',
            offset,
            batchSize,
            'WITHSCORES'
          )
        )
        offset += flat.length / 2
        exhausted = flat.length / 2 < batchSize
        const candidates: ListCursor[] = []
        for (let i = 0; i < flat.length; i += 2) {
          const position = { sessionId: flat[i], updatedAt: Number(flat[i + 1]) }
          if (
            !query.cursor ||
            isBeforeCursor(position.updatedAt, position.sessionId, query.cursor)
          ) {
            candidates.push(position)
          }
        }
        const at = now()
        const briefs = await readBriefs(tenant, candidates, at)
        for (let i = 0; i < candidates.length && found.length < want; i++) {
          const position = candidates[i]
          scanned++
          lastExamined = position
          const brief = briefs[i]
          if (!brief) {
            dropFromIndex(tenant, position.sessionId, position.updatedAt)
            continue
          }
          if (matchesListQuery(brief, query)) {
            found.push({ brief, position })
          }
        }
      }
      const page = found.slice(0, query.limit)
      let next: ListCursor | null = null
      if (found.length > query.limit) next = page[page.length - 1].position
      else if (!exhausted && found.length < want && lastExamined) next = lastExamined
      return { sessions: page.map((entry) => entry.brief), next }
    },
  }
}
