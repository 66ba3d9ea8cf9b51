/**
 * What the OTLP tests share: the captures of test/fixtures/otel/ (real exports of Claude Code,
 * Codex and Gemini CLI, as OTLP/JSON with protobuf decoded), each request posted to the app as
 * JSON or encoded back to protobuf with the same definitions the service decodes with.
 */
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { OTLP_MESSAGES, type OtlpSignal } from '../src/ingest/otlp/proto.js'
import type { TestApp } from './helpers.js'

const OTEL = new URL('./fixtures/otel/', import.meta.url)

/** One request of a capture. */
export interface CapturedRequest {
  seq: number
  signal: OtlpSignal
  body: Record<string, unknown>
}

/**
 * The requests of a capture, in the order the agent sent them.
 * @param capture - `<agent>-<version>/<scenario>`
 */
export function capture(capture: string): CapturedRequest[] {
  return readFileSync(new URL(`${capture}/otlp.ndjson`, OTEL), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as CapturedRequest)
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId'])

/** OTLP/JSON as protobufjs' `fromObject` takes it: hex ids as bytes (the rest it converts). */
function protoObject(value: unknown, key = ''): unknown {
  if (typeof value === 'string' && ID_FIELDS.has(key)) return Buffer.from(value, 'hex')
  if (Array.isArray(value)) return value.map((entry) => protoObject(entry))
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, protoObject(v, k)]))
  }
  return value
}

/**
 * An OTLP/JSON export request encoded as protobuf (the captures hold the decoded JSON only).
 * @param signal - its signal
 * @param body - the request as OTLP/JSON
 */
export function toProtobuf(signal: OtlpSignal, body: unknown): Uint8Array {
  const type = OTLP_MESSAGES[signal].request
  return type.encode(type.fromObject(protoObject(body) as Record<string, unknown>)).finish()
}

/** How a test posts an export. */
export interface PostOptions {
  encoding?: 'json' | 'protobuf'
  gzip?: boolean
  headers?: Record<string, string>
}

/**
 * Posts one export request to `/v1/otlp/v1/<signal>`.
 * @param t - the app
 * @param signal - the signal
 * @param body - OTLP/JSON (encoded as asked), or bytes sent as they are
 * @param options - encoding, gzip, headers
 */
export async function postOtlp(
  t: TestApp,
  signal: OtlpSignal,
  body: unknown,
  { encoding = 'json', gzip = false, headers = {} }: PostOptions = {}
): Promise<Response> {
  let bytes: Uint8Array =
    body instanceof Uint8Array
      ? body
      : encoding === 'protobuf'
        ? toProtobuf(signal, body)
        : Buffer.from(JSON.stringify(body))
  if (gzip) bytes = gzipSync(bytes)
  return t.app.request(`/v1/otlp/v1/${signal}`, {
    method: 'POST',
    headers: {
      'Content-Type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      ...headers,
    },
    body: new Uint8Array(bytes),
  })
}

/**
 * Posts every request of a capture, in order; each must be accepted.
 * @param t - the app
 * @param name - the capture
 * @param options - how to post
 * @returns the export responses' JSON bodies (protobuf ones decoded)
 */
export async function replay(t: TestApp, name: string, options: PostOptions = {}) {
  const replies: Record<string, unknown>[] = []
  for (const request of capture(name)) {
    const res = await postOtlp(t, request.signal, request.body, options)
    if (res.status !== 200)
      throw new Error(`${name} #${request.seq}: ${res.status} ${await res.text()}`)
    const bytes = new Uint8Array(await res.arrayBuffer())
    replies.push(
      options.encoding === 'protobuf'
        ? (OTLP_MESSAGES[request.signal].response.decode(bytes) as Record<string, unknown>)
        : JSON.parse(new TextDecoder().decode(bytes))
    )
  }
  return replies
}
