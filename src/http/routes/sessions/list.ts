/**
 * @module http/routes/sessions/list
 * `GET /v1/sessions`: the tenant's sessions, newest change first, in pages.
 */
import { createRoute, type z } from '@hono/zod-openapi'
import {
  LABEL_NAME_PATTERN,
  MAX_LABEL_VALUE,
  MAX_LABELS,
  withoutCredentials,
  type Labels,
} from '../../../core/origin.js'
import { ServiceError } from '../../../service/errors.js'
import { listCursor, listSessions as listStored } from '../../../service/reads.js'
import { cursorAfter, encodeCursor } from '../../../store/cursor.js'
import { jsonArrayWithin, PAGE_BYTES } from '../../json-parts.js'
import { operation } from '../../operation.js'
import { problemResponses } from '../../problem.js'
import { jsonReply, notModifiedResponse } from '../../route-config.js'
import { ListQuery, SessionList } from '../../schemas.js'
import { jsonResponse, serialised } from '../../typed-response.js'
import { sessionSummary } from '../../../service/views.js'
import { staleBefore, type SessionRoutesDeps } from './shared.js'
import { userFilter } from '../../people/actor.js'

export const listSessionsRoute = createRoute({
  method: 'get',
  path: '/v1/sessions',
  tags: ['sessions'],
  summary: "The tenant's sessions, newest change first",
  description:
    'Pages of at most `limit` sessions and 2 MiB, ordered by last change (newest first), then by id. A session that changes while you page moves to the front, so a later page does not hold it: to see every session once, page to the end, then list again with `updated_since` = the time you began. Filters combine (all must hold, exact match): `state`, `dialect`, `source`, `updated_since`, the origin (`user`, where `me` is the caller’s own person, `host`, `repo`, `agent`) and labels, each as `label.<name>=<value>` (a name must match ^[a-z][a-z0-9_.-]{0,62}$; at most 16; else 400).',
  operationId: 'listSessions',
  request: { query: ListQuery },
  responses: {
    200: jsonReply('A page of sessions', SessionList),
    304: notModifiedResponse,
    ...problemResponses('invalid-request', 'invalid-cursor', 'unauthorized'),
  },
})

/**
 * The listing's label conditions: each `label.<name>=<value>` of the query (exact match; a name
 * twice must match both values, which no session does). Not in the zod query schema, whose keys
 * are fixed; checked here as the schema would (400 naming the parameter).
 * @param url - the request URL
 * @throws ServiceError `invalid-request` for a name that no label can have, or too many
 */
export function labelFilters(url: string): Labels | undefined {
  let labels: Labels | undefined
  let count = 0
  for (const [param, value] of new URL(url).searchParams) {
    if (!param.startsWith('label.')) continue
    const name = param.slice('label.'.length)
    const problem =
      ++count > MAX_LABELS
        ? `at most ${MAX_LABELS} label filters`
        : !LABEL_NAME_PATTERN.test(name)
          ? `label name must match ${LABEL_NAME_PATTERN.source}`
          : value.length > MAX_LABEL_VALUE
            ? `a label value has at most ${MAX_LABEL_VALUE} characters`
            : null
    if (problem) {
      throw new ServiceError(
        'invalid-request',
        `Invalid query parameter '${param.slice(0, 80)}': ${problem}.`,
        {
          errors: [{ pointer: `/query/${param.slice(0, 80)}`, detail: problem }],
        }
      )
    }
    labels ??= {}
    // the same name twice asks for two values at once: nothing matches
    if (Object.hasOwn(labels, name) && labels[name] !== value) labels[name] = '\u0000'
    else labels[name] = value
  }
  return labels
}

/** The operation `GET /v1/sessions`: its route and its handler. */
export const listSessions = operation(listSessionsRoute, async (c, deps: SessionRoutesDeps) => {
  const query = c.req.valid('query')
  const cursor = listCursor(query.cursor)
  const before = staleBefore(deps.app)
  const page = await listStored(deps.service, c.get('tenant'), {
    state: query.state,
    limit: query.limit,
    cursor,
    staleBefore: before,
    dialect: query.dialect,
    source: query.source,
    user: userFilter(c, query.user),
    host: query.host,
    repo: query.repo === undefined ? undefined : withoutCredentials(query.repo),
    agent: query.agent,
    labels: labelFilters(c.req.url),
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
})
