/**
 * @module http/routes/integrations/slack
 * `POST /v1/integrations/slack/interactions`: Slack posts a click on an alert's Allow / Deny
 * button here (form-encoded `payload`). No bearer key: the request is verified by its
 * `X-Slack-Signature` (`v0=` HMAC-SHA256 of `v0:{timestamp}:{raw body}` under
 * `SLACK_SIGNING_SECRET`, at most 5 minutes old, Slack's own verifier), anything else is a 401.
 * It is acknowledged at once (Slack wants an answer within 3 s); the answer itself
 * (service/decisions-slack) runs after, and updates the message through its `response_url`.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import { verifySlackRequest } from '@slack/bolt/dist/receivers/verify-request.js'
import {
  answerSlackClick,
  type ButtonValue,
  type SlackClick,
  type SlackDeps,
} from '../../../service/decisions-slack.js'
import type { Context } from 'hono'
import type { AppEnv } from '../../context.js'
import type { AppDeps } from '../../deps.js'
import { problem, problemResponses } from '../../problem.js'
import { operation, registerOperations } from '../../operation.js'
import { decisionDepsOf } from '../sessions/decisions.js'

export const SLACK_INTERACTIONS_PATH = '/v1/integrations/slack/interactions'

/**
 * The rate limiter's tenant for Slack's requests (they name no tenant until verified): Slack's
 * clicks share one budget, apart from every tenant's.
 */
export const SLACK_TENANT = '_slack'

const route = createRoute({
  method: 'post',
  path: SLACK_INTERACTIONS_PATH,
  tags: ['integrations'],
  summary: "Slack's interactivity Request URL: a click on an alert's Allow / Deny button",
  security: [],
  operationId: 'slackInteraction',
  request: {
    body: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: z.object({ payload: z.string() }).openapi('SlackInteraction'),
        },
      },
    },
  },
  responses: {
    200: { description: 'Acknowledged; the message is updated through its response_url' },
    ...problemResponses(400, 401, 404),
  },
})

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}

/** A `block_actions` payload's click on one of our buttons, or null. */
function clickOf(payload: unknown): SlackClick | null {
  const fields = record(payload)
  const action = record(Array.isArray(fields.actions) ? fields.actions[0] : undefined)
  const value = buttonValue(action.value)
  const userId = record(fields.user).id
  if (fields.type !== 'block_actions' || !value || typeof userId !== 'string') return null
  return {
    userId,
    actionId: String(action.action_id),
    value,
    responseUrl: typeof fields.response_url === 'string' ? fields.response_url : null,
  }
}

/** A click's button value, or null when it is not one of ours. */
function buttonValue(raw: unknown): ButtonValue | null {
  if (typeof raw !== 'string') return null
  try {
    const value = JSON.parse(raw) as Partial<ButtonValue>
    return typeof value.t === 'string' && typeof value.s === 'string' && typeof value.r === 'string'
      ? { t: value.t, s: value.s, r: value.r }
      : null
  } catch {
    return null
  }
}

/**
 * Registers the Slack interactions route.
 * @param app - the app
 * @param deps - the app's dependencies (`decisions.slack`)
 * @param slackSide - a test's own response_url poster
 */
export function registerSlackRoutes(
  app: OpenAPIHono<AppEnv>,
  deps: AppDeps,
  slackSide: Pick<SlackDeps, 'respond'> = {}
) {
  // the handler reads and verifies its own form body (Slack's signature covers its bytes)
  const handle = (async (c: Context<AppEnv>) => {
    const slack = deps.decisions?.slack
    if (!slack) return problem(c, 'not-found', 'Slack interactivity is off (SLACK_SIGNING_SECRET).')
    const body = await c.req.text()
    try {
      verifySlackRequest({
        signingSecret: slack.signingSecret,
        body,
        headers: {
          'x-slack-signature': c.req.header('x-slack-signature') ?? '',
          'x-slack-request-timestamp': Number(c.req.header('x-slack-request-timestamp')),
        },
        nowMilliseconds: deps.now(),
        logger: SILENT,
      })
    } catch {
      return problem(c, 'slack-signature', 'The request is not signed by Slack, or is too old.')
    }
    let payload: unknown
    try {
      payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '')
    } catch {
      return problem(c, 'invalid-request', 'payload is not JSON.')
    }
    const click = clickOf(payload)
    // another interaction of the app (not one of our buttons): acknowledged, nothing done
    if (!click) return c.body(null, 200)
    // acknowledged now; the answer and the message update follow
    void answerSlackClick(decisionDepsOf(deps), { ...slack, ...slackSide }, click).catch((error) =>
      deps.logger.warn({ err: error }, 'slack click not answered')
    )
    return c.body(null, 200)
  }) as never
  registerOperations(app, undefined, [operation(route, handle, { validatesInput: true })])
}

const noop = () => undefined
/** Bolt's verifier logs a refusal; the 401 says it already. */
const SILENT = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  setLevel: noop,
  getLevel: () => 'error',
  setName: noop,
} as never
