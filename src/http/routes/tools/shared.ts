/**
 * @module http/routes/tools/shared
 * What the dialect and tool operations share: each is a GET of a body that only a deploy changes,
 * answered with its hash as ETag.
 */
import { createRoute, type RouteConfig, type z } from '@hono/zod-openapi'
import type { ProblemResponse } from '../../problem.js'
import { jsonReply, notModifiedResponse } from '../../route-config.js'

/** Their ETag: hono's etag() hashes the body (app.ts `ETAG_PATHS`). */
export const etagHeader = {
  ETag: { schema: { type: 'string' as const }, description: 'a hash of the body' },
}

/** The parts of a request a route validates. */
type RequestParts = NonNullable<RouteConfig['request']>

/** What a dialect or tool operation declares besides what `toolsRoute` fills in. */
interface ToolsRouteConfig<S extends z.ZodType, P, Q extends RequestParts> {
  path: string
  operationId: string
  summary: string
  /** The parameters it validates, if any. */
  request?: Q
  /** What the 200 is. */
  description: string
  /** The 200's body. */
  schema: S
  /** The problems it may answer (`problemResponses`). */
  problems: P
}

/**
 * The route of a dialect or tool operation: a GET tagged `tools` whose 200 is JSON of `schema`
 * with its ETag, and a 304 when If-None-Match names that ETag.
 * @param config - path, operation id, summary, parameters, the 200's description and schema,
 *   problems
 */
export function toolsRoute<
  S extends z.ZodType,
  P extends Record<number, ProblemResponse>,
  Q extends RequestParts = Record<never, never>,
>(config: ToolsRouteConfig<S, P, Q>) {
  const { path, operationId, summary, request, description, schema, problems } = config
  return createRoute({
    method: 'get',
    path,
    operationId,
    tags: ['tools'],
    summary,
    // Q is the empty default exactly when no parameters are given
    request: request ?? ({} as Q),
    responses: {
      200: { ...jsonReply(description, schema), headers: etagHeader },
      304: notModifiedResponse,
      ...problems,
    },
  })
}
