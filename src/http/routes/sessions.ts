/**
 * @module http/routes/sessions
 * Reading, editing, ending and listing sessions.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { Session, SessionKey } from '../../core/session.js'
import {
  cursorAfter,
  decodeCursor,
  decodeHistoryCursor,
  encodeCursor,
  encodeHistoryCursor,
} from '../../store/cursor.js'
import { serviceDepsOf, type AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import { conditionMatches, versionTag } from '../etag.js'
import { problemResponses, ServiceError, sessionNotFound } from '../problem.js'
import {
  EndRequest,
  History,
  HistoryQuery,
  ListQuery,
  PutTodosRequest,
  SessionIdParam,
  SessionList,
  SessionView,
} from '../schemas.js'
import { isCrossOrigin } from '../origin-guard.js'
import {
  deleteSession as deleteStored,
  editList,
  endSession as endStored,
  loadSession,
} from '../../service/sessions.js'
import { requestHeader } from '../route-input.js'
import {
  jsonArrayWithin,
  PAGE_BYTES,
  stringifySliced,
  textBody,
  yieldToLoop,
} from '../json-parts.js'
import { historyViewText, renderedList, sessionSummary, sessionView } from '../views.js'

const etagHeader = { ETag: { schema: { type: 'string' as const }, description: '"<version>"' } }
const viewContent = { 'application/json': { schema: SessionView } }

const getSession = createRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}',
  tags: ['sessions'],
  summary: 'A session: its list, progress, counters',
  request: { params: SessionIdParam },
  responses: {
    200: { description: 'The session', headers: etagHeader, content: viewContent },
    304: { description: 'Not modified (If-None-Match)' },
    ...problemResponses(400, 401, 404),
  },
})

const getRender = createRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}/render',
  tags: ['sessions'],
  summary: "The list as the session's dialect renders it",
  request: { params: SessionIdParam },
  responses: {
    200: {
      description: 'Rendered list',
      headers: etagHeader,
      content: { 'text/plain': { schema: z.string() } },
    },
    304: { description: 'Not modified (If-None-Match)' },
    ...problemResponses(400, 401, 404),
  },
})

const putTodos = createRoute({
  method: 'put',
  path: '/v1/sessions/{session_id}/todos',
  tags: ['sessions'],
  summary: "An operator's edit of the list (the next round reply carries a notice)",
  request: {
    params: SessionIdParam,
    headers: z.object({
      'if-match': z.string().max(200).optional().openapi({ description: '"<version>" or *' }),
    }),
    body: { required: true, content: { 'application/json': { schema: PutTodosRequest } } },
  },
  responses: {
    200: { description: 'The session after the edit', headers: etagHeader, content: viewContent },
    ...problemResponses(400, 401, 403, 409, 412, 413, 422),
  },
})

const deleteSession = createRoute({
  method: 'delete',
  path: '/v1/sessions/{session_id}',
  tags: ['sessions'],
  summary: 'Delete a session and its history',
  request: { params: SessionIdParam },
  responses: { 204: { description: 'Deleted' }, ...problemResponses(400, 401, 403, 404) },
})

const endSession = createRoute({
  method: 'post',
  path: '/v1/sessions/{session_id}/end',
  tags: ['sessions'],
  summary: "Record how the agent's run ended, and what it left unfinished",
  request: {
    params: SessionIdParam,
    body: { required: true, content: { 'application/json': { schema: EndRequest } } },
  },
  responses: {
    200: { description: 'The ended session', headers: etagHeader, content: viewContent },
    ...problemResponses(400, 401, 403, 404, 413),
  },
})

const listSessions = createRoute({
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

const getHistory = createRoute({
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

const etagOf = (session: Session) => versionTag(session.version)

/** History entries read from the store per call while a page is assembled. */
const HISTORY_BATCH = 8

const invalidCursor = () =>
  new ServiceError('invalid-cursor', 'cursor is not one this service returned', {
    errors: [{ pointer: '/query/cursor', detail: 'invalid cursor' }],
  })

/** An If-Match header as the edit's precondition on the current version. */
const ifMatchOf = (header: string) => ({
  header,
  matches: (current: Session | null) => conditionMatches(header, current && etagOf(current), false),
})

/**
 * A 304 when If-None-Match names the current version (weak comparison, `*` included), before any
 * view is built; null otherwise. hono's etag() would build and serialise the body first.
 */
function notModified(c: Context, etag: string): Response | null {
  const header = requestHeader(c, 'if-none-match')
  return header && conditionMatches(header, etag, true) ? c.body(null, 304, { ETag: etag }) : null
}

/** Registers the session routes. */
export function registerSessionRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  const service = serviceDepsOf(deps)
  const keyOf = (c: { get(k: 'tenant'): string }, sessionId: string): SessionKey => ({
    tenant: c.get('tenant'),
    sessionId,
  })
  const staleBefore = () => deps.now() - deps.staleAfterMs
  const load = (key: SessionKey) => loadSession(service, key)

  /** A session view as the response: its items serialised a slice at a time. */
  const viewResponse = async (c: Context, session: Session) =>
    c.body(textBody(await stringifySliced(sessionView(session, staleBefore()))), 200, {
      'Content-Type': 'application/json',
      ETag: etagOf(session),
    })

  app.openapi(getSession, async (c) => {
    const session = await load(keyOf(c, c.req.valid('param').session_id))
    return notModified(c, etagOf(session)) ?? (await viewResponse(c, session))
  })

  app.openapi(getRender, async (c) => {
    const session = await load(keyOf(c, c.req.valid('param').session_id))
    const etag = etagOf(session)
    return notModified(c, etag) ?? c.text(renderedList(session), 200, { ETag: etag })
  })

  app.openapi(putTodos, async (c) => {
    const key = keyOf(c, c.req.valid('param').session_id)
    const body = c.req.valid('json')
    const ifMatch = c.req.valid('header')['if-match']
    const session = await editList(service, key, {
      items: body.items.map((item) => ({
        ...item,
        blocks: item.blocks ?? [],
        blocked_by: item.blocked_by ?? [],
      })),
      dialect: body.dialect,
      ifMatch: ifMatch === undefined ? undefined : ifMatchOf(ifMatch),
      // in open access any page that CORS_ORIGINS admits could write here: its edit may change
      // the list a person sees, never the text a running agent is handed
      untrusted: deps.keys.size === 0 && isCrossOrigin(c),
    })
    return (await viewResponse(c, session)) as never
  })

  app.openapi(deleteSession, async (c) => {
    await deleteStored(service, keyOf(c, c.req.valid('param').session_id))
    return c.body(null, 204)
  })

  app.openapi(endSession, async (c) => {
    const key = keyOf(c, c.req.valid('param').session_id)
    const session = await endStored(service, key, c.req.valid('json'))
    return (await viewResponse(c, session)) as never
  })

  app.openapi(listSessions, async (c) => {
    const query = c.req.valid('query')
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
    if (query.cursor !== undefined && !cursor) throw invalidCursor()
    const before = staleBefore()
    const page = await deps.store.list(c.get('tenant'), {
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
    return c.body(textBody(`{"sessions":${json},"next_cursor":${nextCursor}}`), 200, {
      'Content-Type': 'application/json',
    })
  })

  app.openapi(getHistory, async (c) => {
    const key = keyOf(c, c.req.valid('param').session_id)
    const query = c.req.valid('query')
    const limit = Math.min(query.limit ?? deps.historyLimit, deps.historyLimit)
    let before = query.cursor === undefined ? undefined : decodeHistoryCursor(query.cursor)
    if (query.cursor !== undefined && before === undefined) throw invalidCursor()
    // the brief tells the version (the ETag) without reading the session
    const brief = await deps.store.brief(key)
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
      const batch = await deps.store.historyText(key, want + 1, before, budget)
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
    return c.body(textBody(`{"entries":[${parts.join(',')}],"next_cursor":${nextCursor}}`), 200, {
      'Content-Type': 'application/json',
      ETag: etag,
    })
  })
}
