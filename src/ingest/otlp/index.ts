/**
 * @module ingest/otlp
 * OpenTelemetry exports of the agents that run their own todo tools (docs/otel.md,
 * docs/otel.md): a logs or traces export request, OTLP/JSON or protobuf, normalised to one shape
 * (`normalize`), its records sorted out by agent (the resource's `service.name`, else the scope
 * or the event's prefix) and read into the `ObservedEvent`s hooks would give (`claude`, `codex`,
 * `gemini`). Records of other services are accepted and ignored.
 */
import { IngestFormatError } from '../events.js'
import { readClaude } from './claude.js'
import { readCodex } from './codex.js'
import { readGemini } from './gemini.js'
import type { OtlpReading } from './kit.js'
import { normalizeExport, type OtlpRecord } from './normalize.js'
import { decodeExport, type OtlpSignal } from './proto.js'

export type { OtlpReading } from './kit.js'
export { encodeResponse, type OtlpSignal } from './proto.js'

/** The agent families whose telemetry the service reads. */
export const OTLP_FAMILIES = ['claude', 'codex', 'gemini'] as const
export type OtlpFamily = (typeof OTLP_FAMILIES)[number]

const READERS: Record<OtlpFamily, (records: OtlpRecord[]) => OtlpReading> = {
  claude: readClaude,
  codex: readCodex,
  gemini: readGemini,
}

/**
 * The agent a record is from, or undefined for another service.
 * @param record - the record
 */
export function familyOf(record: OtlpRecord): OtlpFamily | undefined {
  const service = record.resource['service.name']
  if (service === 'claude-code') return 'claude'
  if (service === 'gemini-cli') return 'gemini'
  if (typeof service === 'string' && service.startsWith('codex')) return 'codex'
  const event = record.attributes['event.name']
  const scope = record.scope
  if (scope.startsWith('com.anthropic.claude_code')) return 'claude'
  if (scope.startsWith('codex')) return 'codex'
  if (typeof event === 'string') {
    if (event.startsWith('codex.')) return 'codex'
    if (event.startsWith('gemini_cli.')) return 'gemini'
  }
  return undefined
}

/** What an export holds: each agent's reading, and how many records it had. */
export interface OtlpParsed {
  readings: Map<OtlpFamily, OtlpReading>
  records: number
}

/**
 * Decodes and reads an export request.
 * @param signal - `logs` or `traces`
 * @param body - the request: protobuf bytes, or OTLP/JSON already parsed
 * @throws IngestFormatError when it is not an export request of that signal
 */
export function parseOtlp(
  signal: Exclude<OtlpSignal, 'metrics'>,
  body: { kind: 'protobuf'; bytes: Uint8Array } | { kind: 'json'; value: unknown }
): OtlpParsed {
  let request = body.kind === 'json' ? body.value : undefined
  if (body.kind === 'protobuf') {
    try {
      request = decodeExport(signal, body.bytes)
    } catch (error) {
      throw new IngestFormatError(
        `Not an OTLP ${signal} export request: ${(error as Error).message}`
      )
    }
  }
  const { records } = normalizeExport(signal, request)
  const byFamily = new Map<OtlpFamily, OtlpRecord[]>()
  for (const record of records) {
    const family = familyOf(record)
    if (family === undefined) continue
    let list = byFamily.get(family)
    if (!list) byFamily.set(family, (list = []))
    list.push(record)
  }
  const readings = new Map<OtlpFamily, OtlpReading>()
  for (const [family, list] of byFamily) readings.set(family, READERS[family](list))
  return { readings, records: records.length }
}
