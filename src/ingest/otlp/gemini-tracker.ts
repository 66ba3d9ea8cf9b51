/**
 * @module ingest/otlp/gemini-tracker
 * Gemini CLI's task tracker in its telemetry (reference/otel/gemini-cli-0.61.0/tracker): the
 * `tracker_*` calls' ids exist only in what the tool answered, which only the `tool_call` spans
 * carry (`telemetry.traces: true`): `gen_ai.input.messages` is the request (`args`),
 * `gen_ai.output.messages` the outcome (`status`, and the `functionResponse`'s `output`, e.g.
 * `Created task 02498b: …`), both JSON texts Gemini cuts at 10,000 characters, and
 * `gen_ai.tool.call_id` the call's id (the one its stream-json calls `tool_id`). The
 * `gemini_cli.tool_call` logs of these tools carry no output: they only say the agent is alive.
 */
import type { OriginHints } from '../../core/origin.js'
import { isRecord } from '../../dialects/json.js'
import type { ObservedEvent } from '../events.js'
import { json, text } from './kit.js'
import type { OtlpRecord } from './normalize.js'

/** The tracker's tools (the `gemini-tracker` dialect's). */
const TRACKER_TOOL = /^tracker_[a-z_]+$/

/** A JSON string literal after `"output":` (a cut output message is no longer JSON). */
const OUTPUT = /"functionResponse":\{.*?"response":\{"output":("(?:[^"\\]|\\.)*")/s
const STATUS = /^\{"status":"(\w+)"/

/**
 * The tracker tool a record is a span of, or undefined.
 * @param record - a log record or span
 */
export function trackerToolOf(record: OtlpRecord): string | undefined {
  if (record.kind !== 'span' || record.name !== 'tool_call') return undefined
  const tool = text(record, 'gen_ai.tool.name')
  return tool !== undefined && TRACKER_TOOL.test(tool) ? tool : undefined
}

/** The tool's answer: the `output` of its `functionResponse`, from the JSON or (cut) its text. */
function outputOf(message: unknown, raw: string): string | undefined {
  const parts =
    isRecord(message) && isRecord(message.response) ? message.response.responseParts : undefined
  if (Array.isArray(parts)) {
    for (const part of parts as unknown[]) {
      const response =
        isRecord(part) && isRecord(part.functionResponse)
          ? part.functionResponse.response
          : undefined
      if (isRecord(response) && typeof response.output === 'string') return response.output
    }
    return undefined
  }
  const literal = OUTPUT.exec(raw)?.[1]
  return literal === undefined ? undefined : (json(literal) as string)
}

/** The call's arguments: the request's `args`, in either message. */
function argsOf(input: unknown, output: unknown): unknown {
  if (isRecord(input) && isRecord(input.args)) return input.args
  if (isRecord(output) && isRecord(output.request) && isRecord(output.request.args)) {
    return output.request.args
  }
  return undefined
}

/**
 * The result event of a tracker call's span, or the reason it cannot be applied.
 * @param record - a `tool_call` span of a tracker tool (`trackerToolOf`)
 * @param session - its session (`session.id`)
 * @param origin - what it tells of the agent's origin
 */
export function trackerEvent(
  record: OtlpRecord,
  session: string,
  origin: OriginHints
): ObservedEvent | string {
  const tool = trackerToolOf(record)!
  const raw = text(record, 'gen_ai.output.messages') ?? ''
  const message = json(raw)
  const status = isRecord(message) ? message.status : STATUS.exec(raw)?.[1]
  const output = outputOf(message, raw)
  const input = argsOf(json(text(record, 'gen_ai.input.messages')), message)
  if (status === undefined || (status === 'success' && output === undefined)) {
    return `tool_call span of ${tool} without its output`
  }
  if (input === undefined) return `tool_call span of ${tool} without its arguments`
  const callId = text(record, 'gen_ai.tool.call_id')
  return {
    kind: 'tool_result',
    target: { session },
    call_id: callId ?? `otlp:span:${record.traceId}:${record.spanId}`,
    name: tool,
    input,
    is_error: status !== 'success',
    text: output,
    telemetry: {},
    origin,
  }
}
