/**
 * @module ingest/otlp/normalize
 * One shape for an OTLP export however it came: OTLP/JSON (hex trace ids, 64-bit integers as
 * strings, `intValue` strings, lowerCamelCase keys) or protobuf as protobufjs decodes it (byte
 * arrays, `Long` integers, the same camelCase names). Every log record and span becomes an
 * `OtlpRecord`: its resource's and its own attributes as plain JSON values, its time in ms.
 */
import { isRecord } from '../../dialects/json.js'
import { IngestFormatError } from '../events.js'

/** An attribute's value as plain JSON (`kvlistValue` an object, `bytesValue` base64). */
export type AttrValue =
  string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue }

/** Attributes by key. */
export type Attributes = Record<string, AttrValue>

/** One log record or span of an export. */
export interface OtlpRecord {
  kind: 'log' | 'span'
  /** Its position in the export (ties of time keep it). */
  index: number
  resource: Attributes
  /** The instrumentation scope's name. */
  scope: string
  /** A span's name; a log record's `eventName` field (the attribute `event.name` is in `attributes`). */
  name: string
  /** A log record's body when it is a string. */
  body?: string
  attributes: Attributes
  /** Epoch ms: a log record's time (its observed time when unset), a span's end. */
  time: number
  /** A span's start, epoch ms. */
  start?: number
  /** Hex, '' when absent. */
  traceId: string
  spanId: string
}

/** A normalised export: its records in the order they came, and how many. */
export interface OtlpExport {
  records: OtlpRecord[]
}

/** protobufjs' `Long` (or anything that prints as the number). */
const isLong = (value: unknown): value is { toNumber(): number } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { toNumber?: unknown }).toNumber === 'function'

/**
 * A 64-bit integer as a number: a JSON string or number, or a protobufjs Long.
 * @param value - the field
 */
export function int64(value: unknown): number {
  if (typeof value === 'number') return value
  if (typeof value === 'string') return value === '' ? 0 : Number(value)
  if (isLong(value)) return value.toNumber()
  return 0
}

const HEX = '0123456789abcdef'

/** Bytes as lower-case hex (trace and span ids); a JSON export's hex as it is. */
function hexOf(value: unknown): string {
  if (typeof value === 'string') return value.toLowerCase()
  if (!(value instanceof Uint8Array)) return ''
  let text = ''
  for (const byte of value) text += HEX[byte >> 4] + HEX[byte & 15]
  return text
}

/** Nanoseconds since the epoch as ms. */
const msOf = (nanos: unknown) => int64(nanos) / 1e6

/**
 * An `AnyValue` as plain JSON.
 * @param value - the AnyValue (JSON or decoded)
 */
export function anyValue(value: unknown): AttrValue {
  if (!isRecord(value)) return null
  // a decoded message keeps its unset fields' defaults on its prototype: only own fields are set
  const set = (field: string) => Object.hasOwn(value, field) && value[field] != null
  if (set('stringValue')) return String(value.stringValue)
  if (set('boolValue')) return value.boolValue === true
  if (set('intValue')) return int64(value.intValue)
  if (set('doubleValue')) return Number(value.doubleValue)
  if (set('arrayValue')) {
    const values = isRecord(value.arrayValue) ? value.arrayValue.values : undefined
    return Array.isArray(values) ? values.map(anyValue) : []
  }
  if (set('kvlistValue')) {
    const values = isRecord(value.kvlistValue) ? value.kvlistValue.values : undefined
    return attributesOf(values)
  }
  if (set('bytesValue')) {
    const bytes = value.bytesValue
    return bytes instanceof Uint8Array ? Buffer.from(bytes).toString('base64') : String(bytes)
  }
  return null
}

/**
 * `KeyValue`s as an object (a later key wins, as OTLP leaves duplicates undefined).
 * @param list - the repeated KeyValue
 */
export function attributesOf(list: unknown): Attributes {
  const attributes: Attributes = {}
  if (!Array.isArray(list)) return attributes
  for (const entry of list as unknown[]) {
    if (!isRecord(entry) || typeof entry.key !== 'string') continue
    attributes[entry.key] = anyValue(entry.value)
  }
  return attributes
}

/** A repeated field: absent is empty, anything but an array is not OTLP. */
function listAt(value: Record<string, unknown>, key: string, pointer: string): unknown[] {
  const list = value[key]
  if (list === undefined || list === null) return []
  if (!Array.isArray(list))
    throw new IngestFormatError(`${key} is not an array.`, `${pointer}/${key}`)
  return list
}

function objectAt(list: unknown[], i: number, pointer: string): Record<string, unknown> {
  const value = list[i]
  if (!isRecord(value)) throw new IngestFormatError('Not an object.', `${pointer}/${i}`)
  return value
}

type Level = { container: string; scoped: string; items: string }

const LEVELS: Record<'logs' | 'traces', Level> = {
  logs: { container: 'resourceLogs', scoped: 'scopeLogs', items: 'logRecords' },
  traces: { container: 'resourceSpans', scoped: 'scopeSpans', items: 'spans' },
}

function logRecord(
  value: Record<string, unknown>
): Omit<OtlpRecord, 'index' | 'resource' | 'scope'> {
  const time = msOf(value.timeUnixNano)
  const body = isRecord(value.body) ? anyValue(value.body) : null
  return {
    kind: 'log',
    name: typeof value.eventName === 'string' ? value.eventName : '',
    body: typeof body === 'string' ? body : undefined,
    attributes: attributesOf(value.attributes),
    // Codex's JSON logs say `timeUnixNano: "0"`: the observed time is the record's
    time: time > 0 ? time : msOf(value.observedTimeUnixNano),
    traceId: hexOf(value.traceId),
    spanId: hexOf(value.spanId),
  }
}

function span(value: Record<string, unknown>): Omit<OtlpRecord, 'index' | 'resource' | 'scope'> {
  return {
    kind: 'span',
    name: typeof value.name === 'string' ? value.name : '',
    attributes: attributesOf(value.attributes),
    time: msOf(value.endTimeUnixNano),
    start: msOf(value.startTimeUnixNano),
    traceId: hexOf(value.traceId),
    spanId: hexOf(value.spanId),
  }
}

/**
 * The records of a logs or traces export request (JSON as parsed, or protobuf as decoded).
 * @param signal - the route's signal
 * @param request - the export request
 * @throws IngestFormatError when it is not an export request of that signal
 */
export function normalizeExport(signal: 'logs' | 'traces', request: unknown): OtlpExport {
  if (!isRecord(request)) throw new IngestFormatError('An OTLP export request is an object.')
  const level = LEVELS[signal]
  const records: OtlpRecord[] = []
  const containers = listAt(request, level.container, '')
  for (let r = 0; r < containers.length; r++) {
    const container = objectAt(containers, r, `/${level.container}`)
    const at = `/${level.container}/${r}`
    const resource = isRecord(container.resource) ? attributesOf(container.resource.attributes) : {}
    const scopes = listAt(container, level.scoped, at)
    for (let s = 0; s < scopes.length; s++) {
      const scoped = objectAt(scopes, s, `${at}/${level.scoped}`)
      const scope =
        isRecord(scoped.scope) && typeof scoped.scope.name === 'string' ? scoped.scope.name : ''
      const items = listAt(scoped, level.items, `${at}/${level.scoped}/${s}`)
      for (let i = 0; i < items.length; i++) {
        const item = objectAt(items, i, `${at}/${level.scoped}/${s}/${level.items}`)
        const fields = signal === 'logs' ? logRecord(item) : span(item)
        records.push({ ...fields, index: records.length, resource, scope })
      }
    }
  }
  return { records }
}
