/**
 * @module ingest/apply
 * What a delivery of an observed agent's events does to its session, as a pure function of the
 * stored state: the store's one `update(key, fn)` runs it, so concurrent deliveries (parallel
 * hooks, several instances) compose.
 *
 * - A call is staged; it is applied only by its successful result, through the dialect's
 *   observer (`dialects/observe`). Every applied call id is kept (the last 256, as digests): a
 *   second delivery of a call (a retry, a replay, the hook and the stream of one Claude session)
 *   applies nothing, nor do the older calls of a stream posted again (`replayedCalls`). A call
 *   whose result will not say what it did is kept until that result arrives in a later delivery
 *   (the last 32).
 * - Lifecycle: a run's end sets `ended` (a later, less specific end of the same run does not
 *   replace it: `max_turns` from the stream stays when `SessionEnd` follows); a new run or a change
 *   of the list opens an ended session again; `waiting` marks an agent waiting for a person, and
 *   its next event clears it.
 * - `version` grows only when the list or the lifecycle (`ended`, `waiting`) changes (SPEC,
 *   "Observe"): a duplicate, an identical snapshot or an event that only says the agent is alive
 *   leaves it. What the session records besides (a staged call, the dialect its tools imply, its
 *   todo tools, subagents, a person's edit handed over) is kept by a quiet write: the same version,
 *   no history entry, no change event. Activity writes nothing, with one exception: when the
 *   session has unfinished items and its last write is older than half of `STALE_AFTER_SECONDS`,
 *   a quiet keep-alive moves `updated_at`, so a busy agent is never listed stale (at most two
 *   such writes per stale window).
 * - The service's caps hold for what an agent did as for a round (`checkStoredLimits`): a list
 *   beyond them is not taken (the agent's own list goes on); a staged call whose input breaks
 *   them is not kept, and the kept inputs together have a `MAX_SESSION_BYTES` budget of their
 *   own.
 */
import { isUnfinished } from '../core/items.js'
import {
  labelsProblem,
  mergeLabels,
  mergeOrigin,
  sameOrigin,
  type Labels,
  type OriginHints,
} from '../core/origin.js'
import {
  checkSessionLimits,
  newLimitCache,
  type LimitCache,
  type ListLimits,
} from '../core/limits.js'
import {
  newSession,
  type Observed,
  type ObservedSource,
  type Session,
  type SessionKey,
  type StagedCall,
} from '../core/session.js'
import { getDialect } from '../dialects/registry.js'
import type { ObservedAgent } from './agent.js'
import { AppliedIds } from './applied-ids.js'
import {
  applyEvent,
  stagedSize,
  stateOf,
  type ApplyLedger,
  type HandlerContext,
} from './apply-handlers.js'
import type { ObservedEvent } from './events.js'
import { sameJson } from './same-json.js'

/** Calls a session keeps waiting for their result. */
export const MAX_STAGED_CALLS = 32
/** Subagent sessions a session lists. */
export const MAX_AGENTS = 64

export interface ApplyContext {
  key: SessionKey
  /** The agent that delivers (its descriptor's facts: src/agents). */
  agent: ObservedAgent
  /** The main session, when this one is a subagent's own list. */
  parent: string | null
  now: number
  /** Activity refreshes a session whose last version is at least this old (ms). */
  keepAliveMs: number
  limits: ListLimits
  /** Hand a person's pending edit to the model with this delivery's reply. */
  deliverEdit?: boolean
  /** Subagent sessions to list on this one. */
  agents?: readonly string[]
  /**
   * The version a session created now must pass (a deleted session's last one, so versions never
   * repeat); 0 when none.
   */
  versionFloor?: number
  /**
   * What the delivery says of the origin, strongest first (the key's own user, then the
   * `X-Agent-*` headers): before what the events say, and the agent's source last.
   */
  origin?: readonly OriginHints[]
  /** Call and lifecycle ids of this delivery to take as applied (`replayedCalls`). */
  replayed?: ReadonlySet<string>
  /**
   * The keys-file user of the delivery's key: when it is the one that fixes `origin.user`, the
   * session's person is verified (`observed.verified_user`).
   */
  verifiedUser?: string
  /**
   * Measures of the items already checked against the caps, shared by the segments of one update:
   * a long delivery checks each list it makes, and most items are the previous list's.
   */
  limitCache?: LimitCache
}

export interface ApplyResult {
  /** The session after the delivery (null when there is none and nothing created it). */
  session: Session | null
  /** Whether `session` is to be stored: a new version, or the same one when `quiet`. */
  write: boolean
  /** `session` keeps the stored version (nothing the session shows changed): a quiet write. */
  quiet: boolean
  applied: number
  ignored: number
  /** The text to hand the model as the hook's `additionalContext`, once. */
  edit: string | null
  /** A run-level end reached the session: its subagents' lists end too. */
  endAgents: boolean
}

/** The session is fed by rounds (or a person's PUT): an agent's events cannot be mixed in. */
export class NotObservedError extends Error {
  constructor(readonly sessionId: string) {
    super(
      `Session '${sessionId}' is fed by rounds, not by an observed agent; observe into another session id.`
    )
    this.name = 'NotObservedError'
  }
}

/**
 * The text handed to the model once after a person edited the list of an observed Claude session
 * (the PostToolUse hook's `additionalContext`).
 * @param rendered - the edited list as the dialect renders it
 */
export function editContext(rendered: string): string {
  return `A person changed your todo list while you were working. Bring your list in line with this one using your todo tools, then continue from it:\n\n${rendered}`
}

/**
 * The observer state of a new observed session.
 * @param source - the first source that feeds it
 * @param parent - its main session, for a subagent's list
 */
export function newObserved(source: ObservedSource, parent: string | null): Observed {
  return {
    source,
    parent,
    agents: [],
    waiting: null,
    todo_tools: null,
    dialect_fixed: false,
    applied: '',
    pending: [],
    end_rank: 0,
    pending_edit: null,
  }
}

/**
 * The session's labels after the events' (fill once: a set name keeps its value); a set the label
 * rules refuse is left out, as a parser should never have made it.
 */
function labelsAfter(
  current: Labels | undefined,
  events: readonly ObservedEvent[]
): { labels?: Labels } {
  let labels = current
  for (const event of events) {
    if (!event.labels || labelsProblem(event.labels) !== null) continue
    const merged = mergeLabels(labels, event.labels)
    if (Object.keys(merged).length !== Object.keys(labels ?? {}).length) labels = merged
  }
  return labels === current ? {} : { labels }
}

/** Whether a delivery changed the list or the lifecycle: a new version (the list compared last). */
function showsChange(before: Session, after: Session): boolean {
  return (
    before.ended !== after.ended ||
    (before.observed!.waiting?.reason ?? null) !== (after.observed!.waiting?.reason ?? null) ||
    (before.observed!.waiting?.request?.id ?? null) !==
      (after.observed!.waiting?.request?.id ?? null) ||
    (before.observed!.background ?? 0) !== (after.observed!.background ?? 0) ||
    !sameJson(before.items, after.items)
  )
}

/** Whether a delivery changed what the session records besides: a quiet write. */
function recordsChange(before: Session, after: Session): boolean {
  const a = before.observed!
  const b = after.observed!
  return (
    !sameOrigin(before.origin, after.origin) ||
    // labels are only ever added: a change is a new name
    Object.keys(before.labels ?? {}).length !== Object.keys(after.labels ?? {}).length ||
    before.dialect !== after.dialect ||
    a.todo_tools !== b.todo_tools ||
    a.hooks !== b.hooks ||
    a.agents !== b.agents ||
    a.pending_edit !== b.pending_edit ||
    a.decisions !== b.decisions ||
    a.verified_user !== b.verified_user ||
    a.pending.length !== b.pending.length ||
    a.pending.some((call, i) => call.id !== b.pending[i].id)
  )
}

/**
 * The staged calls a session keeps: newest first, at most `MAX_STAGED_CALLS`, whose inputs
 * together stay within `MAX_SESSION_BYTES` (their own budget beside the list's): a call that
 * does not fit is left out, and older, smaller ones still go in. Sizes are measured once, when
 * a call is staged, so this is cheap however often a delivery's segments run it.
 * @param calls - the calls waiting for their result, oldest first
 * @param limits - the caps
 */
function fitStaged(calls: StagedCall[], limits: ListLimits): StagedCall[] {
  const kept: StagedCall[] = []
  let bytes = 0
  for (let i = calls.length - 1; i >= 0 && kept.length < MAX_STAGED_CALLS; i--) {
    const size = calls[i].bytes ?? stagedSize(calls[i].input, limits)
    if (size === null || bytes + size > limits.maxSessionBytes) continue
    bytes += size
    kept.push(calls[i])
  }
  return kept.reverse()
}

/**
 * The staged calls that fit beside the session's list, dialect state and pending edit within
 * `MAX_SESSION_BYTES` (the whole session is what reads, listings and streams are sized for):
 * the oldest go first until the rest fit.
 * @param calls - the calls `fitStaged` kept, oldest first
 * @param session - what the session stores besides them
 * @param limits - the caps
 * @param cache - sizes measured before in this update
 */
function withinSession(
  calls: StagedCall[],
  session: Pick<Session, 'items' | 'dialect_state'> & Pick<Observed, 'pending_edit'>,
  limits: ListLimits,
  cache: LimitCache
): StagedCall[] {
  let kept = calls
  const over = () =>
    checkSessionLimits(
      {
        items: session.items,
        dialect_state: session.dialect_state,
        observed: { pending: kept, pending_edit: session.pending_edit },
      },
      limits,
      cache
    ) !== null
  while (kept.length > 0 && over()) kept = kept.slice(1)
  return kept
}

/**
 * A delivery's events (all of one session) cut after each successful tool result, so that each
 * list the agent had is a version of its own: a batch of stream lines (`observe` sends what
 * arrived within a few ms together, a replayed JSONL file comes whole) keeps the history a
 * line-by-line delivery would have. The route stores them in as few atomic updates as the lists
 * need (segments that change no list share the next one's update, and past
 * `MAX_DELIVERY_UPDATES` the oldest share one); a delivery cut short between two (store down,
 * client gone) is retried whole, and what already applied is ignored by call id.
 * @param events - the events, in order
 */
export function segmentsOf(events: readonly ObservedEvent[]): ObservedEvent[][] {
  const segments: ObservedEvent[][] = []
  let segment: ObservedEvent[] = []
  for (const event of events) {
    segment.push(event)
    // a failed call changes no list: its result stays with what follows, which records its id
    if (event.kind === 'tool_result' && !event.is_error) {
      segments.push(segment)
      segment = []
    }
  }
  if (segment.length || !segments.length) segments.push(segment)
  return segments
}

/**
 * The ids of a delivery (call ids, and lifecycle events' own ids) to take as applied for the
 * whole delivery, decided on the state its first update reads:
 * - the ones the session knows: a delivery of more new calls than the session keeps
 *   (`MAX_APPLIED_IDS`) would otherwise push them out before its later updates reach them;
 * - the successful results that come before a call the session knows, and the lifecycle events
 *   that come before a lifecycle event it knows, unknown to it: a stream posted again (a JSONL
 *   file, a retried batch) whose older part the session no longer remembers. A stream's
 *   deliveries come in order, so they were applied when first posted; applying them again would
 *   take the list back to an old state (or open an ended run again) that the newer, known ones
 *   then would not move on from. (Calls and lifecycle apart: the hooks of a run may have applied
 *   its calls before its stream arrives, and the stream's own start is still new then.)
 * @param current - the stored session, or null
 * @param events - the delivery's events (all of one session), in order
 */
export function replayedCalls(
  current: Session | null,
  events: readonly ObservedEvent[]
): Set<string> {
  const replayed = new Set<string>()
  if (!current?.observed) return replayed
  const known = new AppliedIds(current.observed.applied)
  const idOf = (event: ObservedEvent) =>
    event.kind === 'tool_result' ? event.call_id : 'id' in event ? event.id : undefined
  let lastCall = -1
  let lastLifecycle = -1
  for (let i = events.length - 1; i >= 0 && (lastCall === -1 || lastLifecycle === -1); i--) {
    const id = idOf(events[i])
    if (id === undefined || !known.has(id)) continue
    if (events[i].kind === 'tool_result') {
      if (lastCall === -1) lastCall = i
    } else if (lastLifecycle === -1) lastLifecycle = i
  }
  for (let i = 0; i < events.length; i++) {
    const event = events[i]
    const id = idOf(event)
    if (id === undefined) continue
    if (known.has(id)) replayed.add(id)
    else if (event.kind !== 'tool_result') {
      if (i < lastLifecycle) replayed.add(id)
    }
    // a failed call changes nothing either way (and the stream alone sees one Claude refused)
    else if (i < lastCall && !event.is_error) replayed.add(id)
  }
  return replayed
}

/**
 * The events of a delivery (or of one of its updates) that come before the last one the session
 * already knew: a successful todo result or an event with an id of its own it applied. A body
 * posted again (a forwarder's retry, a batch sent twice) held them when it was first posted, so
 * what they say without an id (activity, a progress update of a call) is not news: it clears no
 * wait that came after. Decided before any of them is applied.
 * @param events - the events, in order
 * @param known - whether the session knew an id before this delivery
 */
export function settledEvents(
  events: readonly ObservedEvent[],
  known: (id: string) => boolean
): ReadonlySet<ObservedEvent> {
  let last = -1
  for (let i = events.length - 1; i >= 0 && last === -1; i--) {
    const event = events[i]
    const id =
      event.kind === 'tool_result' ? (event.is_error ? undefined : event.call_id) : idOf(event)
    if (id !== undefined && known(id)) last = i
  }
  return new Set(events.slice(0, Math.max(0, last)))
}

/** An event's own id (a lifecycle event's, an answer's), if it has one. */
const idOf = (event: ObservedEvent): string | undefined =>
  'id' in event && typeof event.id === 'string' ? event.id : undefined

/**
 * Applies a delivery's events (all of one session) to the stored session.
 * @param current - the stored session, or null
 * @param events - the events, in order
 * @param ctx - the session, its agent, the clock and limits
 * @throws NotObservedError when the stored session is fed by rounds
 */
export function applyObserved(
  current: Session | null,
  events: readonly ObservedEvent[],
  ctx: ApplyContext
): ApplyResult {
  if (current && !current.observed) throw new NotObservedError(current.session_id)
  const { agent, now } = ctx
  const base: Session = current ?? {
    ...newSession(ctx.key, agent.defaultDialect, { reminder: false }, now),
    version: ctx.versionFloor ?? 0,
    observed: newObserved(agent.source, ctx.parent),
  }
  const ledger: ApplyLedger = {
    appliedIds: new AppliedIds(base.observed!.applied),
    staged: new Map(base.observed!.pending.map((call) => [call.id, call])),
    transient: new Set(),
  }
  const handlerCtx: HandlerContext = {
    family: agent.family,
    now,
    sessionId: ctx.key.sessionId,
    limits: ctx.limits,
    limitCache: ctx.limitCache ?? newLimitCache(),
    replayed: ctx.replayed,
    // each update's events on their own: a replay's earlier updates end in a result it knew
    settled: settledEvents(
      events,
      (id) => ledger.appliedIds.has(id) || ctx.replayed?.has(id) === true
    ),
    ledger,
    telemetryFirst: base.observed!.source === 'otlp',
  }
  let state = stateOf(base)
  for (const event of events) state = applyEvent(state, event, handlerCtx)
  const { items, dialect, ended, applied, ignored, endAgents } = state
  const observed: Observed = {
    ...base.observed!,
    waiting: state.waiting,
    todo_tools: state.todoTools,
    dialect_fixed: state.dialectFixed,
    end_rank: state.endRank,
  }
  if (state.decisions !== base.observed!.decisions) observed.decisions = state.decisions
  if (state.background > 0) observed.background = state.background
  else delete observed.background

  // a reply can hand a person's edit to the model from now on (agents: editRefusal)
  if (agent.edits === 'reply' && observed.source !== agent.source) observed.hooks = true
  let agents = observed.agents
  for (const id of ctx.agents ?? []) {
    if (!agents.includes(id)) agents = [...agents, id].slice(-MAX_AGENTS)
  }
  observed.agents = agents
  observed.pending =
    ledger.staged.size === 0
      ? []
      : withinSession(
          fitStaged(
            [...ledger.staged.values()].filter((call) => !ledger.transient.has(call.id)),
            ctx.limits
          ),
          { items, dialect_state: state.data, pending_edit: observed.pending_edit },
          ctx.limits,
          handlerCtx.limitCache
        )
  observed.applied = ledger.appliedIds.stored()
  let edit: string | null = null
  if (ctx.deliverEdit && observed.pending_edit) {
    edit = editContext(getDialect(dialect)!.render(observed.pending_edit.items))
    observed.pending_edit = null
  }

  // fill once: what the stored origin does not know yet, never a set field
  const origin = mergeOrigin(
    base.origin,
    ...(ctx.origin ?? []),
    ...events.flatMap((event) => (event.origin ? [event.origin] : [])),
    { agent: observed.source }
  )
  // the user a keys-file key fixed is the session's verified person
  if (!base.origin?.user && ctx.verifiedUser && origin.user === ctx.verifiedUser) {
    observed.verified_user = ctx.verifiedUser
  }
  const next: Session = {
    ...base,
    origin: sameOrigin(base.origin, origin) ? base.origin : origin,
    ...labelsAfter(base.labels, events),
    dialect,
    items,
    dialect_state: state.data,
    ended,
    observed,
    version: base.version + 1,
    updated_at: now,
  }
  if (!current) {
    // a subagent's list exists once it has one (or a call waits for its result)
    const creates =
      ctx.parent === null
        ? events.some((event) => event.kind !== 'ignored') || observed.agents.length > 0
        : observed.dialect_fixed || observed.pending.length > 0
    return creates
      ? { session: next, write: true, quiet: false, applied, ignored, edit, endAgents }
      : { session: null, write: false, quiet: false, applied, ignored, edit, endAgents }
  }
  if (showsChange(current, next)) {
    return { session: next, write: true, quiet: false, applied, ignored, edit, endAgents }
  }
  const keepAlive =
    state.alive &&
    !ended &&
    observed.waiting === null &&
    items.some(isUnfinished) &&
    now - current.updated_at >= ctx.keepAliveMs
  const quiet = edit !== null || keepAlive || recordsChange(current, next)
  return {
    session: quiet ? { ...next, version: current.version } : current,
    write: quiet,
    quiet,
    applied,
    ignored,
    edit,
    endAgents,
  }
}
