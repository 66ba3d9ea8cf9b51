/**
 * @module service/deliver-observed
 * Delivering an observed agent's events (`POST /v1/ingest/*`, docs/observe.md): the body parsed
 * whole before anything is applied, each session it names updated atomically in as few store
 * updates as its lists need, a subagent's list before its main session, a run's end on to its
 * subagents' lists. What a delivery costs is charged as it goes (`charge`), and it stops before
 * the next store update once the client has gone away. The agent is named by its facts
 * (`ObservedAgent`); the adapter shapes the reply from what this returns.
 */
import { newLimitCache, type ListLimits } from '../core/limits.js'
import type { OriginHints } from '../core/origin.js'
import type { Session, SessionKey } from '../core/session.js'
import type { DeliveryOutcome, ObservedAgent, ParsedDelivery } from '../ingest/agent.js'
import {
  applyObserved,
  NotObservedError,
  replayedCalls,
  segmentsOf,
  type ApplyResult,
} from '../ingest/apply.js'
import { parseBody, valuesOf, type ParsedBody } from '../ingest/body.js'
import {
  capSegments,
  combineResults,
  DeliveryTargetError,
  MAX_DELIVERY_UPDATES,
  needsNoSession,
  planDelivery,
  sessionIdOf,
  TooManySessionsError,
  type SessionEvents,
} from '../ingest/delivery.js'
import { IngestFormatError, IngestWrongAgentError, type ObservedEvent } from '../ingest/events.js'
import { ObservePending } from '../dialects/observe/index.js'
import { ConflictRetryError, type SessionStore } from '../store/types.js'
import { ServiceError } from './errors.js'

/** Settles beyond two per tool result before a delivery's update gives up (`ConflictRetryError`). */
const MAX_SETTLES = 8

/** What a delivery runs on (the service's dependencies, and the stale window). */
export interface DeliverDeps {
  store: SessionStore
  /** The clock, in ms since the epoch. */
  now: () => number
  /** The caps in force; `maxSessionsPerTenant` 0 for none. */
  limits: ListLimits & { maxSessionsPerTenant: number }
  /** A session with unfinished items unchanged this long is stale (a busy one is kept alive). */
  staleAfterMs: number
}

/** One delivery of an agent's events. */
export interface ObservedDelivery {
  tenant: string
  agent: ObservedAgent
  /** The request body: one JSON document, or NDJSON lines; or a body decoded already (OTLP). */
  body: string | ParsedBody
  /**
   * The agent's route's parser (its path parameters bound).
   * @throws IngestFormatError when the body is not the agent's format
   */
  parse: (body: ParsedBody) => ParsedDelivery
  /** The caller's `?session_id=`: every event goes to it (a subagent's list below it). */
  sessionId?: string
  /** The session a body that names none feeds (the route's, from its path). */
  fallbackId?: string
  /** Aborted when the client goes away: no store update starts after that. */
  signal?: AbortSignal
  /**
   * Spends `units` more writes of the tenant's budget, one per store update beyond the request
   * itself. With `refuse`, the delivery is refused whole when they do not fit: the callback
   * throws (before anything is applied); without, every unit is counted and it returns.
   */
  charge: (units: number, refuse: boolean) => Promise<void>
  /**
   * What the delivery says of its origin, strongest first: the key's own user, then the
   * `X-Agent-User` / `-Host` / `-Repo` / `-Branch` headers (http/origin-headers).
   */
  origin?: readonly OriginHints[]
  /** The key's own (keys-file) user: the session's person is verified when it fixes the user. */
  verifiedUser?: string
  /** Told the parsed events before any is applied (metrics). */
  onParsed?: (events: readonly ObservedEvent[]) => void
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
  /** Spends writes: throws to refuse when `refuse` and they do not fit (`ObservedDelivery.charge`). */
  charge: ObservedDelivery['charge']
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
  deps: DeliverDeps,
  tenant: string,
  agent: ObservedAgent,
  delivery: ParsedDelivery,
  override: string | undefined,
  fallbackId: string | undefined,
  budget: DeliveryBudget,
  who: { origin?: readonly OriginHints[]; verifiedUser?: string }
): Promise<DeliveryOutcome> {
  const { origin, verifiedUser } = who
  const groups = planDelivery(agent, delivery.events, override)
  if (groups.length > budget.paid) {
    await budget.charge(groups.length - budget.paid, true)
    budget.paid = groups.length
  }
  const replyId = delivery.replyTarget ? sessionIdOf(agent, delivery.replyTarget, override) : null
  const now = deps.now()
  const { limits } = deps
  const keepAliveMs = deps.staleAfterMs / 2
  // the tenant's session cap: the store counts and creates in one atomic step
  const quota = { maxSessionsPerTenant: limits.maxSessionsPerTenant || undefined }
  // every session of the body gets its share: each of its lists a version up to it
  const listsPerSession = Math.max(1, Math.floor(MAX_DELIVERY_UPDATES / Math.max(1, groups.length)))
  /**
   * One store update: the segments from `start` on, up to the first that shows a change (a new
   * version); the ones before it changed no list and share its update.
   */
  const updateSegments = (
    key: SessionKey,
    group: SessionEvents,
    agents: string[],
    segments: ObservedEvent[][],
    start: number,
    replayedOf: (current: Session | null) => ReadonlySet<string> | undefined
  ) =>
    deps.store.update(
      key,
      (current, { versionFloor }) => {
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
              origin,
              verifiedUser,
              replayed,
              limitCache,
            })
            total = combineResults(total, result)
            state = result.session
            if (result.write && !result.quiet) break
          }
        } catch (error) {
          if (error instanceof NotObservedError)
            throw new ServiceError('not-observed', error.message)
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
      },
      quota
    )
  /**
   * `updateSegments`, with what an observer asks for off the event loop settled first: the
   * update is pure and synchronous, so an observer that needs a worker's answer (copilot-todos'
   * SQL replay) throws `ObservePending`; its work is awaited outside the store's step and the
   * update runs again, on the state then current. Each settle answers one call on one state, so
   * an update needs one round per tool result at most, plus one; more means the session kept
   * changing under it.
   */
  const applySegments = async (
    ...args: Parameters<typeof updateSegments>
  ): ReturnType<typeof updateSegments> => {
    const [, , , segments, start] = args
    let results = 0
    for (const segment of segments.slice(start)) {
      for (const event of segment) if (event.kind === 'tool_result') results++
    }
    const rounds = 2 * results + MAX_SETTLES
    for (let round = 1; ; round++) {
      try {
        return await updateSegments(...args)
      } catch (error) {
        if (!(error instanceof ObservePending)) throw error
        if (round >= rounds) throw new ConflictRetryError()
        await error.settle()
      }
    }
  }
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
      if (budget.signal?.aborted) {
        // nobody reads this answer; what was applied before stays applied (ids make a retry safe)
        throw new ServiceError(
          'delivery-aborted',
          'The client went away before its delivery was applied whole.'
        )
      }
      if (++budget.updates > budget.paid) {
        await budget.charge(1, false)
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
  // ignored events that named no session (planDelivery left them out)
  ignored += delivery.events.filter((event) => needsNoSession(event, override)).length
  const main = groups.find((g) => g.parent === null)?.id ?? groups[0]?.parent ?? groups[0]?.id
  const sessionId = main ?? override ?? fallbackId
  // nothing to apply and no session named (a server's `connected`, a heartbeat, an ACP
  // `initialize`): accepted and ignored, so a forwarder of every event never sees an error
  if (sessionId === undefined) {
    return { session_id: null, version: null, applied, ignored, edit: null }
  }
  let version = results.get(sessionId)?.session?.version
  if (version === undefined) version = (await deps.store.get({ tenant, sessionId }))?.version ?? 0
  return { session_id: sessionId, version, applied, ignored, edit }
}

/**
 * Delivers an observed agent's events to their sessions.
 * @param deps - store, clock, caps, the stale window
 * @param request - the agent, its body and parser, the caller's session id, the budget
 * @returns the main session fed, its version, the counts, and a person's edit to hand the model
 *   (no session and no version for a body that names none and holds nothing to apply)
 * @throws ServiceError `invalid-ingest-body` and `ingest-wrong-agent` (nothing applied), `session-unknown`
 *   (an event to apply names no session),
 *   `invalid-session-id`, `too-many-sessions` (nothing applied), `not-observed` (a session fed by
 *   rounds), `delivery-aborted` (the client left; what was applied stays), and the store's
 */
export async function deliverObserved(
  deps: DeliverDeps,
  request: ObservedDelivery
): Promise<DeliveryOutcome> {
  const { agent } = request
  let delivery: ParsedDelivery
  let body: ParsedBody
  try {
    body = typeof request.body === 'string' ? parseBody(request.body) : request.body
    delivery = request.parse(body)
  } catch (error) {
    if (error instanceof IngestWrongAgentError) {
      throw new ServiceError('ingest-wrong-agent', error.message, {
        errors: [{ pointer: error.pointer, detail: `post it to ${error.route}` }],
      })
    }
    if (!(error instanceof IngestFormatError)) throw error
    throw new ServiceError('invalid-ingest-body', `Not a ${agent.source} body: ${error.message}`, {
      errors: [{ pointer: error.pointer, detail: error.message }],
    })
  }
  request.onParsed?.(delivery.events)
  try {
    const outcome = await applyDelivery(
      deps,
      request.tenant,
      agent,
      delivery,
      request.sessionId,
      request.fallbackId,
      { signal: request.signal, charge: request.charge, paid: 1, updates: 0 },
      { origin: request.origin, verifiedUser: request.verifiedUser }
    )
    // no session: nothing of the body applied, every value of it ignored (a parser drops what
    // names no session, such as opencode's `server.*` and ACP's `initialize`, without an event)
    if (outcome.session_id === null) {
      return { ...outcome, ignored: Math.max(outcome.ignored, valuesOf(body).length) }
    }
    return outcome
  } catch (error) {
    if (error instanceof TooManySessionsError) {
      throw new ServiceError('too-many-sessions', error.message)
    }
    if (!(error instanceof DeliveryTargetError)) throw error
    throw new ServiceError(
      error.code,
      error.message,
      error.pointer
        ? { errors: [{ pointer: error.pointer, detail: 'required for this body' }] }
        : {}
    )
  }
}
