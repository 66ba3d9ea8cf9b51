/**
 * @module ingest/otlp/gemini
 * Gemini CLI's telemetry (`telemetry` settings, 0.61.0; reference/otel/gemini-cli-0.61.0): its
 * `gemini_cli.tool_call` log records of `write_todos` carry `function_args` (the call's input, as
 * indented JSON; only with `logPrompts: true`) and `success`, under `session.id`: session
 * `gemini:<session.id>`. The log has no call id: a record is the same call as another with the
 * same `event.timestamp` and arguments. The task tracker's tools (`tracker_*`, the
 * `gemini-tracker` dialect) are read from the `tool_call` spans, the only records holding what
 * they answered, their ids (`gemini-tracker.ts`); their logs only say the agent is alive.
 * Gemini's resource `service.version` is its Node.js version, so the agent's version stays unknown.
 */
import { digest } from '../body.js'
import type { ObservedEvent } from '../events.js'
import {
  flag,
  inOrder,
  json,
  newReading,
  noteSession,
  originOf,
  reject,
  text,
  withActivity,
  type AliveSessions,
  type OtlpReading,
} from './kit.js'
import { trackerEvent, trackerToolOf } from './gemini-tracker.js'
import type { OtlpRecord } from './normalize.js'

const TODO_TOOL = 'write_todos'

/**
 * Reads Gemini CLI's records of an export.
 * @param records - its log records and spans
 */
export function readGemini(records: OtlpRecord[]): OtlpReading {
  const reading = newReading()
  const alive: AliveSessions = new Map()
  const events: ObservedEvent[] = []
  for (const record of inOrder(records)) {
    const session = text(record, 'session.id') ?? text(record, 'gen_ai.conversation.id')
    const todo =
      record.kind === 'log' &&
      text(record, 'event.name') === 'gemini_cli.tool_call' &&
      text(record, 'function_name') === TODO_TOOL
    const tracker = trackerToolOf(record)
    if (!session) {
      if (todo || tracker) reject(reading, 'gemini_cli.tool_call without session.id')
      continue
    }
    const origin = originOf(record, 'gemini-cli')
    noteSession(alive, session, record, origin)
    if (tracker) {
      const event = trackerEvent(record, session, origin)
      if (typeof event === 'string') reject(reading, event)
      else events.push(event)
      continue
    }
    if (!todo) continue
    const args = text(record, 'function_args')
    const input = json(args)
    if (input === undefined) {
      reject(
        reading,
        'gemini_cli.tool_call of write_todos without function_args (telemetry.logPrompts is off)'
      )
      continue
    }
    events.push({
      kind: 'tool_result',
      target: { session },
      call_id: `otlp:${text(record, 'event.timestamp') ?? record.time}:${digest(input)}`,
      name: TODO_TOOL,
      input,
      is_error: flag(record, 'success') === false,
      telemetry: {},
      origin,
    })
  }
  withActivity(reading, alive, events)
  return reading
}
