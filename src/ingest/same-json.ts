/**
 * @module ingest/same-json
 * Comparing what a session holds without serialising it.
 */

/**
 * Whether two JSON values (what a session holds) serialise alike: `JSON.stringify(a) ===
 * JSON.stringify(b)`, key order included and properties holding `undefined` skipped, without
 * building either text.
 * @param a - a JSON value
 * @param b - another
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false
    return true
  }
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  const keysA = Object.keys(x)
  const keysB = Object.keys(y)
  let j = 0
  for (const key of keysA) {
    if (x[key] === undefined) continue
    while (j < keysB.length && y[keysB[j]] === undefined) j++
    if (j === keysB.length || keysB[j] !== key || !sameJson(x[key], y[key])) return false
    j++
  }
  while (j < keysB.length && y[keysB[j]] === undefined) j++
  return j === keysB.length
}
