/**
 * @module http/route-headers
 * Request headers that a route documents in OpenAPI but validates itself.
 *
 * A `headers` schema in a zod-openapi route adds a validator that copies every request header
 * into a record (on Node, through undici's sorted `Headers` iteration) and parses it
 * asynchronously, for one optional header: about 16 µs of the 75 µs of CPU a round cost
 * (bench/README.md). `withoutHeaderValidator` keeps the route's document as declared and serves
 * it without that validator; the handler calls `validHeaders`, which reads only the declared
 * headers and validates them with the same schema, failing with the same 400 problem.
 */
import type { IncomingMessage } from 'node:http'
import type { OpenAPIHono, RouteConfig, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { fieldErrors, ProblemError } from './problem.js'

type ServedRoute<R extends RouteConfig> = Omit<R, 'request'> & {
  request: Omit<NonNullable<R['request']>, 'headers'>
  hide: true
}

type HeaderSchema = z.ZodObject<Record<string, z.ZodType<string | undefined>>>

/**
 * Registers the route's OpenAPI entry (with its headers) and returns the route to serve, without
 * the header validator.
 * @param app - the app whose document lists the route
 * @param route - a route whose `request.headers` is a zod object
 */
export function withoutHeaderValidator<R extends RouteConfig>(
  app: OpenAPIHono<any>,
  route: R
): ServedRoute<R> {
  app.openAPIRegistry.registerPath(route)
  const { headers: _documented, ...request } = route.request ?? {}
  return { ...route, request, hide: true } as ServedRoute<R>
}

/**
 * The declared headers of a request, validated by `schema` (names in lower case).
 * @param c - the request's context
 * @param schema - the same object schema the route documents
 * @throws ProblemError 400 `invalid-request` with a pointer per failing header
 */
export function validHeaders<S extends HeaderSchema>(c: Context, schema: S): z.infer<S> {
  const values: Record<string, string | undefined> = {}
  for (const name of Object.keys(schema.shape)) values[name] = requestHeader(c, name)
  const result = schema.safeParse(values)
  if (!result.success) {
    throw new ProblemError(
      400,
      'invalid-request',
      'The request header is invalid.',
      fieldErrors(result.error.issues, '/headers')
    )
  }
  return result.data
}

/**
 * One request header. Under the Node server it is read from the parsed `IncomingMessage`, which
 * spares building a WHATWG `Headers` of the whole request (undici's, with its checks) for a GET
 * that reads nothing else.
 * @param c - the request's context
 * @param name - the header's name in lower case
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  if (!incoming?.headers) return c.req.header(name)
  const value = incoming.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}
