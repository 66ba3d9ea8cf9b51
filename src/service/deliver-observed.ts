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
import type { SessionKey } from '../core/session.js'
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
 * What stays fixed for one delivery's whole run: its dependencies and caps, who it is from, and
 * how it is charged. Built once by `planRun`; every later step reads it and changes none of it.
 */
interface DeliveryRun {
  deps: DeliverDeps
  tenant: string
  agent: ObservedAgent
  /** The clock read once, so every update of the delivery sees the same time. */
  now: number
  /** A busy session is kept alive this long (half the stale window). */
  keepAliveMs: number
  /** The tenant's session cap: the store counts and creates in one atomic step. */
  quota: { maxSessionsPerTenant: number | undefined }
  /** Lists (store updates) each session of the body may take: its share of the delivery's. */
  listsPerSession: number
  /** The session a person's pending edit is handed to (the reply's target), if any. */
  replyId: string | null
  origin?: readonly OriginHints[]
  verifiedUser?: string
  /** Aborted when the client goes away: no store update starts after that. */
  signal?: AbortSignal
  /** Spends writes: throws to refuse when `refuse` and they do not fit (`ObservedDelivery.charge`). */
  charge: ObservedDelivery['charge']
}

/**
 * What one delivery has spent so far: a write of the tenant's budget per store update. The
 * request paid one; one per further session the body touches is spent before anything is applied
 * (refused whole when the budget does not hold them), and each update beyond those (a stream's
 * further lists, a run's end reaching its subagents' lists) is charged as it is made. Passed to
 * each step and returned by it, never shared.
 */
interface Spent {
  /** Updates paid so far. */
  paid: number
  /** Store updates made so far. */
  updates: number
}

/** One session's events to apply, and the subagents it lists. */
interface GroupApply {
  key: SessionKey
  group: SessionEvents
  /** The subagents' sessions the main session lists (delivered before it). */
  agents: string[]
  /** The events applied: the group's own, or the end a run's end passes on. */
  events: ObservedEvent[]
}

/** One store update of a group: its segments from `start` on. */
interface SegmentUpdate extends Omit<GroupApply, 'events'> {
  segments: ObservedEvent[][]
  start: number
  /**
   * The calls a stream posted again already held: `find` to read them off the state the update
   * sees (the first of several updates), otherwise `known` (what an earlier one found) is kept.
   */
  replayed: { find: ObservedEvent[] } | { known: ReadonlySet<string> | undefined }
}

/** What one store update returns: its counts, the next segment, and the replayed calls it used. */
interface SegmentStep {
  result: ApplyResult
  next: number
  replayed: ReadonlySet<string> | undefined
}

/** The sessions a delivery fed so far, and what it counts. */
interface Tally {
  applied: number
  ignored: number
  edit: string | null
  /** Each main session's subagents fed by this delivery. */
  children: Map<string, string[]>
  /** Each session's combined result. */
  results: Map<string, ApplyResult>
  spent: Spent
}

/** A parsed delivery and what it is applied for (`ObservedDelivery`, parsed). */
interface ApplyInput {
  tenant: string
  agent: ObservedAgent
  delivery: ParsedDelivery
  /** The caller's `?session_id=`. */
  override: string | undefined
  fallbackId: string | undefined
  signal?: AbortSignal
  charge: ObservedDelivery['charge']
  origin?: readonly OriginHints[]
  verifiedUser?: string
}

/**
 * Step 1, the plan: groups the events by session (subagents' first), spends a write per session
 * beyond the request's (refusing the delivery whole when they do not fit), and fixes the run.
 */
async function planRun(
  deps: DeliverDeps,
  input: ApplyInput
): Promise<{ run: DeliveryRun; groups: SessionEvents[]; spent: Spent }> {
  const { agent, delivery, override } = input
  const groups = planDelivery(agent, delivery.events, override)
  let spent: Spent = { paid: 1, updates: 0 }
  if (groups.length > spent.paid) {
    await input.charge(groups.length - spent.paid, true)
    spent = { ...spent, paid: groups.length }
  }
  const replyId = delivery.replyTarget ? sessionIdOf(agent, delivery.replyTarget, override) : null
  const run: DeliveryRun = {
    deps,
    tenant: input.tenant,
    agent,
    now: deps.now(),
    keepAliveMs: deps.staleAfterMs / 2,
    quota: { maxSessionsPerTenant: deps.limits.maxSessionsPerTenant || undefined },
    // every session of the body gets its share: each of its lists a version up to it
    listsPerSession: Math.max(1, Math.floor(MAX_DELIVERY_UPDATES / Math.max(1, groups.length))),
    replyId,
    origin: input.origin,
    verifiedUser: input.verifiedUser,
    signal: input.signal,
    charge: input.charge,
  }
  return { run, groups, spent }
}

/**
 * One store update: the segments from `start` on, up to the first that shows a change (a new
 * version); the ones before it changed no list and share its update.
 */
function updateSegments(run: DeliveryRun, step: SegmentUpdate): Promise<SegmentStep> {
  const { deps, agent, now, keepAliveMs, replyId, origin, verifiedUser } = run
  const { key, group, agents, segments, start } = step
  return deps.store.update(
    key,
    (current, { versionFloor }) => {
      const replayed =
        'find' in step.replayed ? replayedCalls(current, step.replayed.find) : step.replayed.known
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
            limits: deps.limits,
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
        if (error instanceof NotObservedError) throw new ServiceError('not-observed', error.message)
        throw error
      }
      const result = total!
      return {
        value: { result, next, replayed },
        write:
          result.write && result.session
            ? { session: result.session, source: 'ingest', quiet: result.quiet }
            : undefined,
      }
    },
    run.quota
  )
}

/**
 * `updateSegments`, with what an observer asks for off the event loop settled first: the
 * update is pure and synchronous, so an observer that needs a worker's answer (copilot-todos'
 * SQL replay) throws `ObservePending`; its work is awaited outside the store's step and the
 * update runs again, on the state then current. Each settle answers one call on one state, so
 * an update needs one round per tool result at most, plus one; more means the session kept
 * changing under it.
 */
async function settleAndUpdate(run: DeliveryRun, step: SegmentUpdate): Promise<SegmentStep> {
  let results = 0
  for (const segment of step.segments.slice(step.start)) {
    for (const event of segment) if (event.kind === 'tool_result') results++
  }
  const rounds = 2 * results + MAX_SETTLES
  for (let round = 1; ; round++) {
    try {
      return await updateSegments(run, step)
    } catch (error) {
      if (!(error instanceof ObservePending)) throw error
      if (round >= rounds) throw new ConflictRetryError()
      await error.settle()
    }
  }
}

/**
 * Spends a write for the next store update when the ones paid are used up; refuses it once the
 * client has gone away.
 */
async function payForUpdate(run: DeliveryRun, spent: Spent): Promise<Spent> {
  if (run.signal?.aborted) {
    // nobody reads this answer; what was applied before stays applied (ids make a retry safe)
    throw new ServiceError(
      'delivery-aborted',
      'The client went away before its delivery was applied whole.'
    )
  }
  const updates = spent.updates + 1
  if (updates <= spent.paid) return { ...spent, updates }
  await run.charge(1, false)
  return { paid: spent.paid + 1, updates }
}

/**
 * Step 2, apply one session: its events, one update per list the agent had; the counts and
 * flags of all of them, and what was spent.
 */
async function applyGroup(
  run: DeliveryRun,
  spentBefore: Spent,
  target: GroupApply
): Promise<{ result: ApplyResult; spent: Spent }> {
  const { events, ...rest } = target
  let spent = spentBefore
  const segments = capSegments(segmentsOf(events), run.listsPerSession)
  // a stream posted again: what it holds before a call the session knew was applied then, and
  // what the session knew is kept as known for the whole delivery. The first update finds that
  // on the state it reads; the later ones keep it (a hook delivery is one segment, and looks
  // for none)
  let replayed: ReadonlySet<string> | undefined
  let total: ApplyResult | undefined
  let next = 0
  while (next < segments.length) {
    spent = await payForUpdate(run, spent)
    const find = next === 0 && segments.length > 1
    const step = await settleAndUpdate(run, {
      ...rest,
      segments,
      start: next,
      replayed: find ? { find: events } : { known: replayed },
    })
    if (find) replayed = step.replayed
    total = combineResults(total, step.result)
    next = step.next
  }
  return { result: total!, spent }
}

/** Step 2 over the plan: every session of the body in order, subagents' before their main's. */
async function applySessions(
  run: DeliveryRun,
  groups: SessionEvents[],
  spent: Spent
): Promise<Tally> {
  const tally: Tally = {
    applied: 0,
    ignored: 0,
    edit: null,
    children: new Map(),
    results: new Map(),
    spent,
  }
  for (const group of groups) {
    const key = { tenant: run.tenant, sessionId: group.id }
    const agents = tally.children.get(group.id) ?? []
    const step = await applyGroup(run, tally.spent, { key, group, agents, events: group.events })
    const { result } = step
    tally.spent = step.spent
    tally.results.set(group.id, result)
    tally.applied += result.applied
    tally.ignored += result.ignored
    tally.edit ??= result.edit
    if (group.parent !== null && result.session) {
      tally.children.set(group.parent, [...(tally.children.get(group.parent) ?? []), group.id])
    }
  }
  return tally
}

/**
 * Step 3a, the parents: a main session that only lists new subagents (its own events were all
 * theirs) gets an update listing them. Its result joins the tally's results, not its counts.
 */
async function listChildren(run: DeliveryRun, tally: Tally): Promise<Tally> {
  const results = new Map(tally.results)
  let { spent } = tally
  for (const [parent, ids] of tally.children) {
    if (results.has(parent)) continue
    const group: SessionEvents = { id: parent, parent: null, events: [] }
    const key = { tenant: run.tenant, sessionId: parent }
    const step = await applyGroup(run, spent, { key, group, agents: ids, events: [] })
    spent = step.spent
    results.set(parent, step.result)
  }
  return { ...tally, results, spent }
}

/** The event a run's end passes on to each of its subagents' lists (a fresh one each time). */
function mainEnded(): ObservedEvent {
  return {
    kind: 'session_end',
    target: {},
    outcome: 'auto',
    detail: 'the main session ended',
    specific: false,
  }
}

/** Step 3b, the end cascade: a run that ended ends its subagents' lists too. */
async function endSubagents(run: DeliveryRun, tally: Tally): Promise<Tally> {
  let { spent } = tally
  for (const [id, result] of tally.results) {
    if (!result.endAgents || !result.session?.observed) continue
    for (const agent of result.session.observed.agents) {
      const group: SessionEvents = { id: agent, parent: id, events: [] }
      const key = { tenant: run.tenant, sessionId: agent }
      const events = [mainEnded()]
      spent = (await applyGroup(run, spent, { key, group, agents: [], events })).spent
    }
  }
  return { ...tally, spent }
}

/**
 * Step 3c, the outcome: the main session fed and its version, the counts (with the events that
 * named no session among the ignored), and the edit to hand the model.
 */
async function outcomeOf(
  run: DeliveryRun,
  input: ApplyInput,
  groups: SessionEvents[],
  tally: Tally
): Promise<DeliveryOutcome> {
  const { applied, edit, results } = tally
  // ignored events that named no session (planDelivery left them out)
  const ignored =
    tally.ignored +
    input.delivery.events.filter((event) => needsNoSession(event, input.override)).length
  const main = groups.find((g) => g.parent === null)?.id ?? groups[0]?.parent ?? groups[0]?.id
  const sessionId = main ?? input.override ?? input.fallbackId
  // nothing to apply and no session named (a server's `connected`, a heartbeat, an ACP
  // `initialize`): accepted and ignored, so a forwarder of every event never sees an error
  if (sessionId === undefined) {
    return { session_id: null, version: null, applied, ignored, edit: null }
  }
  let version = results.get(sessionId)?.session?.version
  if (version === undefined) {
    version = (await run.deps.store.get({ tenant: run.tenant, sessionId }))?.version ?? 0
  }
  return { session_id: sessionId, version, applied, ignored, edit }
}

/**
 * Applies a parsed delivery: each session's events in as few atomic updates as its lists need
 * (one per list the agent had, at most `MAX_DELIVERY_UPDATES` for the delivery; events that
 * change no list ride along with the next one that does), subagents' lists before their main
 * session (which lists them), and a run's end on to its subagents' lists. Stops before the next
 * store update once the client has gone away. The steps: `planRun`, `applySessions` (each
 * through `applyGroup`), then `listChildren`, `endSubagents` and `outcomeOf`.
 */
async function applyDelivery(deps: DeliverDeps, input: ApplyInput): Promise<DeliveryOutcome> {
  const { run, groups, spent } = await planRun(deps, input)
  const applied = await applySessions(run, groups, spent)
  const listed = await listChildren(run, applied)
  const ended = await endSubagents(run, listed)
  return outcomeOf(run, input, groups, ended)
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
    const outcome = await applyDelivery(deps, {
      tenant: request.tenant,
      agent,
      delivery,
      override: request.sessionId,
      fallbackId: request.fallbackId,
      signal: request.signal,
      charge: request.charge,
      origin: request.origin,
      verifiedUser: request.verifiedUser,
    })
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
