/**
 * @module http/routes/sessions/history
 * `GET /v1/sessions/{session_id}/history`: the last versions of the list, in pages.
 */
import { createRoute, type z } from '@hono/zod-openapi'
import { decodeHistoryCursor, encodeHistoryCursor } from '../../../store/cursor.js'
import { versionTag } from '../../etag.js'
import { PAGE_BYTES, yieldToLoop } from '../../json-parts.js'
import { problemResponses, sessionNotFound } from '../../problem.js'
import { History, HistoryQuery, SessionIdParam } from '../../schemas.js'
import { jsonResponse, serialised, type AppRouteHandler } from '../../typed-response.js'
import { historyViewText } from '../../views.js'
import { etagHeader, invalidCursor, keyOf, notModified, type SessionRoutesDeps } from './shared.js'

export const getHistoryRoute = createRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}/history',
  tags: ['sessions'],
  summary: 'The last versions of the list, in pages',
  description:
    'The newest page first: at most `limit` entries (default and cap HISTORY_LIMIT) and 2 MiB, oldest first within the page. `next_cursor` names the page of older entries, null when none remain.',
  request: { params: SessionIdParam, query: HistoryQuery },
  responses: {
    200: {
      description: 'History',
      headers: etagHeader,
      content: { 'application/json': { schema: History } },
    },
    304: { description: 'Not modified (If-None-Match)' },
    ...problemResponses(400, 401, 404),
  },
})

/** History entries read from the store per call while a page is assembled. */
const HISTORY_BATCH = 8

/** The handler of `GET /v1/sessions/{session_id}/history`. */
export const getHistory =
  (deps: SessionRoutesDeps): AppRouteHandler<typeof getHistoryRoute> =>
  async (c) => {
    const { store, historyLimit } = deps.app
    const key = keyOf(c, c.req.valid('param').session_id)
    const query = c.req.valid('query')
    const limit = Math.min(query.limit ?? historyLimit, historyLimit)
    let before = query.cursor === undefined ? undefined : decodeHistoryCursor(query.cursor)
    if (query.cursor !== undefined && before === undefined) throw invalidCursor()
    // the brief tells the version (the ETag) without reading the session
    const brief = await store.brief(key)
    if (!brief) throw sessionNotFound(key.sessionId)
    const etag = versionTag(brief.version)
    const cached = notModified(c, etag)
    if (cached) return cached
    // newest first while reading, in batches, until the page is full or its bytes are spent
    const parts: string[] = []
    let bytes = 0
    let more = false
    while (parts.length < limit) {
      const want = Math.min(HISTORY_BATCH, limit - parts.length)
      // one more than wanted tells whether older entries remain; the store stops at the bytes
      // this page has left (past them, the loop below finds the page full), and the loop yields
      // between batches, so a history of large lists costs what its page returns
      if (parts.length) await yieldToLoop()
      const budget = PAGE_BYTES - bytes
      const batch = await store.historyText(key, want + 1, before, budget)
      if (batch.length === 0) break
      const olderRemain = batch.length > want
      const usable = olderRemain ? batch.slice(1) : batch
      const bytesBefore = bytes
      let full = false
      for (const entry of usable.reverse()) {
        // the stored list goes out as it is: no parse, no serialisation
        const json = historyViewText(entry)
        const size = Buffer.byteLength(json) + 1
        if (parts.length && bytes + size > PAGE_BYTES) {
          full = true
          break
        }
        parts.push(json)
        bytes += size
        before = entry.version
      }
      if (full) {
        more = true
        break
      }
      // a short batch past the budget may have been ended by it (then older entries may
      // remain): the next one tells
      if (!olderRemain && bytes - bytesBefore <= budget) break
      if (parts.length >= limit) more = true
    }
    parts.reverse()
    const nextCursor =
      more && before !== undefined ? JSON.stringify(encodeHistoryCursor(before)) : 'null'
    const text = serialised<z.infer<typeof History>>(
      `{"entries":[${parts.join(',')}],"next_cursor":${nextCursor}}`
    )
    return jsonResponse(c, text, 200, { ETag: etag })
  }
