/**
 * @module http/routes/ingest
 * `POST /v1/ingest/*`: the events of agents that run their own todo tools (Claude Code, the
 * Claude Agent SDK, Codex CLI, Gemini CLI, OpenHands), applied to their sessions, never executed
 * (docs/observe.md). Each body is parsed whole before anything is applied: a body that is not
 * the agent's format is a 400 and changes nothing. They are /v1 routes: auth, tenants, the body
 * limit and the rate limit apply as everywhere.
 *
 * An adapter: every route of every agent's descriptor (src/agents) is registered here, its query
 * and path validated, its delivery run by service/deliver-observed (whose typed errors the app's
 * onError answers) and its reply shaped by the descriptor. The write budget stays in HTTP: the
 * service is handed a `charge` that spends it.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { AGENT_LIST, AGENTS, type AgentDescriptor, type IngestRoute } from '../../agents/index.js'
import { IngestQuery } from '../../agents/schemas.js'
import type { DecisionPoint, HookDraft } from '../../agents/decide.js'
import type { ParsedDelivery } from '../../ingest/agent.js'
import type { WaitingEvent } from '../../ingest/events.js'
import { holdForAnswer } from '../../service/decisions-hold.js'
import { deliverObserved, type DeliverDeps } from '../../service/deliver-observed.js'
import { DEFAULT_DECISIONS, limitsOf, type AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import type { Metrics } from '../metrics.js'
import { originHintsOf } from '../origin-headers.js'
import { invalidInput, problemResponses } from '../problem.js'
import { operation, registerOperations } from '../operation.js'
import { chargeWrites } from '../write-charge.js'

/**
 * The operation id of an ingest route: `ingest` and the path after `/v1/ingest/` in camel case,
 * its parameters left out (`/v1/ingest/openhands/events/{conversation_id}` →
 * `ingestOpenhandsEvents`).
 * @param path - the route's path
 */
const ingestOperationId = (path: string) =>
  'ingest' +
  path
    .replace(/^\/v1\/ingest\//, '')
    .split('/')
    .filter((part) => part && !part.startsWith('{'))
    .map((part) => part.replace(/(?:^|-)(\w)/g, (_, c: string) => c.toUpperCase()))
    .join('')

/**
 * The OpenAPI operation of an agent's ingest route.
 * @param agent - the agent (its reply)
 * @param route - the route (path, summary, body, path parameters)
 */
const ingestRoute = (agent: AgentDescriptor, route: IngestRoute) =>
  createRoute({
    method: 'post',
    path: route.path,
    tags: ['ingest'],
    summary: route.summary,
    operationId: ingestOperationId(route.path),
    request: {
      query: withDecide(agent, route.query ? IngestQuery.extend(route.query.shape) : IngestQuery),
      ...(route.params ? { params: route.params } : {}),
      body: route.body,
    },
    responses: {
      200: {
        description: 'Accepted',
        content: {
          'application/json': {
            schema: agent.decide
              ? z.union([agent.reply.schema, agent.decide.schema])
              : agent.reply.schema,
          },
        },
      },
      ...problemResponses(
        'invalid-request',
        'invalid-session-id',
        'invalid-ingest-body',
        'ingest-wrong-agent',
        'session-unknown',
        'too-many-sessions',
        'delivery-aborted',
        'body-too-deep',
        'unauthorized',
        'forbidden',
        'session-quota-exceeded',
        'not-observed',
        'dialect-conflict',
        'body-too-large',
        'rate-limited',
        'store-unavailable',
        'contention'
      ),
    },
  })

/** The query of an agent with a decision point documents `?decide=1`. */
const withDecide = (agent: AgentDescriptor, query: z.ZodObject) =>
  agent.decide
    ? query.extend({
        decide: z.enum(['1']).optional().openapi({
          description:
            "A decision point: the hook is held until a person answers its request or the hold ends, and the reply is the agent's own hook output (docs/decisions.md)",
        }),
      })
    : query

/** The tenant's write budget does not hold the sessions a delivery touches: its 429 answers. */
class WritesRefused extends Error {
  constructor(readonly response: Response) {
    super('rate limited')
    this.name = 'WritesRefused'
  }
}

/**
 * The validated path parameters of a route that has them.
 * @param c - the request's context
 * @param route - the route
 */
function routeParams(c: Context<AppEnv>, route: IngestRoute): Record<string, string> {
  if (!route.params) return {}
  const param = route.params.safeParse(c.req.param())
  if (!param.success) throw invalidInput('param', param.error.issues)
  return param.data as Record<string, string>
}

/**
 * The agent a delivery is for: the route's, or the one its query names (opencode's route takes
 * Kilo's events with `?agent=kilo`).
 * @param c - the request's context
 * @param agent - the route's agent
 * @param route - the route
 */
function deliveringAgent(
  c: Context<AppEnv>,
  agent: AgentDescriptor,
  route: IngestRoute
): AgentDescriptor {
  if (!route.query) return agent
  const raw = c.req.query()
  const wanted = Object.fromEntries(
    Object.keys(route.query.shape).flatMap((name) => (name in raw ? [[name, raw[name]]] : []))
  )
  const query = route.query.safeParse(wanted)
  if (!query.success) throw invalidInput('query', query.error.issues)
  return route.agentOf ? AGENTS[route.agentOf(query.data)] : agent
}

/**
 * How long a decision point holds its hook: `DECISION_WAIT_SECONDS` where the agent shows its
 * own prompt meanwhile, `DECISION_HOLD_SECONDS` where it shows none until the hook returns.
 */
const holdMsOf = (deps: AppDeps, point: DecisionPoint) =>
  point.hold === 'wait'
    ? (deps.decisions?.waitMs ?? DEFAULT_DECISIONS.waitMs)
    : (deps.decisions?.holdMs ?? DEFAULT_DECISIONS.holdMs)

/** A delivery whose wait carries the request its hook opens (the first wait of the hook). */
function withRequest(
  parsed: ParsedDelivery,
  draft: HookDraft,
  channel: string,
  holdMs: number
): ParsedDelivery {
  const at = parsed.events.findIndex((event) => event.kind === 'waiting')
  if (at === -1) return parsed
  const events = [...parsed.events]
  events[at] = { ...(events[at] as WaitingEvent), request: { ...draft, channel, holdMs } }
  return { ...parsed, events }
}

/** Registers the ingest routes: every route of every agent (agents/). */
export function registerIngestRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, metrics: Metrics) {
  // read per delivery, as the app's dependencies are (a test may set its clock or caps)
  const service = (): DeliverDeps => ({
    store: deps.store,
    now: () => deps.now(),
    limits: limitsOf(deps),
    staleAfterMs: deps.staleAfterMs,
  })
  const handle =
    (routeAgent: AgentDescriptor, route: IngestRoute) => async (c: Context<AppEnv>) => {
      const agent = deliveringAgent(c, routeAgent, route)
      const { source } = agent
      // most deliveries name no session: the query is validated when there is one
      let sessionId = c.req.query('session_id')
      if (sessionId !== undefined) {
        const query = IngestQuery.safeParse({ session_id: sessionId })
        if (!query.success) throw invalidInput('query', query.error.issues)
        sessionId = query.data.session_id
      }
      const params = routeParams(c, route)
      // a decision point (`?decide=1`): the hook is held for a person's answer
      const point = c.req.query('decide') === '1' ? agent.decide : undefined
      let draft: HookDraft | null = null
      try {
        const outcome = await deliverObserved(service(), {
          tenant: c.get('tenant'),
          agent,
          body: await c.req.text(),
          parse: (body) => {
            const parsed = route.parse(body, params)
            if (!point || body.kind !== 'json') return parsed
            draft = point.draft(body.value)
            return draft ? withRequest(parsed, draft, agent.source, holdMsOf(deps, point)) : parsed
          },
          sessionId,
          fallbackId: route.session?.(params),
          origin: originHintsOf(c),
          verifiedUser: c.get('keyUser'),
          signal: c.req.raw.signal,
          charge: async (units, refuse) => {
            const refused = await chargeWrites(c, units, refuse)
            if (refused) throw new WritesRefused(refused)
          },
          onParsed: (events) => {
            for (const event of events) metrics.ingestEvents.inc({ source, kind: event.kind })
          },
        })
        // a decision point's hook names its session: a body without one held nothing to answer
        if (point && draft && outcome.session_id !== null) {
          const record = await holdForAnswer(service(), {
            key: { tenant: c.get('tenant'), sessionId: outcome.session_id },
            match: (draft as HookDraft).match,
            signal: c.req.raw.signal,
          })
          return c.json(point.reply(record), 200)
        }
        return c.json(agent.reply.of(outcome), 200)
      } catch (error) {
        // the write limiter's own 429 (its problem and RateLimit headers), passed on as it made it
        if (error instanceof WritesRefused) return error.response as never
        throw error
      }
    }

  // the handlers validate their own query and path and read their bodies whole
  const operations = AGENT_LIST.flatMap((agent) =>
    agent.routes.map((route) =>
      operation(ingestRoute(agent, route), handle(agent, route) as never, { validatesInput: true })
    )
  )
  registerOperations(app, undefined, operations)
}
