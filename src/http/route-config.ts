/**
 * @module http/route-config
 * What the routes declare alike: the route of an operation on one resource the path names, a
 * response with a JSON body, the 304 of a conditional GET. The problems are problem.ts
 * `problemResponses`.
 */
import { createRoute, type RouteConfig, type z } from '@hono/zod-openapi'

/** The schema of a route's path parameters. */
type PathParams = NonNullable<NonNullable<RouteConfig['request']>['params']>

/** What an operation on one resource declares: its route but the tag and the path parameters. */
type ResourceRouteConfig = Omit<RouteConfig, 'tags' | 'request'> & {
  request?: Omit<NonNullable<RouteConfig['request']>, 'params'>
}

/**
 * The route `resourceRoute` makes of `R`: its request with the path parameters `P`, its responses
 * with the problems `E`.
 */
type ResourceRoute<R extends ResourceRouteConfig, P extends PathParams, E> = Omit<
  R,
  'request' | 'responses'
> & {
  tags: string[]
  request: (R extends { request: infer Q } ? Q : unknown) & { params: P }
  responses: R['responses'] & E
}

/**
 * The route factory of the operations on one resource the path names (a session, a webhook):
 * each route is tagged `tag`, its path parameters `params` are validated beside the request's
 * other parts, and it declares the `problems` every operation on the resource may answer besides
 * its own.
 * @param tag - the operations' OpenAPI tag
 * @param params - the schema of the path parameters that name the resource
 * @param problems - the problem responses they all declare (`problemResponses`)
 */
export const resourceRoute =
  <P extends PathParams, E extends object = Record<never, never>>(
    tag: string,
    params: P,
    problems?: E
  ) =>
  <R extends ResourceRouteConfig>(config: R) => {
    const { method, path, request, responses, ...rest } = config
    // the tag where it stood in each route: the document's operations keep their key order
    const route = {
      method,
      path,
      tags: [tag],
      ...rest,
      request: { params, ...request },
      responses: { ...responses, ...problems },
    }
    // TS spreads generic parts into an object it cannot index: the type says what it holds
    return createRoute(route as ResourceRoute<R, P, E>)
  }

/** The 304 of a GET whose If-None-Match names the current entity tag. */
export const notModifiedResponse = { description: 'Not modified (If-None-Match)' }

/**
 * A response entry whose body is JSON of `schema`; the handler's answer is typed by it. Headers
 * (an `ETag`) go beside it: `{ ...jsonReply(…), headers }`.
 * @param description - what the response is
 * @param schema - the body's schema
 */
export const jsonReply = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
})
