/**
 * @module dialects/round
 * One round of an agent loop: the model's tool calls applied to a session through its dialect.
 */
import type { Item } from '../core/items.js'
import {
  checkStoredLimits,
  DEFAULT_LIST_LIMITS,
  jsonTooDeep,
  MAX_BODY_DEPTH,
  newLimitCache,
  type ListLimits,
} from '../core/limits.js'
import { advanceReminder } from '../core/reminder.js'
import { newSession, type Session, type SessionKey, type SessionSettings } from '../core/session.js'
import { flavourOf } from './flavour.js'
import { DEFAULT_DIALECT, getDialect } from './registry.js'
import type { CallResult, Dialect } from './types.js'

/** One tool call as the model API gave it. */
export interface ToolCall {
  id?: string
  name: string
  /** Anthropic: the parsed input. */
  input?: unknown
  /** OpenAI: a JSON string (or, leniently, an object). */
  arguments?: unknown
  /** Gemini: the parsed args. */
  args?: unknown
}

export interface RoundRequest {
  dialect?: string
  tool_calls: ToolCall[]
  settings?: SessionSettings
}

export interface ToolResult extends CallResult {
  tool_use_id: string
  name: string
}

export interface Notice {
  text: string
  rendered: string
}

export interface RoundOutcome {
  session: Session
  results: ToolResult[]
  used_todo: boolean
  reminder: { text: string } | null
  notice: Notice | null
  dropped: Item[]
}

/** A request named a dialect other than the one the session was created with. */
export class DialectConflictError extends Error {
  constructor(
    readonly sessionDialect: string,
    readonly requested: string
  ) {
    super(`This session speaks '${sessionDialect}'; the request named '${requested}'.`)
    this.name = 'DialectConflictError'
  }
}

/**
 * Resolves the dialect a request runs in, in the session's flavour (or, for a new session, the
 * request's), creating nothing.
 * @throws DialectConflictError when the request names another dialect than the session's
 */
export function resolveDialect(
  current: Session | null,
  requested: string | undefined,
  settings?: SessionSettings
): Dialect {
  const name = current?.dialect ?? requested ?? DEFAULT_DIALECT
  if (current && requested !== undefined && requested !== current.dialect) {
    throw new DialectConflictError(current.dialect, requested)
  }
  const dialect = getDialect(name)
  if (!dialect) throw new Error(`unknown dialect '${name}'`)
  return flavourOf(dialect, (current?.settings ?? settings)?.flavour)
}

/**
 * The text handed to the model once after a person edited its list.
 * @param rendered - the list as the dialect renders it
 */
export function noticeFor(rendered: string): Notice {
  return {
    text: `The todo list was changed by a person while you were working. This is the current list; continue from it:\n\n${rendered}`,
    rendered,
  }
}

const toolNameSets = new WeakMap<Dialect, ReadonlySet<string>>()

/** The names of a dialect's tools, built once per dialect. */
function toolNamesOf(dialect: Dialect): ReadonlySet<string> {
  let names = toolNameSets.get(dialect)
  if (!names) toolNameSets.set(dialect, (names = new Set(dialect.tools.map((tool) => tool.name))))
  return names
}

const TOO_DEEP = `Error: Limit exceeded: the arguments are nested more than ${MAX_BODY_DEPTH} levels deep; at most ${MAX_BODY_DEPTH} are allowed.`

/** Reads a call's arguments from whichever field its API used. */
function callArguments(
  call: ToolCall
):
  | { ok: true; value: unknown; raw?: string }
  | { ok: false; raw: string }
  | { ok: false; tooDeep: true } {
  if (call.input !== undefined) return { ok: true, value: call.input }
  if (call.args !== undefined) return { ok: true, value: call.args }
  if (typeof call.arguments === 'string') {
    if (call.arguments.trim() === '') return { ok: true, value: {} }
    // the body's depth was checked at the door, but not that of JSON inside one of its strings
    if (jsonTooDeep(call.arguments, MAX_BODY_DEPTH)) {
      return { ok: false, tooDeep: true }
    }
    try {
      return { ok: true, value: JSON.parse(call.arguments), raw: call.arguments }
    } catch {
      return { ok: false, raw: call.arguments }
    }
  }
  return { ok: true, value: call.arguments ?? {} }
}

/**
 * Applies a round to a session (or to a new one) without side effects: the caller stores the
 * returned session. Calls to the dialect's tools are applied in order; other calls are counted.
 * @param current - the stored session, or null for a new one
 * @param key - tenant and session id
 * @param request - the round
 * @param now - epoch ms
 * @param limits - the service's caps; a call whose result would break them fails as a whole and
 *   leaves the state as it was before the call
 * @param versionFloor - for a new session, the version a deleted predecessor reached
 */
export function applyRound(
  current: Session | null,
  key: SessionKey,
  request: RoundRequest,
  now: number,
  limits: ListLimits = DEFAULT_LIST_LIMITS,
  versionFloor = 0
): RoundOutcome {
  const dialect = resolveDialect(current, request.dialect, request.settings)
  const base = current ?? newSession(key, dialect.name, request.settings ?? {}, now, versionFloor)
  const toolNames = toolNamesOf(dialect)
  let ownCalls = 0
  let resets = false
  for (const call of request.tool_calls) {
    if (!toolNames.has(call.name)) continue
    ownCalls++
    if (dialect.resetsReminder?.(call.name) ?? true) resets = true
  }

  let state = { items: base.items, data: base.dialect_state }
  const results: ToolResult[] = []
  const dropped: Item[] = []
  // what calls leave as it was (an item's metadata, its exact size) is measured once per round
  const measured = newLimitCache()
  request.tool_calls.forEach((call, index) => {
    if (!toolNames.has(call.name)) return
    const tool_use_id = call.id ?? `call_${index}`
    const args = callArguments(call)
    if (!args.ok) {
      const content = 'raw' in args ? dialect.argumentsError(call.name, args.raw) : TOO_DEEP
      results.push({ tool_use_id, name: call.name, is_error: true, content, structured: null })
      return
    }
    const outcome = dialect.apply(state, call.name, args.value, {
      callsInRound: ownCalls,
      indexInRound: results.length,
      rawArguments: args.raw,
      maxItems: limits.maxItems,
    })
    const changed = outcome.state.items !== state.items || outcome.state.data !== state.data
    const overLimit =
      outcome.result.is_error || !changed
        ? null
        : checkStoredLimits(outcome.state, limits, measured)
    if (overLimit) {
      const content = `Error: ${overLimit}`
      results.push({ tool_use_id, name: call.name, is_error: true, content, structured: null })
      return
    }
    state = outcome.state
    dropped.push(...outcome.dropped)
    results.push({ tool_use_id, name: call.name, ...outcome.result })
  })

  const usedTodo = ownCalls > 0
  const { counters, due } = advanceReminder(dialect.reminder, base.settings, base, resets)
  const notice = base.notice_pending ? noticeFor(dialect.render(state.items)) : null
  const session: Session = {
    ...base,
    items: state.items,
    dialect_state: state.data,
    version: base.version + 1,
    round: base.round + 1,
    rounds_since_todo: counters.rounds_since_todo,
    rounds_since_reminder: counters.rounds_since_reminder,
    notice_pending: false,
    updated_at: now,
  }
  return {
    session,
    results,
    used_todo: usedTodo,
    reminder: due ? { text: dialect.reminderText(state.items) } : null,
    notice,
    dropped,
  }
}
