/**
 * @module ingest/applied-ids
 * The call ids an observed session has applied, kept as one string of fixed-width digests (the
 * last `MAX_APPLIED_IDS`, oldest first) so that a second delivery of a call applies nothing.
 *
 * Why digests in one string, and why 256: the record is read, parsed, serialised and written on
 * every delivery. 256 Claude ids (`toolu_01` + 22 characters) as a JSON array were about 8 KB of a
 * session otherwise near 1 KB; as digests they are 2 KB. Measured on the store alone (1,000 SQLite
 * sessions), 256 digests cost about 40 µs a write more than none, 64 about 10. 64 was too few:
 * a hook delivered again after 64 later todo calls (a forwarder's queue flushed late) applied its
 * old list over the newer one. The window holds what arrives again soon (retries, the hook and
 * the stream of one session, parallel hooks, a late replay within 255 later calls); a stream
 * posted again whole is recognised by its newest calls (`replayedCalls` in ingest/apply).
 * A digest is 48 bits of SHA-256: the chance that a new call matches one of 64 kept digests is
 * about 1 in 4 × 10^12, and a match only makes the agent's own call look like a retry.
 */
import { hash } from 'node:crypto'

/** Applied call ids a session keeps. */
export const MAX_APPLIED_IDS = 256
/** Characters of one digest (base64url, 6 bytes). */
export const APPLIED_DIGEST_CHARS = 8

/**
 * The digest under which an id is kept.
 * @param id - a call id (or a lifecycle event's own id)
 */
export function appliedDigestOf(id: string): string {
  return hash('sha256', id, 'base64url').slice(0, APPLIED_DIGEST_CHARS)
}

/**
 * The stored digests, from what a session holds: the string, or (sessions written before the
 * digests) the array of ids.
 */
function storedDigests(stored: unknown): string {
  if (typeof stored === 'string') return stored
  if (!Array.isArray(stored)) return ''
  return stored
    .slice(-MAX_APPLIED_IDS)
    .map((id) => (typeof id === 'string' ? appliedDigestOf(id) : ''))
    .join('')
}

/** The applied call ids of a session during one update. */
export class AppliedIds {
  private digests: string
  /** How much of `digests` was stored: searched as text; what this update adds is a set. */
  private readonly storedChars: number
  private readonly added = new Set<string>()
  // a call is looked up, then recorded: its digest is computed once
  private lastId: string | undefined
  private lastDigest = ''

  /** @param stored - the session's `observed.applied` */
  constructor(stored: unknown) {
    this.digests = storedDigests(stored)
    this.storedChars = this.digests.length
  }

  /** Whether the id was applied (before or during this update). */
  has(id: string): boolean {
    const digest = this.digestOf(id)
    // a long delivery adds thousands: a scan of those would make it quadratic
    if (this.added.has(digest)) return true
    const { digests, storedChars } = this
    // base64url digests of one width: a match counts only where a digest starts
    for (let at = digests.indexOf(digest); at !== -1; at = digests.indexOf(digest, at + 1)) {
      if (at + APPLIED_DIGEST_CHARS > storedChars) return false
      if (at % APPLIED_DIGEST_CHARS === 0) return true
    }
    return false
  }

  /** Records an applied id. */
  add(id: string): void {
    const digest = this.digestOf(id)
    this.added.add(digest)
    this.digests += digest
  }

  private digestOf(id: string): string {
    if (id !== this.lastId) {
      this.lastId = id
      this.lastDigest = appliedDigestOf(id)
    }
    return this.lastDigest
  }

  /** What the session keeps: the last `MAX_APPLIED_IDS` digests. */
  stored(): string {
    const cap = MAX_APPLIED_IDS * APPLIED_DIGEST_CHARS
    return this.digests.length > cap ? this.digests.slice(-cap) : this.digests
  }
}
