/**
 * @module ingest/apply-handlers
 * What one observed event does to a session, one small handler per event kind over an explicit
 * state (`ApplyState`); `ingest/apply` runs them in order over a delivery and decides what is
 * written. A handler returns the next state and never changes the one it is given; the call ledger
 * (`ApplyLedger`: the applied ids and the staged calls) is the one thing shared and changed in
 * place, as a long delivery looks up and adds hundreds of ids.
 */
import { requestIdOf, withAnswer, withRequest } from '../core/decisions.js'
import { isUnfinished, type Item } from '../core/items.js'
import { checkStoredLimits, type LimitCache, type ListLimits } from '../core/limits.js'
import type {
  DecisionRecord,
  Ended,
  EndedOutcome,
  Session,
  StagedCall,
  Waiting,
} from '../core/session.js'
import { observerOf, todoDialectOf, type AgentFamily } from '../dialects/observe/index.js'
import type { AppliedIds } from './applied-ids.js'
import type { ObservedEvent, ObservedKind, ResultEvent } from './events.js'
import { sameJson } from './same-json.js'

/** What a delivery's events have made of the session so far. */
export interface ApplyState {
  items: Item[]
  data: Record<string, unknown>
  dialect: string
  ended: Ended | null
  waiting: Waiting | null
  /** Whether the agent has todo tools at all; null when unknown. */
  todoTools: boolean | null
  /** Whether a todo tool fixed the dialect yet. */
  dialectFixed: boolean
  /** How specific `ended` is (`END_RANK`; 0 for an end that says nothing of the run). */
  endRank: number
  /** Events applied and ignored. */
  applied: number
  ignored: number
  /** An event said the agent is alive (a busy session's keep-alive may follow). */
  alive: boolean
  /** A run-level end reached the session: its subagents' lists end too. */
  endAgents: boolean
  /** The last requests a person could answer, with their answers (`core/decisions`). */
  decisions: DecisionRecord[] | undefined
  /** Background work the agent still runs (0: none). */
  background: number
}

/** The calls a delivery has seen: changed in place by the handlers. */
export interface ApplyLedger {
  /** Call and lifecycle ids applied (the session's, and this delivery's). */
  appliedIds: AppliedIds
  /** Calls waiting for their result, by id. */
  staged: Map<string, StagedCall>
  /** Calls staged by this delivery whose result will say what they did: not kept past it. */
  transient: Set<string>
}

/** What the handlers read besides the state. */
export interface HandlerContext {
  /** The agent family: which tool names are todo tools. */
  family: AgentFamily
  now: number
  /** The session's id (a new request's id is made from it). */
  sessionId?: string
  limits: ListLimits
  /** Measures of the items already checked against the caps (shared by a delivery's updates). */
  limitCache: LimitCache
  /** Call and lifecycle ids of this delivery to take as applied (`replayedCalls`). */
  replayed?: ReadonlySet<string>
  /**
   * Events of this delivery that come before one the session already knew (`settledEvents`):
   * a body posted again held them when first posted, so activity among them clears nothing.
   */
  settled?: ReadonlySet<ObservedEvent>
  ledger: ApplyLedger
  /** Telemetry (OTLP) fed the session first: its results apply (else hooks or a stream say more). */
  telemetryFirst?: boolean
}

/** One event kind's handler. */
export type Handler<E extends ObservedEvent> = (
  state: ApplyState,
  event: E,
  ctx: HandlerContext
) => ApplyState

/** The handler of the events of one kind. */
type HandlerOf<K extends ObservedKind> = Handler<Extract<ObservedEvent, { kind: K }>>

const END_RANK: Record<EndedOutcome, number> = {
  completed: 1,
  cancelled: 2,
  error: 3,
  max_turns: 4,
}

/**
 * The state a delivery starts from: the stored session's.
 * @param session - the session (observed)
 */
export function stateOf(session: Session): ApplyState {
  const observed = session.observed!
  return {
    items: session.items,
    data: session.dialect_state,
    dialect: session.dialect,
    ended: session.ended,
    waiting: observed.waiting,
    todoTools: observed.todo_tools,
    dialectFixed: observed.dialect_fixed,
    endRank: observed.end_rank,
    applied: 0,
    ignored: 0,
    alive: false,
    endAgents: false,
    decisions: observed.decisions,
    background: observed.background ?? 0,
  }
}

const ignore = (state: ApplyState): ApplyState => ({ ...state, ignored: state.ignored + 1 })

const applied = (state: ApplyState): ApplyState => ({ ...state, applied: state.applied + 1 })

/**
 * The agent did something: it is alive, and no longer waits for a person, unless a request it
 * holds open is still pending (parallel hooks arrive in any order: only an event that settles
 * the request, `settle`, ends that wait).
 */
const stir = (state: ApplyState): ApplyState => ({
  ...state,
  alive: true,
  waiting: state.waiting?.request ? state.waiting : null,
})

/**
 * Something the session already saw (a call or result again, a lifecycle event again): the agent
 * is alive, and a wait stays. A body posted again clears nothing (docs/observe.md: a wait it
 * already reported, and that was not answered since, is still a wait).
 */
const seenAgain = (state: ApplyState): ApplyState => ignore({ ...state, alive: true })

/** A new run, or a changed list, opens an ended session again. */
const reopen = (state: ApplyState): ApplyState => ({ ...state, ended: null, endRank: 0 })

/**
 * Bytes of a staged call's input, or null when it breaks the caps by itself (nested past
 * `MAX_JSON_DEPTH`, counting the call as level 1, or larger than `MAX_SESSION_BYTES`).
 * @param input - the call's input
 * @param limits - the caps
 */
export function stagedSize(input: unknown, limits: ListLimits): number | null {
  if (checkStoredLimits({ items: [], data: { input } }, limits) !== null) return null
  return Buffer.byteLength(JSON.stringify(input ?? null))
}

/** The dialect Claude's tools at start imply, before a todo call fixes it. */
function dialectFromTools(family: AgentFamily, tools: readonly string[]): string | undefined {
  const dialects = new Set(tools.flatMap((tool) => todoDialectOf(family, tool) ?? []))
  // Claude offers one family per session; both listed would be odd: keep the default
  return dialects.size === 1 ? [...dialects][0] : undefined
}

/** Whether a call id was applied already, by the session or as part of a replay. */
const known = (ctx: HandlerContext, id: string) =>
  ctx.ledger.appliedIds.has(id) || ctx.replayed?.has(id) === true

/**
 * Whether a result from telemetry applies (docs/otel.md, "Hooks and telemetry together"): only to
 * a session telemetry fed first (hooks or a stream report the same calls more fully, and sooner);
 * a partial report only until the whole one of the same call is applied; a list whose texts are
 * unknown never replaces one whose texts are known.
 */
function telemetryApplies(
  state: ApplyState,
  note: NonNullable<ResultEvent['telemetry']>,
  ctx: HandlerContext
): boolean {
  if (!ctx.telemetryFirst) return false
  if (note.partialOf !== undefined && known(ctx, note.partialOf)) return false
  return !(note.itemsUnknown && state.items.length > 0 && state.data.items_known !== false)
}

/**
 * The dialect state with `items_known: false` while the list's texts are unknown (views show it).
 * @param data - the observer's dialect state
 * @param known - whether this list's texts are known
 */
function withItemsKnown(data: Record<string, unknown>, known: boolean): Record<string, unknown> {
  if (!known) return { ...data, items_known: false }
  if (!('items_known' in data)) return data
  const { items_known: _unknown, ...rest } = data
  return rest
}

/** A call seen before its result: staged until its result commits it. */
const onToolCall: HandlerOf<'tool_call'> = (state, event, ctx) => {
  const { staged, transient } = ctx.ledger
  if (known(ctx, event.call_id)) return seenAgain(state)
  // a call still waiting for its result, seen again: news (a progress update), unless a body
  // posted again holds it
  if (staged.has(event.call_id)) {
    return ctx.settled?.has(event) ? seenAgain(state) : ignore(stir(state))
  }
  const next = stir(state)
  const call: StagedCall = { id: event.call_id, name: event.name, input: event.input }
  if (event.stage) {
    // kept past this delivery: measured once, and not kept at all past the caps
    const bytes = stagedSize(event.input, ctx.limits)
    if (bytes === null) return ignore(next)
    call.bytes = bytes
  } else {
    transient.add(event.call_id)
  }
  staged.set(event.call_id, call)
  return applied(next)
}

/** A tool's result: a todo tool's successful one applies its call through the dialect's observer. */
const onToolResult: HandlerOf<'tool_result'> = (state, event, ctx) => {
  if (known(ctx, event.call_id)) return seenAgain(state)
  const next = stir(state)
  if (event.telemetry && !telemetryApplies(next, event.telemetry, ctx)) return ignore(next)
  const { appliedIds, staged } = ctx.ledger
  const call = staged.get(event.call_id)
  staged.delete(event.call_id)
  const name = call?.name ?? event.name
  const todoDialect = name === undefined ? undefined : todoDialectOf(ctx.family, name)
  // another tool's result, or a call of the family the session does not use
  if (!todoDialect || (next.dialectFixed && todoDialect !== next.dialect)) return ignore(next)
  // a todo call is seen once, whatever its outcome
  appliedIds.add(event.call_id)
  if (event.is_error) return ignore(next)
  const outcome = observerOf(todoDialect)!.observe(
    { name: name!, input: event.input ?? call?.input },
    { is_error: false, structured: event.structured, text: event.text },
    { items: next.items, data: next.data }
  )
  // a list beyond the service's caps cannot be stored; the agent's own list goes on
  if (!outcome.applied || checkStoredLimits(outcome.state, ctx.limits, ctx.limitCache) !== null) {
    return ignore(next)
  }
  // a changed list means the agent runs again
  const open = next.ended && !sameJson(outcome.state.items, next.items) ? reopen(next) : next
  return {
    ...open,
    items: outcome.state.items,
    data: withItemsKnown(outcome.state.data, event.telemetry?.itemsUnknown !== true),
    dialect: todoDialect,
    dialectFixed: true,
    todoTools: true,
    applied: open.applied + 1,
  }
}

/** A run starts, or says which tools it has (the dialect they imply until a todo call fixes it). */
const onSessionStart: HandlerOf<'session_start'> = (state, event, ctx) => {
  let next = stir(state)
  if (event.tools) {
    const implied = dialectFromTools(ctx.family, event.tools)
    next = {
      ...next,
      todoTools: event.tools.some((tool) => todoDialectOf(ctx.family, tool) !== undefined),
      dialect: !next.dialectFixed && implied ? implied : next.dialect,
    }
  }
  if (event.run && next.ended) next = reopen(next)
  return applied(next)
}

/** The run ended: a less specific end than the one the session has does not replace it. */
const onSessionEnd: HandlerOf<'session_end'> = (state, event, ctx) => {
  let next: ApplyState = { ...state, waiting: null, alive: true, background: 0 }
  const unfinished = next.items.some(isUnfinished)
  const outcome: EndedOutcome =
    event.outcome === 'auto' ? (unfinished ? 'cancelled' : 'completed') : event.outcome
  const rank = event.specific ? END_RANK[outcome] : 0
  if (event.all) next = { ...next, endAgents: true }
  if (next.ended && rank <= next.endRank) return ignore(next)
  return {
    ...next,
    ended: {
      outcome,
      detail: event.detail,
      at: ctx.now,
      unfinished: next.items.filter(isUnfinished).map((item) => item.id),
    },
    endRank: rank,
    applied: next.applied + 1,
  }
}

/**
 * The agent waits for a person (not once the run ended); the same reason keeps its first mark.
 * A wait that carries a request (a `?decide=1` hook) records it, unless the same request is
 * pending already (the hook posted again).
 */
const onWaiting: HandlerOf<'waiting'> = (state, event, ctx) => {
  const next = { ...state, alive: true }
  if (next.ended) return ignore(next)
  const current = next.waiting
  const draft = event.request
  if (draft && !(current?.request?.match === draft.match && current.request.expires_at > ctx.now)) {
    const { holdMs, ...fields } = draft
    const request = {
      ...fields,
      id: requestIdOf({
        session: ctx.sessionId ?? '',
        match: draft.match,
        at: ctx.now,
        n: next.decisions?.length ?? 0,
      }),
      at: ctx.now,
      expires_at: ctx.now + holdMs,
    }
    const waiting: Waiting = {
      reason: event.reason,
      message: event.message,
      at: current?.reason === event.reason ? current.at : ctx.now,
      request,
    }
    return {
      ...next,
      waiting,
      decisions: withRequest(next.decisions, request),
      applied: next.applied + 1,
    }
  }
  const waiting =
    current?.reason === event.reason
      ? current
      : { reason: event.reason, message: event.message, at: ctx.now }
  return { ...next, waiting, applied: next.applied + 1 }
}

/**
 * An event that shows the pending request was answered at the agent's own prompt (a tool's
 * result for its call, the end of the turn): the request ends `answered_elsewhere`, and the wait
 * that showed it with it. Other requests are left as they are.
 */
function settle(state: ApplyState, event: ObservedEvent, ctx: HandlerContext): ApplyState {
  const request = state.waiting?.request
  if (!event.settles || !request) return state
  const { matches, message } = event.settles
  if (matches && !matches.includes(request.match)) return state
  const decisions = withAnswer(state.decisions, request.id, {
    outcome: 'answered_elsewhere',
    by: null,
    channel: 'terminal',
    at: ctx.now,
    ...(message ? { message } : {}),
  })
  return { ...state, waiting: null, decisions }
}

/** The handler of each event kind. */
export const HANDLERS: { [K in ObservedKind]: HandlerOf<K> } = {
  ignored: (state) => ignore(state),
  activity: (state, event, ctx) => {
    // held by a body posted again before something the session knew: seen when first posted
    if (ctx.settled?.has(event)) return ignore(state)
    const next = event.keepsWaiting ? { ...state, alive: true } : stir(state)
    if (event.background === undefined || event.background === next.background) return ignore(next)
    // the agent's background work changed: a state change (done waits for it)
    return applied({ ...next, background: event.background })
  },
  tool_call: onToolCall,
  tool_result: onToolResult,
  session_start: onSessionStart,
  session_end: onSessionEnd,
  waiting: onWaiting,
}

/**
 * Applies one event: a lifecycle event with an id of its own is applied once, like a call; then
 * its kind's handler.
 * @param state - the state so far
 * @param event - the event
 * @param ctx - the family, clock, caps and the delivery's call ledger
 */
export function applyEvent(
  state: ApplyState,
  event: ObservedEvent,
  ctx: HandlerContext
): ApplyState {
  if ('id' in event && event.id !== undefined) {
    if (known(ctx, event.id)) return seenAgain(state)
    ctx.ledger.appliedIds.add(event.id)
  }
  return (HANDLERS[event.kind] as Handler<ObservedEvent>)(settle(state, event, ctx), event, ctx)
}
