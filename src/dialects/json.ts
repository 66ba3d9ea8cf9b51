/**
 * @module dialects/json
 * Shapes of parsed JSON that every dialect's lenient parser checks.
 */
import { jsonTooDeep, MAX_BODY_DEPTH } from '../core/limits.js'

/**
 * Whether a value is a plain JSON object (not null, not an array).
 * @param value - any value
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * `JSON.parse` of a JSON text found inside a request (a field a model sent as a string), which
 * the body's depth check did not see: a text nested deeper than `MAX_BODY_DEPTH` is refused like
 * a malformed one, so nothing downstream recurses over it without a bound.
 * @param text - the JSON text
 * @throws SyntaxError when the text is not JSON or is nested too deep
 */
export function parseJsonText(text: string): unknown {
  if (jsonTooDeep(text, MAX_BODY_DEPTH)) {
    throw new SyntaxError(`JSON nested more than ${MAX_BODY_DEPTH} levels deep`)
  }
  return JSON.parse(text)
}
