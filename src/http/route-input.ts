/**
 * @module http/route-input
 * Routes that zod-openapi documents but whose input the handler validates in one pass.
 *
 * `app.openapi()` validates each part of a request in its own async middleware: the path, the
 * headers (copying every request header into a record through undici's sorted `Headers`), a
 * content-type gate, then the JSON body, each with `safeParseAsync` and a hook. The rounds route is
 * the one every agent step calls, and that chain was a large part of its cost (the figures:
 * bench/README.md, "One validation pass on the rounds route"). `registerDocumented` keeps the
 * route's OpenAPI entry exactly as declared and serves it with a plain handler; `validInput`
 * validates the same parts with the same schemas, in the same order, with the same problems (400
 * `invalid-session-id` / `invalid-request`, `malformed-json`, 415).
 */
import type { IncomingMessage } from 'node:http'
import type { OpenAPIHono, RouteConfig, z } from '@hono/zod-openapi'
import type { Context, Handler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { AppEnv } from './context.js'
import type { RouteResponse } from './typed-response.js'
import {
  HONO_MALFORMED_JSON,
  invalidInput,
  MALFORMED_JSON_DETAIL,
  ServiceError,
} from './problem.js'

type HeaderSchema = z.ZodObject<Record<string, z.ZodType<string | undefined>>>

/** zod-openapi's test of a Content-Type against a declared `application/json` body. */
const JSON_CONTENT_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i
/** hono's test of the media type its JSON validator parses. */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

/**
 * Adds the route to the OpenAPI document as declared and serves it with `handler`, which
 * validates its own input (`validInput`) and answers what the route declares.
 * @param app - the app
 * @param route - the declared route (`createRoute`)
 * @param handler - the handler
 */
export function registerDocumented<R extends RouteConfig>(
  app: OpenAPIHono<AppEnv>,
  route: R,
  handler: (c: Context<AppEnv>) => RouteResponse<R> | Promise<RouteResponse<R>>
): void
export function registerDocumented(
  app: OpenAPIHono<AppEnv>,
  route: RouteConfig,
  handler: Handler<AppEnv>
): void {
  app.openAPIRegistry.registerPath(route)
  app.on(route.method.toUpperCase(), route.path.replaceAll(/\/{(.+?)}/g, '/:$1'), handler)
}

/**
 * The request's path parameters, declared headers and JSON body, each validated by its schema in
 * zod-openapi's order (path, headers, content type, body).
 * @param c - the request's context
 * @param parts - the schemas the route declares
 * @throws ServiceError `invalid-session-id` / `invalid-request` for a part that breaks its schema,
 *   `malformed-json` for a body that does not parse; HTTPException 415 for a body that is not JSON
 *   (hono's refusal, answered as zod-openapi's validator is)
 */
export async function validInput<P extends z.ZodType, B extends z.ZodType, H extends HeaderSchema>(
  c: Context,
  parts: { params: P; body: B; headers: H }
): Promise<{ param: z.infer<P>; json: z.infer<B>; header: z.infer<H> }> {
  const param = parts.params.safeParse(c.req.param())
  if (!param.success) throw invalidInput('param', param.error.issues)
  const header = validHeaders(c, parts.headers)
  const contentType = requestHeader(c, 'content-type')
  if (contentType ? !JSON_CONTENT_TYPE.test(contentType) : (await c.req.text()).length > 0) {
    throw new HTTPException(415, { message: 'Unsupported Media Type' })
  }
  let value: unknown = {}
  if (contentType && JSON_MEDIA_TYPE.test(contentType.split(';')[0].trim())) {
    try {
      value = await c.req.json()
    } catch {
      throw new ServiceError('malformed-json', MALFORMED_JSON_DETAIL, {
        errors: [{ pointer: '', detail: HONO_MALFORMED_JSON }],
      })
    }
  }
  const json = parts.body.safeParse(value)
  if (!json.success) throw invalidInput('json', json.error.issues)
  return { param: param.data, json: json.data, header }
}

/**
 * The declared headers of a request, validated by `schema` (names in lower case).
 * @param c - the request's context
 * @param schema - the object schema the route documents
 * @throws ServiceError `invalid-request` with a pointer per failing header
 */
export function validHeaders<S extends HeaderSchema>(c: Context, schema: S): z.infer<S> {
  const values: Record<string, string | undefined> = {}
  for (const name of Object.keys(schema.shape)) values[name] = requestHeader(c, name)
  const result = schema.safeParse(values)
  if (!result.success) throw invalidInput('header', result.error.issues)
  return result.data
}

/**
 * One request header. Under the Node server it is read from the parsed `IncomingMessage`, which
 * spares building a WHATWG `Headers` of the whole request (undici's, with its checks).
 * @param c - the request's context
 * @param name - the header's name in lower case
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  if (!incoming?.headers) return c.req.header(name)
  const value = incoming.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}
