/**
 * @module http/routes/sessions/shared
 * What the session operations share: their dependencies, their route, the view response,
 * conditional requests by version.
 */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { Session, SessionKey } from '../../../core/session.js'
import type { ServiceDeps } from '../../../service/deps.js'
import type { AppDeps } from '../../deps.js'
import { conditionMatches, versionTag } from '../../etag.js'
import { stringifySliced } from '../../json-parts.js'
import { requestHeader } from '../../route-input.js'
import { jsonReply, resourceRoute } from '../../route-config.js'
import { SessionIdParam, SessionView } from '../../schemas.js'
import { emptyResponse, jsonResponse, serialised } from '../../typed-response.js'
import { sessionView } from '../../../service/views.js'

/** What a session operation's handler is built from. */
export interface SessionRoutesDeps {
  /** The app's dependencies. */
  app: AppDeps
  /** The use cases' dependencies. */
  service: ServiceDeps
}

export const etagHeader = {
  ETag: { schema: { type: 'string' as const }, description: '"<version>"' },
}

/** The 200 of an operation that answers the session. */
export const viewContent = (description: string) => ({
  ...jsonReply(description, SessionView),
  headers: etagHeader,
})

/** The route of an operation on the session its path names: tagged, `session_id` validated. */
export const sessionRoute = resourceRoute('sessions', SessionIdParam)

/** The entity tag of a session: its version. */
export const etagOf = (session: Session) => versionTag(session.version)

/** The session a request names, in its tenant. */
export const keyOf = (c: { get(key: 'tenant'): string }, sessionId: string): SessionKey => ({
  tenant: c.get('tenant'),
  sessionId,
})

/** Before this time, a session that has not changed is stale. */
export const staleBefore = (deps: AppDeps) => deps.now() - deps.staleAfterMs

/**
 * A 304 when If-None-Match names the current version (weak comparison, `*` included), before any
 * view is built; null otherwise. hono's etag() would build and serialise the body first.
 */
export function notModified(c: Context, etag: string) {
  const header = requestHeader(c, 'if-none-match')
  return header && conditionMatches(header, etag, true)
    ? emptyResponse(c, 304, { ETag: etag })
    : null
}

/**
 * A session view as the response, with its ETag: its items serialised a slice at a time.
 * @param c - the context
 * @param deps - the app's clock and staleness
 * @param session - the session
 */
export async function viewResponse(c: Context, deps: AppDeps, session: Session) {
  const view = sessionView(session, staleBefore(deps))
  const text = serialised<z.infer<typeof SessionView>>(await stringifySliced(view))
  return jsonResponse(c, text, 200, { ETag: etagOf(session) })
}
