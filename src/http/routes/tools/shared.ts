/**
 * @module http/routes/tools/shared
 * What the dialect and tool operations share.
 */

/** Their ETag: hono's etag() hashes the body (app.ts `ETAG_PATHS`). */
export const etagHeader = {
  ETag: { schema: { type: 'string' as const }, description: 'a hash of the body' },
}
