/**
 * @module ingest/parse-kit
 * What the agents' parsers share: reading an event's fields and its origin hints, and the hook
 * events that every agent's hooks make alike (an exit, an event that only says the agent is
 * alive). `ingest/stream-lines` holds what their streams share, `ingest/events` the model.
 */
import type { OriginField, OriginHints } from '../core/origin.js'
import type { ActivityEvent, EndEvent, IgnoredEvent, ObservedEvent, Target } from './events.js'

/**
 * A string field of an agent's event, or undefined when it is absent, empty or not a string.
 * @param value - the field
 */
export const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined

/**
 * A `SessionEnd` hook: the agent exited, saying nothing of how the run went (completed when nothing
 * is unfinished, else cancelled), its reason as the detail; the subagents' lists end too.
 * @param target - the session
 * @param reason - the hook's `reason`
 */
export function exitEvent(target: Target, reason: unknown): EndEvent {
  return {
    kind: 'session_end',
    target,
    outcome: 'auto',
    detail: nonEmpty(reason) ?? null,
    specific: false,
    all: true,
  }
}

/**
 * A hook event the service does not apply: activity when the agent's known events include it,
 * else ignored (an unknown event says nothing).
 * @param known - the agent's events that only say it is alive
 * @param event - the hook's event name
 * @param target - the session
 */
export function aliveOrIgnored(
  known: ReadonlySet<string>,
  event: string,
  target: Target
): ActivityEvent | IgnoredEvent {
  return known.has(event)
    ? { kind: 'activity', target, what: event }
    : { kind: 'ignored', target, what: event }
}

/**
 * The origin hints of an agent's event: each named field of the event that is a non-empty string
 * (the rest say nothing); undefined when none is.
 * @param value - the event (a hook input, a stream line)
 * @param fields - origin field → the event's field that carries it
 */
export function originHintsOf(
  value: Record<string, unknown>,
  fields: Partial<Record<OriginField, string>>
): OriginHints | undefined {
  let hints: OriginHints | undefined
  for (const [field, name] of Object.entries(fields) as [OriginField, string][]) {
    const text = nonEmpty(value[name])
    if (text !== undefined) (hints ??= {})[field] = text
  }
  return hints
}

/**
 * The events of one input, each carrying the input's origin hints (none: unchanged).
 * @param events - what the input was parsed into
 * @param hints - what it says of the origin
 */
export function withOrigin(
  events: ObservedEvent[],
  hints: OriginHints | undefined
): ObservedEvent[] {
  return hints ? events.map((event) => ({ ...event, origin: hints })) : events
}
