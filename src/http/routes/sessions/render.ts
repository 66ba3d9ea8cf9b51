/**
 * @module http/routes/sessions/render
 * `GET /v1/sessions/{session_id}/render`: the list as the session's dialect renders it.
 */
import { z } from '@hono/zod-openapi'
import { loadSession } from '../../../service/sessions.js'
import { operation } from '../../operation.js'
import { problemResponses } from '../../problem.js'
import { notModifiedResponse } from '../../route-config.js'
import { renderedList } from '../../../service/views.js'
import {
  etagHeader,
  etagOf,
  keyOf,
  notModified,
  sessionRoute,
  type SessionRoutesDeps,
} from './shared.js'

export const renderSessionRoute = sessionRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}/render',
  summary: "The list as the session's dialect renders it",
  operationId: 'renderSession',
  responses: {
    200: {
      description: 'Rendered list',
      headers: etagHeader,
      content: { 'text/plain': { schema: z.string() } },
    },
    304: notModifiedResponse,
    ...problemResponses('invalid-session-id', 'unauthorized', 'session-not-found'),
  },
})

/** The operation `GET /v1/sessions/{session_id}/render`: its route and its handler. */
export const renderSession = operation(renderSessionRoute, async (c, deps: SessionRoutesDeps) => {
  const session = await loadSession(deps.service, keyOf(c, c.req.valid('param').session_id))
  const etag = etagOf(session)
  return notModified(c, etag) ?? c.text(renderedList(session), 200, { ETag: etag })
})
