/**
 * @module http/content-type
 * The ingest routes read their body as text (one JSON document or NDJSON lines), so nothing
 * checked what the client said it sent. A browser sends `text/plain`, a form or a typeless blob
 * without a CORS preflight: refusing every type but JSON and NDJSON makes a page's request to the
 * service one that needs a preflight, which a foreign origin does not pass.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from './context.js'
import { requestHeader } from './route-input.js'

/** `application/json`, `application/<x>+json`, and the media types NDJSON / JSON Lines go by. */
const JSON_OR_NDJSON =
  /^application\/(?:(?:[\w.-]+\+)?json|x-ndjson|ndjson|jsonl|x-jsonl|jsonlines|x-jsonlines)$/i

/** Whether a request carries a body (a declared length above 0, or a chunked one). */
function hasBody(c: Context<AppEnv>): boolean {
  const length = requestHeader(c, 'content-length')
  if (length !== undefined) return Number(length) > 0
  if (requestHeader(c, 'transfer-encoding') !== undefined) return true
  // under Node a request with neither header has no body; a fetch Request (app.request) says so
  return (c.env as { incoming?: unknown } | undefined)?.incoming ? false : c.req.raw.body !== null
}

/**
 * Refuses (415) a request with a body whose `Content-Type` is neither JSON nor NDJSON, or absent.
 * @param refuse - answers the refusal
 */
export function contentTypeGuard(
  refuse: (c: Context<AppEnv>, detail: string) => Response
): MiddlewareHandler<AppEnv> {
  return async function contentType(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const type = requestHeader(c, 'content-type')
    const media = type?.split(';')[0].trim()
    if (media ? JSON_OR_NDJSON.test(media) : !hasBody(c)) return next()
    return refuse(
      c,
      `${media ? `Content-Type ${media}` : 'A body without a Content-Type'} is not accepted here: send application/json (one JSON document) or application/x-ndjson (one JSON value per line).`
    )
  }
}
