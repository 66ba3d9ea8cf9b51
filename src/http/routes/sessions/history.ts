/**
 * @module http/routes/sessions/history
 * `GET /v1/sessions/{session_id}/history`: the last versions of the list, in pages.
 */
import type { z } from '@hono/zod-openapi'
import { decodeHistoryCursor, encodeHistoryCursor } from '../../../store/cursor.js'
import { versionTag } from '../../etag.js'
import { PAGE_BYTES, yieldToLoop } from '../../json-parts.js'
import { operation } from '../../operation.js'
import { problemResponses, sessionNotFound } from '../../problem.js'
import { jsonReply, notModifiedResponse } from '../../route-config.js'
import { History, HistoryQuery } from '../../schemas.js'
import { jsonResponse, serialised } from '../../typed-response.js'
import { historyViewText } from '../../../service/views.js'
import {
  etagHeader,
  invalidCursor,
  keyOf,
  notModified,
  sessionRoute,
  type SessionRoutesDeps,
} from './shared.js'

export const getHistoryRoute = sessionRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}/history',
  summary: 'The last versions of the list, in pages',
  description:
    'The newest page first: at most `limit` entries (default and cap HISTORY_LIMIT) and 2 MiB, oldest first within the page. `next_cursor` names the page of older entries, null when none remain.',
  operationId: 'getHistory',
  request: { query: HistoryQuery },
  responses: {
    200: { ...jsonReply('History', History), headers: etagHeader },
    304: notModifiedResponse,
    ...problemResponses(400, 401, 404),
  },
})

/**
 * The most bytes of lists one read of the store takes while a page is assembled: a read, and the
 * turn of the event loop it holds, is about one large list (1 MB), not the page's 2 MiB; the
 * handler yields between reads.
 */
const READ_BYTES = 256 * 1024

/** The operation `GET /v1/sessions/{session_id}/history`: its route and its handler. */
export const getHistory = operation(getHistoryRoute, async (c, deps: SessionRoutesDeps) => {
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
  // newest first while reading, a few hundred KB (or one large list) per read of the store and
  // a turn of the event loop between reads, until the page is full or its bytes are spent
  const parts: string[] = []
  let bytes = 0
  let more = false
  for (;;) {
    const want = limit - parts.length
    if (parts.length) await yieldToLoop()
    // one more than wanted tells whether older entries remain (with the page's entries all
    // taken, that one alone); the store stops once its lists pass `budget`
    const budget = Math.min(PAGE_BYTES - bytes, READ_BYTES)
    const batch = await store.historyText(key, want + 1, before, budget)
    const olderRemain = batch.length > want
    const usable = olderRemain ? batch.slice(1) : batch
    const bytesBefore = bytes
    let full = false
    for (const entry of usable.reverse()) {
      // the stored list goes out as it is: no parse, no serialisation
      const json = historyViewText(entry)
      // counted on the stored text (flat) rather than the joined one, which would flatten it
      // here; the rest of the entry is ASCII
      const size = Buffer.byteLength(entry.items) + json.length - entry.items.length + 1
      if (parts.length && bytes + size > PAGE_BYTES) {
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
  const nextCursor =
    more && before !== undefined ? JSON.stringify(encodeHistoryCursor(before)) : 'null'
  // the body in one join, in a turn of its own: one flat copy of the page, which the response
  // then hands out a slice at a time (a join inside a template would be copied once more when
  // its first slice flattens it)
  if (parts.length > 1) await yieldToLoop()
  const pieces = ['{"entries":[']
  for (let i = parts.length - 1; i >= 0; i--) pieces.push(parts[i], i ? ',' : '')
  pieces.push(`],"next_cursor":${nextCursor}}`)
  const text = serialised<z.infer<typeof History>>(pieces.join(''))
  return jsonResponse(c, text, 200, { ETag: etag })
})
