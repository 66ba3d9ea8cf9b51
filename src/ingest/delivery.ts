/**
 * @module ingest/delivery
 * What a parsed delivery touches, before anything is stored: the session each event belongs to
 * (the agent's id under its source's prefix, or the caller's `?session_id=`; a subagent's own
 * list below its main session), grouped in order of first appearance, subagents' lists before
 * the main sessions that list them. The route runs the groups in this order, each in as few atomic
 * updates as its lists need (`segmentsOf`, `capSegments`); a delivery touches at most
 * `MAX_DELIVERY_SESSIONS` sessions.
 */
import { SESSION_ID_PATTERN } from '../core/ids.js'
import type { ObservedAgent } from './agent.js'
import type { ApplyResult } from './apply.js'
import type { ObservedEvent, Target } from './events.js'

/** A delivery whose session cannot be named: the body does not say, or says it wrongly. */
export class DeliveryTargetError extends Error {
  constructor(
    readonly code: 'session-unknown' | 'invalid-session-id',
    message: string,
    /** Where the caller can name it instead. */
    readonly pointer?: string
  ) {
    super(message)
    this.name = 'DeliveryTargetError'
  }
}

/**
 * The session of a target: the agent's id under its prefix (or the caller's), a subagent's below.
 * @param agent - the agent (its session id prefix)
 * @param target - the event's session and subagent
 * @param override - the caller's `?session_id=`
 * @throws DeliveryTargetError when no session is named, or the id is not a session id
 */
export function sessionIdOf(
  agent: Pick<ObservedAgent, 'prefix'>,
  target: Target,
  override: string | undefined
): string {
  let main = override
  if (main === undefined) {
    if (target.session === undefined) {
      throw new DeliveryTargetError(
        'session-unknown',
        'The body does not name its session (a Codex or Gemini stream names it on its first line only); pass ?session_id=.',
        '/query/session_id'
      )
    }
    main = `${agent.prefix}:${target.session}`
  }
  const id = target.agent === undefined ? main : `${main}:agent:${target.agent}`
  if (!SESSION_ID_PATTERN.test(id)) {
    throw new DeliveryTargetError(
      'invalid-session-id',
      `The session id '${id.slice(0, 200)}' does not match ${SESSION_ID_PATTERN.source}; pass ?session_id=.`
    )
  }
  return id
}

/**
 * Sessions one delivery may touch: a Claude run's main session and its subagents' lists (the
 * real captures hold two; a subagent per parallel Task call is still far below), while a body
 * naming thousands would cost thousands of store updates for one request.
 */
export const MAX_DELIVERY_SESSIONS = 16

/**
 * Store updates that one delivery's lists may take (shared by its sessions): a stream posted
 * whole keeps a version per list the agent had up to this, and the oldest lists of a longer one
 * share one update (the same final state, fewer history entries).
 */
export const MAX_DELIVERY_UPDATES = 32

/** A delivery that names more sessions than `MAX_DELIVERY_SESSIONS`. */
export class TooManySessionsError extends Error {
  constructor(readonly count: number) {
    super(
      `The body touches ${count} sessions; one delivery may touch at most ${MAX_DELIVERY_SESSIONS} (post them apart).`
    )
    this.name = 'TooManySessionsError'
  }
}

/**
 * A session's segments (`segmentsOf`) within `max` updates: when there are more, the oldest are
 * joined into the first, so the newest lists keep a version each.
 * @param segments - the session's segments, in order
 * @param max - updates the session may take (at least 1)
 */
export function capSegments<T>(segments: T[][], max: number): T[][] {
  if (segments.length <= max) return segments
  const joined = segments.length - Math.max(1, max) + 1
  return [segments.slice(0, joined).flat(), ...segments.slice(joined)]
}

/**
 * Whether an event goes to no session and needs none: an ignored event (an unknown event, a
 * server's `connected` or heartbeat) that names no session, with no `?session_id=`. It is
 * counted as ignored; a body of nothing else is accepted without a session (docs/observe.md).
 * Anything else that names no session, activity included (it keeps a session from going stale
 * and clears a wait), cannot say whose it is and is refused (`session-unknown`).
 * @param event - the event
 * @param override - the caller's `?session_id=`
 */
export const needsNoSession = (event: ObservedEvent, override: string | undefined): boolean =>
  override === undefined && event.kind === 'ignored' && event.target.session === undefined

/** The events of one session in a delivery. */
export interface SessionEvents {
  id: string
  /** The main session, when this is a subagent's own list. */
  parent: string | null
  events: ObservedEvent[]
}

/**
 * The sessions a delivery touches, each with its events in order: subagents' lists first (their
 * main session lists them), then the main sessions, each in order of first appearance. Ignored
 * events that name no session go to none (`needsNoSession`).
 * @param agent - the agent (its session id prefix)
 * @param events - the delivery's events, in order
 * @param override - the caller's `?session_id=`
 * @throws DeliveryTargetError when an event's session cannot be named
 * @throws TooManySessionsError past `MAX_DELIVERY_SESSIONS`
 */
export function planDelivery(
  agent: Pick<ObservedAgent, 'prefix'>,
  events: readonly ObservedEvent[],
  override: string | undefined
): SessionEvents[] {
  const groups = new Map<string, SessionEvents>()
  for (const event of events) {
    if (needsNoSession(event, override)) continue
    const id = sessionIdOf(agent, event.target, override)
    let group = groups.get(id)
    if (!group) {
      const parent =
        event.target.agent === undefined
          ? null
          : sessionIdOf(agent, { session: event.target.session }, override)
      group = { id, parent, events: [] }
      groups.set(id, group)
    }
    group.events.push(event)
  }
  const all = [...groups.values()]
  // a main session that only lists its subagents is touched too
  const touched = new Set([...groups.keys(), ...all.flatMap((g) => g.parent ?? [])])
  if (touched.size > MAX_DELIVERY_SESSIONS) throw new TooManySessionsError(touched.size)
  return [...all.filter((g) => g.parent !== null), ...all.filter((g) => g.parent === null)]
}

/** Whether an update wrote a new version (a write that is not quiet). */
const versioned = (result: ApplyResult) => result.write && !result.quiet

/**
 * The outcome of a session's updates taken together (one per list it had): the last session, and
 * the counts and flags of all of them.
 * @param total - the outcome so far, if any
 * @param next - the next update's
 */
export function combineResults(total: ApplyResult | undefined, next: ApplyResult): ApplyResult {
  if (!total) return next
  return {
    ...next,
    session: next.session ?? total.session,
    write: total.write || next.write,
    // quiet only when no update of the two wrote a new version
    quiet: (total.write || next.write) && !versioned(total) && !versioned(next),
    applied: total.applied + next.applied,
    ignored: total.ignored + next.ignored,
    edit: total.edit ?? next.edit,
    endAgents: total.endAgents || next.endAgents,
  }
}
