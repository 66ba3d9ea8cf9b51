/**
 * @module http/typed-response
 * Handlers typed by their routes, and JSON answers sent as text without losing that typing.
 *
 * A handler is an `AppRouteHandler<typeof route>` (the hono OpenAPI starter's): its input and
 * its responses are the route's. The routes that answer large JSON serialise it themselves (a
 * slice at a time, or assembled from stored text) instead of `c.json`, so their text carries the
 * type it serialises (`JsonText<T>`) and `jsonResponse` answers it typed as `c.json` would: a
 * response that is not the route's does not compile.
 */
import type { RouteConfig, RouteConfigToTypedResponse, RouteHandler } from '@hono/zod-openapi'
import type { Context, TypedResponse } from 'hono'
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status'
import type { JSONParsed } from 'hono/utils/types'
import type { AppEnv } from './context.js'
import { textBody } from './json-parts.js'

/** What a handler of the route may answer: one of the responses it declares, and only those. */
export type RouteResponse<R extends RouteConfig> = RouteConfigToTypedResponse<R>

/**
 * A route's handler: its input and responses typed by the route's declaration. Stricter than
 * zod-openapi's `RouteHandler`, which lets a route with any response without content (a 304, a
 * 204) answer any untyped `Response`.
 */
export type AppRouteHandler<R extends RouteConfig> = (
  c: Parameters<RouteHandler<R, AppEnv>>[0]
) => RouteResponse<R> | Promise<RouteResponse<R>>

declare const serialises: unique symbol

/** JSON text that is the serialisation of a `T`. */
export type JsonText<T> = string & { readonly [serialises]: T }

/**
 * `JSON.stringify(value)`, its type kept.
 * @param value - a JSON value
 */
export const jsonText = <T>(value: T): JsonText<T> => JSON.stringify(value) as JsonText<T>

/**
 * Text serialised by other means (a slice at a time, or assembled from stored text) that the
 * caller vouches is a `T`'s serialisation: the one place such a claim is made, at its producer.
 * @param text - the JSON text
 */
export const serialised = <T>(text: string): JsonText<T> => text as JsonText<T>

/**
 * A response without a body (204, 304), typed as a route declares one: hono types an empty body
 * as `null`, zod-openapi a response without content as `{}`.
 * @param c - the context
 * @param status - the status
 * @param headers - its headers (`ETag`)
 */
export function emptyResponse<S extends StatusCode>(
  c: Context,
  status: S,
  headers?: Record<string, string>
): Response & TypedResponse<Record<never, never>, S, string> {
  const response: Response = c.body(null, status, headers)
  return response as Response & TypedResponse<Record<never, never>, S, string>
}

/**
 * A JSON response of text already serialised, typed as `c.json(value, status)` would be; a long
 * text is streamed a piece at a time (json-parts `textBody`).
 * @param c - the context
 * @param text - the body
 * @param status - the status
 * @param headers - more headers (`ETag`, `Idempotent-Replayed`)
 */
export function jsonResponse<T, S extends ContentfulStatusCode>(
  c: Context,
  text: JsonText<T>,
  status: S,
  headers?: Record<string, string>
): Response & TypedResponse<JSONParsed<T>, S, 'json'> {
  const all = headers
    ? { 'Content-Type': 'application/json', ...headers }
    : { 'Content-Type': 'application/json' }
  const response: Response = c.body(textBody(text), status, all)
  // what c.json(value, status) would be typed: the body is T's serialisation (JsonText)
  return response as Response & TypedResponse<JSONParsed<T>, S, 'json'>
}
