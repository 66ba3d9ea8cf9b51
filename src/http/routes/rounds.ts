/**
 * @module http/routes/rounds
 * `POST /v1/sessions/{session_id}/rounds`: the agent loop's one call per model turn.
 */
import { createHash } from 'node:crypto'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { limitsOf, type AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import { runRound } from '../round-runner.js'
import { problemResponses, ServiceError } from '../problem.js'
import { RoundReply, RoundRequest, SessionIdParam } from '../schemas.js'
import { roundReply } from '../views.js'
import { registerDocumented, validInput } from '../route-input.js'

const RoundHeaders = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().openapi({
    description: 'Retries with the same key return the stored reply and change nothing (24 h).',
  }),
})

const postRound = createRoute({
  method: 'post',
  path: '/v1/sessions/{session_id}/rounds',
  tags: ['rounds'],
  summary: "Report one model turn's tool calls; get the tool results and the reminder",
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
    ...problemResponses(400, 401, 403, 409, 413, 422, 503),
  },
})

/**
 * How long a claim on an Idempotency-Key holds while its request runs: should the process die
 * mid-request, a retry may run again after this, instead of getting 409 for a day.
 */
const IN_FLIGHT_TTL_MS = 30_000

const fingerprint = (body: unknown) =>
  createHash('sha256').update(JSON.stringify(body)).digest('hex')

function replay(c: Context, reply: string) {
  return c.body(reply, 200, { 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true' })
}

/** Registers the rounds route. */
export function registerRoundRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  // the hottest route validates its own input in one pass (route-input.ts), same schemas
  registerDocumented(app, postRound, async (c) => {
    const input = await validInput(c, {
      params: SessionIdParam,
      headers: RoundHeaders,
      body: RoundRequest,
    })
    const { session_id: sessionId } = input.param
    const body = input.json
    const idempotencyKey = input.header['idempotency-key']
    const key = { tenant: c.get('tenant'), sessionId }
    const limits = limitsOf(deps)
    if (body.tool_calls.length > limits.maxToolCalls) {
      const detail = `at most ${limits.maxToolCalls} tool calls per round (MAX_TOOL_CALLS); this round has ${body.tool_calls.length}`
      throw new ServiceError('too-many-tool-calls', `Limit exceeded: ${detail}.`, {
        errors: [{ pointer: '/tool_calls', detail }],
      })
    }

    if (idempotencyKey === undefined) {
      const reply = JSON.stringify(roundReply(await runRound(deps, key, body)))
      return c.body(reply, 200, { 'Content-Type': 'application/json' })
    }
    const scope = `${key.tenant}\u0000${sessionId}\u0000${idempotencyKey}`
    const print = fingerprint(body)
    const claim = await deps.store.claimIdempotency(scope, print, IN_FLIGHT_TTL_MS)
    if (!claim.claimed) {
      if (claim.record.fingerprint !== print) {
        throw new ServiceError(
          'idempotency-key-reused',
          'This Idempotency-Key was used with a different request body.'
        )
      }
      if (claim.record.reply === null) {
        throw new ServiceError(
          'idempotency-in-flight',
          'A request with this Idempotency-Key is still in flight; retry later.'
        )
      }
      return replay(c, claim.record.reply)
    }
    // the reply is stored in the same atomic step as the round: a retry after a timeout or a
    // crash finds it, or finds that nothing committed
    let stored: string | undefined
    try {
      const outcome = await runRound(deps, key, body, undefined, {
        scope,
        token: claim.token,
        ttlMs: deps.idempotencyTtlMs,
        reply: (value) => (stored = JSON.stringify(roundReply(value))),
      })
      return c.body(stored ?? JSON.stringify(roundReply(outcome)), 200, {
        'Content-Type': 'application/json',
      })
    } catch (error) {
      // only when nothing committed: the release is a no-op once the reply is stored
      await deps.store.releaseIdempotency(scope, claim.token).catch(() => undefined)
      throw error
    }
  })
}
