/**
 * @module ingest/otlp/kit
 * What the three agents' telemetry readers share: a record's attributes read as strings, numbers
 * and JSON, its origin hints, and what a reader makes of an export (events, and the records it
 * could not apply, with why).
 */
import {
  MAX_LABEL_VALUE,
  UNSAFE_LABEL_CHARACTER,
  type Labels,
  type OriginHints,
} from '../../core/origin.js'
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

/** Control and bidi characters, which no label value may hold. */
const UNSAFE = new RegExp(UNSAFE_LABEL_CHARACTER.source, 'gu')

/**
 * The labels a record tells: `terminal` from `terminal.type` (Claude Code, Codex), the terminal
 * the agent runs in (`vscode`, `tmux`, `dumb`…), which origin has no field for (docs/observe.md, "Who and
 * where"), cleaned to what a label value may be.
 * @param record - the record
 */
export function labelsOf(record: OtlpRecord): Labels | undefined {
  const terminal = text(record, 'terminal.type')?.replace(UNSAFE, '').trim()
  return terminal ? { terminal: terminal.slice(0, MAX_LABEL_VALUE) } : undefined
}

/** The sessions an export's records name, with the origin and labels their records tell. */
export type AliveSessions = Map<string, { origin: OriginHints; labels?: Labels }>

/**
 * Notes a record of a session: the first record's origin, or the first that names the model
 * (later records carry it: Gemini's `config`), and the first labels.
 * @param alive - the sessions so far
 * @param session - the record's session
 * @param record - the record
 * @param origin - the origin it tells (`originOf`)
 */
export function noteSession(
  alive: AliveSessions,
  session: string,
  record: OtlpRecord,
  origin: OriginHints
): void {
  const known = alive.get(session)
  if (!known) {
    alive.set(session, { origin, labels: labelsOf(record) })
    return
  }
  if (origin.model && !known.origin.model) known.origin = origin
  known.labels ??= labelsOf(record)
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
 * @param alive - the sessions seen, with the origin and labels their records tell
 * @param events - the todo events, in order
 */
export function withActivity(
  reading: OtlpReading,
  alive: AliveSessions,
  events: ObservedEvent[]
): void {
  for (const [session, { origin, labels }] of alive) {
    reading.events.push({ kind: 'activity', target: { session }, what: 'otlp', origin, labels })
  }
  reading.events.push(...events)
}
