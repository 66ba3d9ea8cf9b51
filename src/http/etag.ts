/**
 * @module http/etag
 * Version entity tags (`"<version>"`) and the conditional headers that name them.
 */

/** The entity tag of a version. */
export const versionTag = (version: number) => `"${version}"`

/**
 * Whether a conditional header (`If-Match`, `If-None-Match`) names the tag. `*` names any current
 * representation; `weak` comparison (If-None-Match, RFC 9110 §13.1.2) ignores a `W/` prefix,
 * strong comparison (If-Match, §13.1.1) does not.
 * @param header - the header's value
 * @param tag - the current tag, or null when there is no current representation
 * @param weak - weak comparison
 */
export function conditionMatches(header: string, tag: string | null, weak: boolean): boolean {
  if (tag === null) return false
  if (header.trim() === '*') return true
  return header.split(',').some((candidate) => {
    const trimmed = candidate.trim()
    return (weak ? trimmed.replace(/^W\//, '') : trimmed) === tag
  })
}
