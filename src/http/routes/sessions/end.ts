/**
 * @module http/routes/sessions/end
 * `POST /v1/sessions/{session_id}/end`: how the agent's run ended (service/sessions `endSession`).
 */
import { endSession as endStored } from '../../../service/sessions.js'
import { operation } from '../../operation.js'
import { audit } from '../../people/actor.js'
import { problemResponses } from '../../problem.js'
import { EndRequest } from '../../schemas.js'
import { keyOf, sessionRoute, viewContent, viewResponse, type SessionRoutesDeps } from './shared.js'

export const endSessionRoute = sessionRoute({
  method: 'post',
  path: '/v1/sessions/{session_id}/end',
  summary: "Record how the agent's run ended, and what it left unfinished",
  operationId: 'endSession',
  request: {
    body: { required: true, content: { 'application/json': { schema: EndRequest } } },
  },
  responses: {
    200: viewContent('The ended session'),
    ...problemResponses(
      'invalid-session-id',
      'invalid-request',
      'malformed-json',
      'body-too-deep',
      'unauthorized',
      'forbidden',
      'session-not-found',
      'body-too-large'
    ),
  },
})

/** The operation `POST /v1/sessions/{session_id}/end`: its route and its handler. */
export const endSession = operation(endSessionRoute, async (c, deps: SessionRoutesDeps) => {
  const key = keyOf(c, c.req.valid('param').session_id)
  const end = c.req.valid('json')
  const session = await endStored(deps.service, key, end)
  await audit(c, deps.service, 'session.end', key.sessionId, { outcome: end.outcome })
  return viewResponse(c, deps.app, session)
})
