/**
 * @module http/routes/sessions/list
 * `GET /v1/sessions`: the tenant's sessions, newest change first, in pages.
 */
import { createRoute, type z } from '@hono/zod-openapi'
import { cursorAfter, decodeCursor, encodeCursor } from '../../../store/cursor.js'
import { jsonArrayWithin, PAGE_BYTES } from '../../json-parts.js'
import { problemResponses } from '../../problem.js'
import { ListQuery, SessionList } from '../../schemas.js'
import { jsonResponse, serialised, type AppRouteHandler } from '../../typed-response.js'
import { sessionSummary } from '../../views.js'
import { invalidCursor, staleBefore, type SessionRoutesDeps } from './shared.js'

export const listSessionsRoute = createRoute({
  method: 'get',
  path: '/v1/sessions',
  tags: ['sessions'],
  summary: "The tenant's sessions, newest change first",
  description:
    'Pages of at most `limit` sessions and 2 MiB, ordered by last change (newest first), then by id. A session that changes while you page moves to the front, so a later page does not hold it: to see every session once, page to the end, then list again with `updated_since` = the time you began.',
  request: { query: ListQuery },
  responses: {
    200: {
      description: 'A page of sessions',
      content: { 'application/json': { schema: SessionList } },
    },
    304: { description: 'Not modified (If-None-Match)' },
    ...problemResponses(400, 401),
  },
})

/** The handler of `GET /v1/sessions`. */
export const listSessions =
  (deps: SessionRoutesDeps): AppRouteHandler<typeof listSessionsRoute> =>
  async (c) => {
    const query = c.req.valid('query')
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
    if (query.cursor !== undefined && !cursor) throw invalidCursor()
    const before = staleBefore(deps.app)
    const page = await deps.app.store.list(c.get('tenant'), {
      state: query.state,
      limit: query.limit,
      cursor,
      staleBefore: before,
      dialect: query.dialect,
      source: query.source,
      updatedSince: query.updated_since === undefined ? undefined : Date.parse(query.updated_since),
    })
    const { json, taken } = await jsonArrayWithin(
      page.sessions,
      (session) => JSON.stringify(sessionSummary(session, before)),
      PAGE_BYTES
    )
    // a page cut short by its byte budget goes on after its last session
    const next = taken < page.sessions.length ? cursorAfter(page.sessions[taken - 1]) : page.next
    const nextCursor = next ? JSON.stringify(encodeCursor(next)) : 'null'
    const text = serialised<z.infer<typeof SessionList>>(
      `{"sessions":${json},"next_cursor":${nextCursor}}`
    )
    return jsonResponse(c, text, 200)
  }
