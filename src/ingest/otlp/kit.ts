/**
 * @module ingest/otlp/kit
 * What the three agents' telemetry readers share: a record's attributes read as strings, numbers
 * and JSON, its origin hints, and what a reader makes of an export (events, and the records it
 * could not apply, with why).
 */
import type { OriginHints } from '../../core/origin.js'
import type { ObservedEvent } from '../events.js'
import type { AttrValue, OtlpRecord } from './normalize.js'

/** What one agent's reader made of its records of an export. */
export interface OtlpReading {
  /** The events, in the order the agent did them. */
  events: ObservedEvent[]
  /** Records of a todo call that cannot be applied (no session, no input): counted, not applied. */
  rejected: number
  /** Why, one line per reason (the export response's `errorMessage`). */
  reasons: Set<string>
}

/** A new, empty reading. */
export const newReading = (): OtlpReading => ({ events: [], rejected: 0, reasons: new Set() })

/**
 * Counts a record that cannot be applied.
 * @param reading - the reading so far
 * @param reason - why, for the export response
 */
export function reject(reading: OtlpReading, reason: string): void {
  reading.rejected++
  reading.reasons.add(reason)
}

/**
 * An attribute of the record (else of its resource) as a non-empty string; numbers and booleans
 * as their text (the beta tracer's JSON sends every value as a string).
 * @param record - the record
 * @param key - the attribute
 */
export function text(record: OtlpRecord, key: string): string | undefined {
  const value: AttrValue | undefined = record.attributes[key] ?? record.resource[key]
  if (typeof value === 'string') return value === '' ? undefined : value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/**
 * A boolean attribute: `true`, or the text `"true"` (Codex and Claude send `success` as text).
 * @param record - the record
 * @param key - the attribute
 */
export function flag(record: OtlpRecord, key: string): boolean | undefined {
  const value = record.attributes[key]
  if (typeof value === 'boolean') return value
  if (typeof value === 'string') return value.toLowerCase() === 'true'
  return undefined
}

/**
 * A number attribute (`intValue`, or its text).
 * @param record - the record
 * @param key - the attribute
 */
export function num(record: OtlpRecord, key: string): number | undefined {
  const value = record.attributes[key]
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN
  return Number.isFinite(n) ? n : undefined
}

/**
 * A JSON text parsed, or undefined when it is not JSON.
 * @param value - the text
 */
export function json(value: string | undefined): unknown {
  if (value === undefined) return undefined
  try {
    return JSON.parse(value)
  } catch {
    return undefined
  }
}

/**
 * The origin a record tells: `user.email`, `host.name`, the agent and its version, the model.
 * @param record - the record
 * @param agent - the agent (`origin.agent`)
 * @param version - the attribute holding the agent's version
 */
export function originOf(record: OtlpRecord, agent: string, version?: string): OriginHints {
  return {
    user: text(record, 'user.email'),
    host: text(record, 'host.name'),
    agent,
    agent_version: version === undefined ? undefined : text(record, version),
    model: text(record, 'model') ?? text(record, 'gen_ai.request.model'),
  }
}

/**
 * Records in the order the agent made them: by `event.sequence` where both have one (Claude's
 * logs), else by time, else as they came.
 * @param records - one agent's records of an export
 */
export function inOrder(records: OtlpRecord[]): OtlpRecord[] {
  return [...records].sort((a, b) => {
    const sa = num(a, 'event.sequence')
    const sb = num(b, 'event.sequence')
    if (sa !== undefined && sb !== undefined && sa !== sb) return sa - sb
    return a.time - b.time || a.index - b.index
  })
}

/**
 * The sessions' events: each session's activity once, before its todo events (an export holds
 * hundreds of records that only say the agent is alive).
 * @param reading - the reading to add to
 * @param alive - the sessions seen, with the origin their records tell
 * @param events - the todo events, in order
 */
export function withActivity(
  reading: OtlpReading,
  alive: Map<string, OriginHints>,
  events: ObservedEvent[]
): void {
  for (const [session, origin] of alive) {
    reading.events.push({ kind: 'activity', target: { session }, what: 'otlp', origin })
  }
  reading.events.push(...events)
}
