/**
 * @module ingest/stream-lines
 * What the parsers of the agents' JSONL / NDJSON output share: checking its lines, and the end of
 * a run that its result frame (or a failed turn) says. `ingest/parse-kit` holds what hooks and
 * streams share.
 */
import type { EndedOutcome } from '../core/session.js'
import { isRecord } from '../dialects/json.js'
import { IngestFormatError, type EndEvent, type ObservedEvent, type Target } from './events.js'

/** A line of an agent's stream, checked: an object told apart by its `type`. */
export type StreamLine = Record<string, unknown> & { type: string }

/**
 * Checks one line of an agent's JSONL / NDJSON stream: an object with a string `type`.
 * @param line - the line's value
 * @param index - its 0-based place in the body
 * @param what - what a line of this stream is, with its article (`a codex exec event`)
 * @throws IngestFormatError naming the line (counted from 1) and pointing at it (`/lines/<index>`)
 */
export function assertStreamLine(
  line: unknown,
  index: number,
  what: string
): asserts line is StreamLine {
  if (!isRecord(line) || typeof line.type !== 'string') {
    throw new IngestFormatError(
      `Line ${index + 1} is not ${what} (an object with a type).`,
      `/lines/${index}`
    )
  }
}

/**
 * The agent's own end of a run (a stream's result frame, a failed turn): its outcome, and the
 * subagents' lists end too.
 * @param target - the session
 * @param outcome - how the run went
 * @param detail - what the agent said of it
 * @param id - the frame's own id, when it has one (a second delivery of it changes nothing)
 */
export function runEnd(
  target: Target,
  outcome: EndedOutcome,
  detail: string | null,
  id?: string
): EndEvent {
  return { kind: 'session_end', target, id, outcome, detail, specific: true, all: true }
}

/**
 * Parses a stream whose every line is one event, in order. Only the line that opens the stream
 * names its session: the lines after it are of that session, and a later part of the stream (or
 * one that never names it) is the caller's `?session_id=`.
 * @param values - the lines
 * @param what - what a line of this stream is, with its article (`a codex exec event`)
 * @param sessionOf - the session a line names, if it is the one that does
 * @param eventOf - a checked line's event, for the session named so far
 * @throws IngestFormatError when a line is not an object with a `type`
 */
export function parseLines(
  values: readonly unknown[],
  what: string,
  sessionOf: (line: StreamLine) => string | undefined,
  eventOf: (line: StreamLine, main: Target) => ObservedEvent
): ObservedEvent[] {
  const events: ObservedEvent[] = []
  let session: string | undefined
  values.forEach((line, index) => {
    assertStreamLine(line, index, what)
    session = sessionOf(line) ?? session
    events.push(eventOf(line, { session }))
  })
  return events
}
