/**
 * @module ingest/body
 * The text of an ingest body as JSON values: one JSON document, or NDJSON (JSON Lines), as the
 * agents write their streams. Nesting is bounded before anything recursive touches the values.
 */
import { createHash } from 'node:crypto'
import { jsonTooDeep, MAX_BODY_DEPTH } from '../core/limits.js'
import { IngestFormatError } from './events.js'

/** A parsed body: one JSON document, or the values of its lines. */
export type ParsedBody = { kind: 'json'; value: unknown } | { kind: 'ndjson'; values: unknown[] }

/**
 * Parses a body as one JSON document, else as NDJSON (blank lines skipped).
 * @param text - the body
 * @throws IngestFormatError for an empty body, a line that is not JSON, or a body nested too deep
 */
export function parseBody(text: string): ParsedBody {
  if (text.trim() === '') throw new IngestFormatError('The body is empty.')
  let parsed: ParsedBody
  try {
    parsed = { kind: 'json', value: JSON.parse(text) }
  } catch {
    const values: unknown[] = []
    const lines = text.split('\n')
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim()
      if (line === '') continue
      try {
        values.push(JSON.parse(line))
      } catch (error) {
        throw new IngestFormatError(
          `Line ${i + 1} is not JSON: ${(error as Error).message}`,
          `/lines/${i}`
        )
      }
    }
    parsed = { kind: 'ndjson', values }
  }
  // the text parsed, so its bracket nesting is its values' nesting (each NDJSON line is balanced):
  // counted on the text without a walk over the values (usually by two native bracket counts)
  if (jsonTooDeep(text, MAX_BODY_DEPTH)) {
    throw new IngestFormatError(`The body nests deeper than ${MAX_BODY_DEPTH} levels.`)
  }
  return parsed
}

/**
 * The values of a body as a list: the lines of NDJSON, the elements of a JSON array, or the one
 * JSON document.
 * @param body - the parsed body
 */
export function valuesOf(body: ParsedBody): unknown[] {
  if (body.kind === 'ndjson') return body.values
  return Array.isArray(body.value) ? body.value : [body.value]
}

/**
 * A short stable digest of a JSON value, for events that carry no id of their own.
 * @param value - any JSON value (bounded depth)
 */
export function digest(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value) ?? 'undefined')
    .digest('base64url')
    .slice(0, 16)
}
