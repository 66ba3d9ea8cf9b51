/**
 * @module http/routes/sessions/delete
 * `DELETE /v1/sessions/{session_id}`: a session and its history, deleted.
 */
import { deleteSession as deleteStored } from '../../../service/sessions.js'
import { operation } from '../../operation.js'
import { audit } from '../../people/actor.js'
import { problemResponses } from '../../problem.js'
import { emptyResponse } from '../../typed-response.js'
import { keyOf, sessionRoute, type SessionRoutesDeps } from './shared.js'

export const deleteSessionRoute = sessionRoute({
  method: 'delete',
  path: '/v1/sessions/{session_id}',
  summary: 'Delete a session and its history',
  operationId: 'deleteSession',
  responses: {
    204: { description: 'Deleted' },
    ...problemResponses('invalid-session-id', 'unauthorized', 'forbidden', 'session-not-found'),
  },
})

/** The operation `DELETE /v1/sessions/{session_id}`: its route and its handler. */
export const deleteSession = operation(deleteSessionRoute, async (c, deps: SessionRoutesDeps) => {
  const key = keyOf(c, c.req.valid('param').session_id)
  await deleteStored(deps.service, key)
  await audit(c, deps.service, 'session.delete', key.sessionId)
  return emptyResponse(c, 204)
})
