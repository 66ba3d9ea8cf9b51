/**
 * @module ingest/otlp/codex
 * Codex CLI's telemetry (`[otel] exporter`, 0.171.0; reference/otel/codex-0.171.0): its
 * `codex.tool_result` log records of `update_plan` carry the call's `arguments` (the plan with
 * every status), `success` and `call_id`, under `conversation.id` (the thread id the hooks call
 * `session_id`): session `codex:<conversation.id>`. A failed call (`success: "false"`, the parse
 * error as `output`) changes nothing. Spans carry no arguments: they only say the agent is alive.
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
import type { OtlpRecord } from './normalize.js'

/**
 * Reads Codex's records of an export.
 * @param records - its log records and spans
 */
export function readCodex(records: OtlpRecord[]): OtlpReading {
  const reading = newReading()
  const alive: AliveSessions = new Map()
  const events: ObservedEvent[] = []
  for (const record of inOrder(records)) {
    const session = text(record, 'conversation.id')
    const plan =
      record.kind === 'log' &&
      text(record, 'event.name') === 'codex.tool_result' &&
      text(record, 'tool_name') === 'update_plan'
    if (!session) {
      if (plan) reject(reading, 'codex.tool_result without conversation.id')
      continue
    }
    const origin = originOf(record, 'codex', 'service.version')
    noteSession(alive, session, record, origin)
    if (!plan) continue
    const args = text(record, 'arguments')
    if (args === undefined) {
      reject(reading, 'codex.tool_result of update_plan without arguments')
      continue
    }
    const output = text(record, 'output')
    events.push({
      kind: 'tool_result',
      target: { session },
      call_id: text(record, 'call_id') ?? `otlp:${digest([args, text(record, 'event.timestamp')])}`,
      name: 'update_plan',
      input: json(args) ?? args,
      is_error: flag(record, 'success') === false,
      text: output,
      telemetry: {},
      origin,
    })
  }
  withActivity(reading, alive, events)
  return reading
}
