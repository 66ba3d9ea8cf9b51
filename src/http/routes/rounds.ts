/**
 * @module http/routes/rounds
 * `POST /v1/sessions/{session_id}/rounds`: the agent loop's one call per model turn.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { RoundOutcome } from '../../dialects/round.js'
import type { ServiceDeps } from '../../service/deps.js'
import { reportRound, roundReply } from '../../service/rounds.js'
import { serviceDepsOf, type AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import { originHintsOf } from '../origin-headers.js'
import { problemResponses } from '../problem.js'
import { RoundReply, RoundRequest, SessionIdParam } from '../schemas.js'
import { operation, registerOperations } from '../operation.js'
import { validInput } from '../route-input.js'
import { jsonResponse, jsonText } from '../typed-response.js'

const RoundHeaders = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().openapi({
    description: 'Retries with the same key return the stored reply and change nothing (24 h).',
  }),
})

export const postRoundRoute = createRoute({
  method: 'post',
  path: '/v1/sessions/{session_id}/rounds',
  tags: ['rounds'],
  summary: "Report one model turn's tool calls; get the tool results and the reminder",
  operationId: 'postRound',
  request: {
    params: SessionIdParam,
    headers: RoundHeaders,
    body: { required: true, content: { 'application/json': { schema: RoundRequest } } },
  },
  responses: {
    200: {
      description: 'The round was processed (a tool call may still have failed: see is_error)',
      headers: {
        'Idempotent-Replayed': { schema: { type: 'string' }, description: 'true on a replay' },
      },
      content: { 'application/json': { schema: RoundReply } },
    },
    ...problemResponses(
      'invalid-session-id',
      'invalid-request',
      'malformed-json',
      'body-too-deep',
      'too-many-tool-calls',
      'unauthorized',
      'forbidden',
      'session-quota-exceeded',
      'agent-owns-list',
      'dialect-conflict',
      'idempotency-in-flight',
      'body-too-large',
      'limit-exceeded',
      'idempotency-key-reused',
      'idempotency-claim-lost',
      'store-unavailable',
      'contention'
    ),
  },
})

const replyText = (outcome: RoundOutcome) => jsonText(roundReply(outcome))

/**
 * The operation `POST /v1/sessions/{session_id}/rounds`. The hottest route validates its own
 * input in one pass (route-input.ts), with the same schemas.
 */
export const postRound = operation(
  postRoundRoute,
  async (c, service: ServiceDeps) => {
    const input = await validInput(c, {
      params: SessionIdParam,
      headers: RoundHeaders,
      body: RoundRequest,
    })
    const key = { tenant: c.get('tenant'), sessionId: input.param.session_id }
    // the body goes whole (its origin and labels are part of the Idempotency-Key's fingerprint)
    const { origin, labels } = input.json
    const reply = await reportRound(
      service,
      key,
      input.json,
      input.header['idempotency-key'],
      replyText,
      { hints: [...originHintsOf(c), ...(origin ? [origin] : [])], labels }
    )
    return jsonResponse(
      c,
      reply.text,
      200,
      reply.replayed ? { 'Idempotent-Replayed': 'true' } : undefined
    )
  },
  { validatesInput: true }
)

/** Registers the rounds route. */
export function registerRoundRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  registerOperations(app, serviceDepsOf(deps), [postRound])
}
