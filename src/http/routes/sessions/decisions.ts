/**
 * @module http/routes/sessions/decisions
 * `POST /v1/sessions/{session_id}/decisions`: a person answers the request an agent holds open
 * (service/decisions `decide`); `GET …/decisions`: the pending request, whether the caller may
 * answer it (the dashboard shows the options only then), and how the last one was answered.
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { lastAnswered, pendingRequest } from '../../../core/decisions.js'
import type { DecisionAnswer, DecisionRecord } from '../../../core/session.js'
import {
  decide,
  mayAnswer,
  type Caller,
  type CallerVia,
  type DecisionDeps,
} from '../../../service/decisions.js'
import { loadSession } from '../../../service/sessions.js'
import type { AppEnv } from '../../context.js'
import { DEFAULT_DECISIONS, type AppDeps } from '../../deps.js'
import type { Metrics } from '../../metrics.js'
import { operation } from '../../operation.js'
import { problemResponses } from '../../problem.js'
import { jsonReply } from '../../route-config.js'
import { DecisionRequestView, LastDecision, orNull } from '../../schemas.js'
import { waitingOf } from '../../../service/views.js'
import { keyOf, sessionRoute, type SessionRoutesDeps } from './shared.js'

export const DecisionBody = z
  .object({
    request_id: z.string().min(1).max(128),
    option_id: z.string().min(1).max(128).optional().openapi({
      description: "One of the request's options (allow_once, deny, a question's q<i>:<j>)",
    }),
    decision: z.enum(['allow', 'deny']).optional(),
    message: z.string().max(2000).optional().openapi({
      description: "A deny's reason: handed to the model as the tool's result",
    }),
    answers: z.record(z.string().max(2000), z.unknown()).optional().openapi({
      description:
        "A question's answers (question text → the chosen label), or an elicitation's content",
    }),
  })
  .openapi('DecisionBody')

export const DecisionReply = z
  .object({
    request_id: z.string(),
    outcome: z.enum(['allowed', 'denied', 'answered']),
    by: z.string().nullable(),
    at: z.string(),
  })
  .openapi('DecisionReply')

export const DecisionState = z
  .object({
    request: orNull(DecisionRequestView).openapi({ description: 'The pending request, or null' }),
    can_answer: z.boolean().openapi({
      description:
        'Whether the caller may answer this session’s requests (its own verified person, or an admin)',
    }),
    last_decision: orNull(LastDecision),
  })
  .openapi('DecisionState')

/** Whether the request came from a loopback address (the node server's socket). */
export function fromLoopback(c: Context): boolean {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined
  const address = env?.incoming?.socket?.remoteAddress ?? ''
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
}

/**
 * Who asks: `keyUser` names the verified person and `via` how they came (both set by
 * `http/auth`, which every `/v1` route runs; a request it did not see counts as a key's, never
 * as open access).
 * @param c - the request's context
 * @param _deps - the app's dependencies (unused: auth says everything)
 */
export function callerOf(c: Context<AppEnv>, _deps: AppDeps): Caller {
  const via: CallerVia = c.get('via') ?? 'key'
  const user = c.get('keyUser')
  return {
    tenant: c.get('tenant'),
    role: c.get('role'),
    ...(user ? { user } : {}),
    via,
    loopback: fromLoopback(c),
  }
}

/**
 * What answering runs on: the app's store, clock and `DECISIONS_OPEN`; answers counted in the
 * metrics and recorded in the tenant's audit trail.
 * @param deps - the app's dependencies
 */
export function decisionDepsOf(deps: AppDeps): DecisionDeps {
  const metrics: Metrics | undefined = deps.metrics
  return {
    store: deps.store,
    now: () => deps.now(),
    open: (deps.decisions ?? DEFAULT_DECISIONS).open,
    onDecided: (record: DecisionRecord, answer: DecisionAnswer) => {
      metrics?.decisions.inc({ outcome: answer.outcome, channel: answer.channel })
      metrics?.decisionSeconds.observe(
        { channel: answer.channel },
        Math.max(0, (answer.at - record.request.at) / 1000)
      )
    },
    auditTtlMs: deps.auditTtlMs,
    onAuditError: (err, entry) =>
      deps.logger.error({ err, action: entry.action, tenant: entry.tenant }, 'audit entry lost'),
  }
}

/** Where an API answer came from: the dashboard says so (`X-Agent-Todos-Client: dashboard`). */
const channelOf = (c: Context) =>
  c.req.header('x-agent-todos-client') === 'dashboard' ? 'dashboard' : 'api'

export const postDecisionRoute = sessionRoute({
  method: 'post',
  path: '/v1/sessions/{session_id}/decisions',
  summary: 'Answer the request an agent holds open (allow, deny, a question’s answer)',
  operationId: 'decide',
  request: {
    body: { required: true, content: { 'application/json': { schema: DecisionBody } } },
  },
  responses: {
    200: jsonReply('The answer, recorded; the held hook hears it', DecisionReply),
    ...problemResponses(400, 401, 403, 404, 409, 410, 413),
  },
})

/** The operation `POST /v1/sessions/{session_id}/decisions`. */
export const postDecision = operation(postDecisionRoute, async (c, deps: SessionRoutesDeps) => {
  const reply = await decide(decisionDepsOf(deps.app), {
    key: keyOf(c, c.req.valid('param').session_id),
    caller: callerOf(c, deps.app),
    input: c.req.valid('json'),
    channel: channelOf(c),
  })
  return c.json(
    { ...reply, outcome: reply.outcome as 'allowed', at: new Date(reply.at).toISOString() },
    200
  )
})

export const getDecisionsRoute = sessionRoute({
  method: 'get',
  path: '/v1/sessions/{session_id}/decisions',
  summary: 'The pending request, whether the caller may answer it, the last answer',
  operationId: 'getDecisions',
  responses: {
    200: jsonReply('The session’s decision state', DecisionState),
    ...problemResponses(400, 401, 404),
  },
})

/** The operation `GET /v1/sessions/{session_id}/decisions`. */
export const getDecisions = operation(getDecisionsRoute, async (c, deps: SessionRoutesDeps) => {
  const session = await loadSession(deps.service, keyOf(c, c.req.valid('param').session_id))
  const open = (deps.app.decisions ?? DEFAULT_DECISIONS).open
  const pending = pendingRequest(session, deps.app.now())
  const last = lastAnswered(session)
  const waiting = pending ? waitingOf({ reason: '', message: null, at: 0, request: pending }) : null
  return c.json(
    {
      request: waiting?.request ?? null,
      can_answer: session.observed !== undefined && mayAnswer(callerOf(c, deps.app), session, open),
      last_decision: last
        ? {
            request_id: last.request.id,
            kind: last.request.kind,
            tool: last.request.tool,
            outcome: last.answer!.outcome,
            by: last.answer!.by,
            channel: last.answer!.channel,
            at: new Date(last.answer!.at).toISOString(),
          }
        : null,
    },
    200
  )
})
