/**
 * @module http/routes/sessions/get
 * `GET /v1/sessions/{session_id}`: a session, its list, progress and counters.
 */
import { loadSession } from '../../../service/sessions.js'
import { operation } from '../../operation.js'
import { problemResponses } from '../../problem.js'
import { notModifiedResponse } from '../../route-config.js'
import {
  etagOf,
  keyOf,
  notModified,
  sessionRoute,
  viewContent,
  viewResponse,
  type SessionRoutesDeps,
} from './shared.js'

export const getSessionRoute = sessionRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}',
  summary: 'A session: its list, progress, counters',
  operationId: 'getSession',
  responses: {
    200: viewContent('The session'),
    304: notModifiedResponse,
    ...problemResponses('invalid-session-id', 'unauthorized', 'session-not-found'),
  },
})

/** The operation `GET /v1/sessions/{session_id}`: its route and its handler. */
export const getSession = operation(getSessionRoute, async (c, deps: SessionRoutesDeps) => {
  const session = await loadSession(deps.service, keyOf(c, c.req.valid('param').session_id))
  return notModified(c, etagOf(session)) ?? (await viewResponse(c, deps.app, session))
})
