/**
 * @module dialects/json
 * Shapes of parsed JSON that every dialect's lenient parser checks.
 */

/**
 * Whether a value is a plain JSON object (not null, not an array).
 * @param value - any value
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
