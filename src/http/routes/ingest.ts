/**
 * @module http/routes/ingest
 * `POST /v1/ingest/*`: the events of agents that run their own todo tools (Claude Code, the
 * Claude Agent SDK, Codex CLI, Gemini CLI, OpenHands), applied to their sessions, never executed
 * (docs/observe.md). Each body is parsed whole before anything is applied: a body that is not
 * the agent's format is a 400 and changes nothing. They are /v1 routes: auth, tenants, the body
 * limit and the rate limit apply as everywhere.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { AGENT_LIST, type AgentDescriptor, type IngestRoute } from '../../agents/index.js'
import { IngestQuery } from '../../agents/schemas.js'
import { newLimitCache } from '../../core/limits.js'
import type { Session, SessionKey } from '../../core/session.js'
import type { DeliveryOutcome, ObservedAgent, ParsedDelivery } from '../../ingest/agent.js'
import {
  applyObserved,
  NotObservedError,
  replayedCalls,
  segmentsOf,
  type ApplyResult,
} from '../../ingest/apply.js'
import { parseBody } from '../../ingest/body.js'
import {
  capSegments,
  combineResults,
  DeliveryTargetError,
  MAX_DELIVERY_UPDATES,
  planDelivery,
  sessionIdOf,
  TooManySessionsError,
  type SessionEvents,
} from '../../ingest/delivery.js'
import { IngestFormatError, type ObservedEvent } from '../../ingest/events.js'
import { limitsOf, type AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import type { Metrics } from '../metrics.js'
import { invalidInput, ProblemError, problemResponses } from '../problem.js'
import { updateWithinQuota } from '../round-runner.js'
import { registerDocumented } from '../route-input.js'
import { chargeWrites } from '../write-charge.js'

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
    request: {
      query: IngestQuery,
      ...(route.params ? { params: route.params } : {}),
      body: route.body,
    },
    responses: {
      200: {
        description: 'Accepted',
        content: { 'application/json': { schema: agent.reply.schema } },
      },
      ...problemResponses(400, 401, 403, 409, 413, 429, 503),
    },
  })

/** The client went away: the rest of its delivery is not applied. */
class DeliveryAbortedError extends Error {
  constructor() {
    super('The client went away before its delivery was applied whole.')
    this.name = 'DeliveryAbortedError'
  }
}

/** The tenant's write budget does not hold the sessions a delivery touches. */
class DeliveryRefusedError extends Error {
  constructor(readonly response: Response) {
    super('rate limited')
    this.name = 'DeliveryRefusedError'
  }
}

/**
 * What one delivery spends: a write of the tenant's budget per store update. The request paid
 * one; one per further session the body touches is spent before anything is applied (refused
 * whole when the budget does not hold them), and each update beyond those (a stream's further
 * lists, a run's end reaching its subagents' lists) is charged as it is made.
 */
interface DeliveryBudget {
  /** Aborted when the client goes away: no store update starts after that. */
  signal?: AbortSignal
  /** Spends writes (http/write-charge): the 429 response when `refuse` and they do not fit. */
  spend: (units: number, refuse: boolean) => Promise<Response | undefined>
  /** Updates paid so far. */
  paid: number
  /** Store updates made so far. */
  updates: number
}

/**
 * Applies a parsed delivery: each session's events in as few atomic updates as its lists need
 * (one per list the agent had, at most `MAX_DELIVERY_UPDATES` for the delivery; events that
 * change no list ride along with the next one that does), subagents' lists before their main
 * session (which lists them), and a run's end on to its subagents' lists. Stops before the next
 * store update once the client has gone away.
 */
async function applyDelivery(
  deps: AppDeps,
  tenant: string,
  agent: ObservedAgent,
  delivery: ParsedDelivery,
  override: string | undefined,
  fallbackId: string | undefined,
  budget: DeliveryBudget
): Promise<DeliveryOutcome> {
  const groups = planDelivery(agent, delivery.events, override)
  if (groups.length > budget.paid) {
    const refused = await budget.spend(groups.length - budget.paid, true)
    if (refused) throw new DeliveryRefusedError(refused)
    budget.paid = groups.length
  }
  const replyId = delivery.replyTarget ? sessionIdOf(agent, delivery.replyTarget, override) : null
  const now = deps.now()
  const limits = limitsOf(deps)
  const keepAliveMs = deps.staleAfterMs / 2
  // every session of the body gets its share: each of its lists a version up to it
  const listsPerSession = Math.max(1, Math.floor(MAX_DELIVERY_UPDATES / Math.max(1, groups.length)))
  /**
   * One store update: the segments from `start` on, up to the first that shows a change (a new
   * version); the ones before it changed no list and share its update.
   */
  const applySegments = (
    key: SessionKey,
    group: SessionEvents,
    agents: string[],
    segments: ObservedEvent[][],
    start: number,
    replayedOf: (current: Session | null) => ReadonlySet<string> | undefined
  ) =>
    updateWithinQuota(deps, key, (current, { versionFloor }) => {
      const replayed = replayedOf(current)
      const limitCache = newLimitCache()
      let state = current
      let total: ApplyResult | undefined
      let next = start
      try {
        while (next < segments.length) {
          const result = applyObserved(state, segments[next++], {
            key,
            agent,
            parent: group.parent,
            now,
            keepAliveMs,
            limits,
            deliverEdit: replyId === group.id,
            agents,
            versionFloor,
            replayed,
            limitCache,
          })
          total = combineResults(total, result)
          state = result.session
          if (result.write && !result.quiet) break
        }
      } catch (error) {
        if (error instanceof NotObservedError) {
          throw new ProblemError(409, 'not-observed', error.message)
        }
        throw error
      }
      const result = total!
      return {
        value: { result, next },
        write:
          result.write && result.session
            ? { session: result.session, source: 'ingest', quiet: result.quiet }
            : undefined,
      }
    })
  /** A group's events, one update per list the agent had; the counts and flags of all of them. */
  const apply = async (
    key: SessionKey,
    group: SessionEvents,
    agents: string[],
    events = group.events
  ): Promise<ApplyResult> => {
    let total: ApplyResult | undefined
    const segments = capSegments(segmentsOf(events), listsPerSession)
    // a stream posted again: what it holds before a call the session knew was applied then, and
    // what the session knew is kept as known for the whole delivery. The first update finds that
    // on the state it reads; the later ones keep it (a hook delivery is one segment, and looks
    // for none)
    let replayed: ReadonlySet<string> | undefined
    let next = 0
    while (next < segments.length) {
      if (budget.signal?.aborted) throw new DeliveryAbortedError()
      if (++budget.updates > budget.paid) {
        await budget.spend(1, false)
        budget.paid++
      }
      const first = next === 0
      const step = await applySegments(key, group, agents, segments, next, (current) =>
        first && segments.length > 1 ? (replayed = replayedCalls(current, events)) : replayed
      )
      total = combineResults(total, step.result)
      next = step.next
    }
    return total!
  }

  let applied = 0
  let ignored = 0
  let edit: string | null = null
  const children = new Map<string, string[]>()
  const results = new Map<string, ApplyResult>()
  for (const group of groups) {
    const key = { tenant, sessionId: group.id }
    const result = await apply(key, group, children.get(group.id) ?? [])
    results.set(group.id, result)
    applied += result.applied
    ignored += result.ignored
    edit ??= result.edit
    if (group.parent !== null && result.session) {
      children.set(group.parent, [...(children.get(group.parent) ?? []), group.id])
    }
  }
  // a main session that only lists new subagents (its own events were all theirs)
  for (const [parent, ids] of children) {
    if (results.has(parent)) continue
    const group: SessionEvents = { id: parent, parent: null, events: [] }
    const result = await apply({ tenant, sessionId: parent }, group, ids)
    results.set(parent, result)
  }
  // the run ended: so do its subagents' lists
  for (const [id, result] of results) {
    if (!result.endAgents || !result.session?.observed) continue
    for (const agent of result.session.observed.agents) {
      const group: SessionEvents = { id: agent, parent: id, events: [] }
      await apply(
        { tenant, sessionId: agent },
        group,
        [],
        [
          {
            kind: 'session_end',
            target: {},
            outcome: 'auto',
            detail: 'the main session ended',
            specific: false,
          },
        ]
      )
    }
  }
  const main = groups.find((g) => g.parent === null)?.id ?? groups[0]?.parent ?? groups[0]?.id
  const sessionId = main ?? override ?? fallbackId
  if (sessionId === undefined) {
    throw new ProblemError(
      400,
      'session-unknown',
      'The body holds no event that names a session; pass ?session_id=.'
    )
  }
  let version = results.get(sessionId)?.session?.version
  if (version === undefined) version = (await deps.store.get({ tenant, sessionId }))?.version ?? 0
  return { session_id: sessionId, version, applied, ignored, edit }
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

/** Registers the ingest routes: every route of every agent (agents/). */
export function registerIngestRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, metrics: Metrics) {
  const handle = (agent: AgentDescriptor, route: IngestRoute) => async (c: Context<AppEnv>) => {
    const { source } = agent
    // most deliveries name no session: the query is validated when there is one
    let override = c.req.query('session_id')
    if (override !== undefined) {
      const query = IngestQuery.safeParse({ session_id: override })
      if (!query.success) throw invalidInput('query', query.error.issues)
      override = query.data.session_id
    }
    let delivery: ParsedDelivery
    let params: Record<string, string>
    try {
      const body = parseBody(await c.req.text())
      params = routeParams(c, route)
      delivery = route.parse(body, params)
    } catch (error) {
      if (!(error instanceof IngestFormatError)) throw error
      throw new ProblemError(400, 'invalid-ingest-body', `Not a ${source} body: ${error.message}`, [
        { pointer: error.pointer, detail: error.message },
      ])
    }
    for (const event of delivery.events) metrics.ingestEvents.inc({ source, kind: event.kind })
    let reply: DeliveryOutcome
    try {
      reply = await applyDelivery(
        deps,
        c.get('tenant'),
        agent,
        delivery,
        override,
        route.session?.(params),
        {
          signal: c.req.raw.signal,
          spend: (units, refuse) => chargeWrites(c, units, refuse),
          paid: 1,
          updates: 0,
        }
      )
    } catch (error) {
      if (error instanceof DeliveryRefusedError) return error.response
      if (error instanceof TooManySessionsError) {
        throw new ProblemError(400, 'too-many-sessions', error.message)
      }
      if (error instanceof DeliveryAbortedError) {
        // nobody reads this answer; what was applied before stays applied (ids make a retry safe)
        throw new ProblemError(400, 'delivery-aborted', error.message)
      }
      if (!(error instanceof DeliveryTargetError)) throw error
      throw new ProblemError(
        400,
        error.code,
        error.message,
        error.pointer ? [{ pointer: error.pointer, detail: 'required for this body' }] : undefined
      )
    }
    return c.json(agent.reply.of(reply), 200)
  }

  for (const agent of AGENT_LIST) {
    for (const route of agent.routes)
      registerDocumented(app, ingestRoute(agent, route), handle(agent, route))
  }
}
