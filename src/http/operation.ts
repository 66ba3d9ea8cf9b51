/**
 * @module http/operation
 * An API operation, one a file: its route and the handler typed by it, built from the
 * dependencies its resource's operations share, for `app.openapiRoutes`.
 */
import type { RouteConfig } from '@hono/zod-openapi'
import type { AppRouteHandler } from './typed-response.js'

/**
 * An operation of `route`: `handle` answers its requests, typed by the route as an
 * `AppRouteHandler<typeof route>` is, given the dependencies the operation is built from.
 * @param route - the route
 * @param handle - the handler, given the request's context and the dependencies
 */
export const operation =
  <R extends RouteConfig, D>(
    route: R,
    handle: (c: Parameters<AppRouteHandler<R>>[0], deps: D) => ReturnType<AppRouteHandler<R>>
  ) =>
  (deps: D): { route: R; handler: AppRouteHandler<R> } => ({
    route,
    handler: (c) => handle(c, deps),
  })
