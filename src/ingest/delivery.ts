/**
 * @module ingest/delivery
 * What a parsed delivery touches, before anything is stored: the session each event belongs to
 * (the agent's id under its source's prefix, or the caller's `?session_id=`; a subagent's own
 * list below its main session), grouped in order of first appearance, subagents' lists before
 * the main sessions that list them. The route runs one atomic update per list of each group
 * (`segmentsOf`) in this order.
 */
import { SESSION_ID_PATTERN } from '../core/ids.js'
import type { ObservedSource } from '../core/session.js'
import type { ApplyResult } from './apply.js'
import type { ObservedEvent, Target } from './events.js'

/** The session id prefix of each source's own ids. */
export const SESSION_PREFIX: Record<ObservedSource, string> = {
  'claude-code': 'claude',
  'claude-agent-sdk': 'claude',
  codex: 'codex',
  'gemini-cli': 'gemini',
  openhands: 'openhands',
}

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
 * @param source - the agent
 * @param target - the event's session and subagent
 * @param override - the caller's `?session_id=`
 * @throws DeliveryTargetError when no session is named, or the id is not a session id
 */
export function sessionIdOf(
  source: ObservedSource,
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
    main = `${SESSION_PREFIX[source]}:${target.session}`
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

/** The events of one session in a delivery. */
export interface SessionEvents {
  id: string
  /** The main session, when this is a subagent's own list. */
  parent: string | null
  events: ObservedEvent[]
}

/**
 * The sessions a delivery touches, each with its events in order: subagents' lists first (their
 * main session lists them), then the main sessions, each in order of first appearance.
 * @param source - the agent
 * @param events - the delivery's events, in order
 * @param override - the caller's `?session_id=`
 * @throws DeliveryTargetError when an event's session cannot be named
 */
export function planDelivery(
  source: ObservedSource,
  events: readonly ObservedEvent[],
  override: string | undefined
): SessionEvents[] {
  const groups = new Map<string, SessionEvents>()
  for (const event of events) {
    const id = sessionIdOf(source, event.target, override)
    let group = groups.get(id)
    if (!group) {
      const parent =
        event.target.agent === undefined
          ? null
          : sessionIdOf(source, { session: event.target.session }, override)
      group = { id, parent, events: [] }
      groups.set(id, group)
    }
    group.events.push(event)
  }
  const all = [...groups.values()]
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
