/**
 * @module http/operation
 * An API operation, one a file: its route (with its `operationId`) and the handler typed by it,
 * built from the dependencies its resource's operations share; `registerOperations` is the one
 * way a documented route is registered.
 */
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi'
import type { AppEnv } from './context.js'
import { registerDocumented } from './route-input.js'
import type { AppRouteHandler } from './typed-response.js'

/** A documented operation: its route, its handler, and who validates its input. */
export interface Operation<R extends RouteConfig = RouteConfig> {
  route: R
  handler: AppRouteHandler<R>
  /**
   * The handler validates its own input in one pass (route-input `validInput`, the hot rounds
   * route) or reads its body itself (ingest, OTLP): the route is documented as declared but served
   * without zod-openapi's validators.
   */
  validatesInput?: boolean
}

/** What an operation may say of itself besides its route and handler. */
export interface OperationOptions {
  /** See `Operation.validatesInput`. */
  validatesInput?: boolean
}

/**
 * An operation of `route`: `handle` answers its requests, typed by the route as an
 * `AppRouteHandler<typeof route>` is, given the dependencies the operation is built from.
 * @param route - the route
 * @param handle - the handler, given the request's context and the dependencies
 * @param options - whether the handler validates its own input
 */
export const operation =
  <R extends RouteConfig, D>(
    route: R,
    handle: (c: Parameters<AppRouteHandler<R>>[0], deps: D) => ReturnType<AppRouteHandler<R>>,
    options: OperationOptions = {}
  ) =>
  (deps: D): Operation<R> => ({
    route,
    handler: (c) => handle(c, deps),
    ...(options.validatesInput ? { validatesInput: true } : {}),
  })

/** An operation not yet given its dependencies. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each operation's own route type
export type OperationOf<D> = (deps: D) => Operation<any>

/**
 * Registers operations, in the OpenAPI document's order, each built from `deps`: zod-openapi
 * validates the input of each, but for those whose handler validates its own.
 * @param app - the app
 * @param deps - what the operations are built from
 * @param operations - the operations
 */
export function registerOperations<D>(
  app: OpenAPIHono<AppEnv>,
  deps: D,
  operations: readonly OperationOf<D>[]
): void {
  for (const op of operations.map((make) => make(deps))) {
    if (op.validatesInput) registerDocumented(app, op.route, op.handler)
    else app.openapiRoutes([op])
  }
}
