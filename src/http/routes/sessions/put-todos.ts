/**
 * @module http/routes/sessions/put-todos
 * `PUT /v1/sessions/{session_id}/todos`: a person's edit of the list (service/sessions `editList`).
 */
import { z } from '@hono/zod-openapi'
import type { Session } from '../../../core/session.js'
import { editList } from '../../../service/sessions.js'
import { conditionMatches } from '../../etag.js'
import { originHintsOf } from '../../origin-headers.js'
import { isCrossOrigin } from '../../origin-guard.js'
import { operation } from '../../operation.js'
import { audit } from '../../people/actor.js'
import { problemResponses } from '../../problem.js'
import { PutTodosRequest } from '../../schemas.js'
import {
  etagOf,
  keyOf,
  sessionRoute,
  viewContent,
  viewResponse,
  type SessionRoutesDeps,
} from './shared.js'

export const putTodosRoute = sessionRoute({
  method: 'put',
  path: '/v1/sessions/{session_id}/todos',
  summary: "An operator's edit of the list (the next round reply carries a notice)",
  operationId: 'putTodos',
  request: {
    headers: z.object({
      'if-match': z.string().max(200).optional().openapi({ description: '"<version>" or *' }),
    }),
    body: { required: true, content: { 'application/json': { schema: PutTodosRequest } } },
  },
  responses: {
    200: viewContent('The session after the edit'),
    ...problemResponses(
      'invalid-session-id',
      'invalid-request',
      'malformed-json',
      'body-too-deep',
      'unauthorized',
      'forbidden',
      'untrusted-edit',
      'session-quota-exceeded',
      'agent-owns-list',
      'dialect-conflict',
      'version-mismatch',
      'body-too-large',
      'dialect-rule',
      'limit-exceeded'
    ),
  },
})

/** An If-Match header as the edit's precondition on the current version (strong comparison). */
const ifMatchOf = (header: string) => ({
  header,
  matches: (current: Session | null) => conditionMatches(header, current && etagOf(current), false),
})

/** The operation `PUT /v1/sessions/{session_id}/todos`: its route and its handler. */
export const putTodos = operation(putTodosRoute, async (c, deps: SessionRoutesDeps) => {
  const body = c.req.valid('json')
  const ifMatch = c.req.valid('header')['if-match']
  const session = await editList(deps.service, keyOf(c, c.req.valid('param').session_id), {
    items: body.items.map((item) => ({
      ...item,
      blocks: item.blocks ?? [],
      blocked_by: item.blocked_by ?? [],
    })),
    dialect: body.dialect,
    settings: body.settings,
    ifMatch: ifMatch === undefined ? undefined : ifMatchOf(ifMatch),
    // in open access any page that CORS_ORIGINS admits could write here: its edit may change
    // the list a person sees, never the text a running agent is handed
    untrusted: c.get('via') === 'open' && isCrossOrigin(c),
    who: {
      hints: [...originHintsOf(c), ...(body.origin ? [body.origin] : [])],
      labels: body.labels,
    },
  })
  await audit(c, deps.service, 'session.edit', session.session_id, {
    version: session.version,
    items: session.items.length,
  })
  return viewResponse(c, deps.app, session)
})
