/**
 * @module core/ids
 * The formats of the ids the service accepts, one pattern each.
 */

/**
 * A session id, unanchored: for patterns that embed it (the list cursor). the session id pattern, docs/api.md
 * `[A-Za-z0-9._:-]`; `_` is taken too, because the agents' own ids that observed sessions are
 * named after carry it (opencode's and Kilo's `ses_…`, SPEC's `opencode:<sessionID>`), and it is
 * safe in a path segment, a header, a Redis key and the cursor.
 */
export const SESSION_ID_SOURCE = '[A-Za-z0-9][A-Za-z0-9._:_-]{0,127}'

/** A session id: a path segment, an MCP header, a cursor's second half. */
export const SESSION_ID_PATTERN = new RegExp(`^${SESSION_ID_SOURCE}$`)

/** A tenant, as `AUTH_KEYS` and `AUTH_KEYS_FILE` name it. */
export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** `REDIS_KEY_PREFIX`: no braces, so no prefix can change a key's Redis Cluster hash slot. */
export const KEY_PREFIX_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/
