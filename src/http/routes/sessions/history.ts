/**
 * @module http/routes/sessions/history
 * `GET /v1/sessions/{session_id}/history`: the last versions of the list, in pages.
 */
import type { z } from '@hono/zod-openapi'
import { historyCursor, historyPage, sessionVersion } from '../../../service/reads.js'
import { versionTag } from '../../etag.js'
import { PAGE_BYTES, yieldToLoop } from '../../json-parts.js'
import { operation } from '../../operation.js'
import { problemResponses } from '../../problem.js'
import { jsonReply, notModifiedResponse } from '../../route-config.js'
import { History, HistoryQuery } from '../../schemas.js'
import { jsonResponse, serialised } from '../../typed-response.js'
import { historyViewText } from '../../../service/views.js'
import { etagHeader, keyOf, notModified, sessionRoute, type SessionRoutesDeps } from './shared.js'

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
    ...problemResponses(
      'invalid-session-id',
      'invalid-request',
      'invalid-cursor',
      'unauthorized',
      'session-not-found'
    ),
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
  const { historyLimit } = deps.app
  const key = keyOf(c, c.req.valid('param').session_id)
  const query = c.req.valid('query')
  const limit = Math.min(query.limit ?? historyLimit, historyLimit)
  const before = historyCursor(query.cursor)
  // the brief tells the version (the ETag) without reading the session
  const etag = versionTag(await sessionVersion(deps.service, key))
  const cached = notModified(c, etag)
  if (cached) return cached
  const page = await historyPage(deps.service, key, {
    limit,
    before,
    pageBytes: PAGE_BYTES,
    readBytes: READ_BYTES,
    render: historyViewText,
  })
  const parts = page.newestFirst
  const nextCursor = page.nextCursor === null ? 'null' : JSON.stringify(page.nextCursor)
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
