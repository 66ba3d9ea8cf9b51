/**
 * @module http/openapi-docs
 * What every documented route shares, added to its OpenAPI entry in one place so the document
 * says what the middleware does: an `operationId` where a route declares none, and the problems any `/v1` route can
 * answer before or around its handler (400 for a malformed Authorization header, 401, 405 with
 * `Allow`, 429 from the tenant rate limit with its headers, 503 when the store is unreachable or
 * the instance drains, 413 for a body over the limit; 415 where a JSON body is read), and the
 * `If-None-Match` request header of every route that documents a 304.
 */
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi'

type OpenAPIRegistry = OpenAPIHono['openAPIRegistry']
import { problemCodesOf, problemEntry, problemResponses } from './problem.js'
import { STATUS_TITLES } from '../service/errors.js'

/**
 * The operation id of a route that declares none (each route names its own, beside its
 * `createRoute`): one made of its method and path (`GET /v1/things/{id}` → `getV1ThingsById`), so
 * a new route is never left without one.
 * @param route - the route
 */
export function operationIdOf(route: Pick<RouteConfig, 'method' | 'path'>): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((part) => {
      const param = /^{(.+)}$/.exec(part)
      const word = (param ? `by_${param[1]}` : part).replace(
        /[^A-Za-z0-9]+(.)?/g,
        (_, c?: string) => (c ?? '').toUpperCase()
      )
      return word.charAt(0).toUpperCase() + word.slice(1)
    })
  return route.method.toLowerCase() + words.join('')
}

const rateLimitHeaders = {
  RateLimit: {
    schema: { type: 'string' as const },
    description: 'IETF draft-7 `limit=…, remaining=0, reset=…`',
  },
  'RateLimit-Policy': { schema: { type: 'string' as const }, description: '`<limit>;w=60`' },
  'Retry-After': { schema: { type: 'string' as const }, description: 'seconds' },
}

/**
 * The conditional GET's request header: the ETag middleware and the session routes read it, so
 * no route declares it, but a generated client only sends the parameters the document lists.
 */
const ifNoneMatch = {
  name: 'if-none-match',
  in: 'header' as const,
  required: false,
  schema: { type: 'string' as const },
  description:
    'The ETag of an earlier reply; while it still matches, the answer is 304 and no body',
}

/** The problems every `/v1` route can answer, with the headers that come with them. */
function commonResponses(): RouteConfig['responses'] {
  return {
    // a malformed Authorization header is `unauthorized` with hono's 400
    400: problemEntry('Bad Request: the request, or its Authorization header', ['unauthorized']),
    401: problemEntry(STATUS_TITLES[401], ['unauthorized']),
    405: {
      ...problemEntry('Method Not Allowed: the path exists with other methods', [
        'method-not-allowed',
      ]),
      headers: { Allow: { schema: { type: 'string' }, description: 'the methods it has' } },
    },
    // the body limit applies before routing, to any request that carries a body
    413: problemEntry(STATUS_TITLES[413], ['body-too-large']),
    429: {
      ...problemEntry("Too Many Requests: the tenant's RATE_LIMIT_PER_MINUTE budget is spent", [
        'rate-limited',
      ]),
      headers: rateLimitHeaders,
    },
    503: {
      ...problemEntry('Service Unavailable: the store is unreachable or the instance is draining', [
        'store-unavailable',
        'contention',
      ]),
      headers: { 'Retry-After': rateLimitHeaders['Retry-After'] },
    },
  }
}

/**
 * A route's own entry for a status the shared ones also have: the codes it names and the shared
 * codes it does not, under the status's title (an entry naming no code is kept as it is).
 */
function withSharedCodes(
  status: number,
  own: NonNullable<RouteConfig['responses'][number]>,
  shared: RouteConfig['responses'][number] | undefined
) {
  if ('$ref' in own || !shared || '$ref' in shared) return own
  const codes = problemCodesOf(own)
  if (!codes.length) return own
  const more = problemCodesOf(shared).filter((code) => !codes.includes(code))
  if (!more.length) return own
  const title = (STATUS_TITLES as Record<number, string>)[status] ?? own.description
  return { ...own, ...problemEntry(title, [...codes, ...more]) }
}

/**
 * Adds the shared parts to every route registered so far; a route's own entry for a status wins.
 * Call it after the routes are registered and before the document is generated.
 * @param registry - the app's OpenAPI registry
 */
export function documentSharedResponses(registry: OpenAPIRegistry): void {
  for (const definition of registry.definitions) {
    if (definition.type !== 'route') continue
    const route = definition.route
    route.operationId ??= operationIdOf(route)
    if (route.responses[304]) {
      const params = (route.parameters ??= [])
      // once, also when the document is generated again from the same registry
      if (!params.some((p) => 'name' in p && p.name === ifNoneMatch.name)) params.push(ifNoneMatch)
    }
    if (route.path.startsWith('/v1/')) {
      const body = route.request?.body ? problemResponses('unsupported-media-type') : {}
      const common = commonResponses()
      const own = { ...route.responses }
      // once, also when the document is generated again from the same registry
      for (const [status, entry] of Object.entries(own)) {
        own[status] = withSharedCodes(Number(status), entry, common[status])
      }
      route.responses = { ...common, ...body, ...own }
      // a route's own 405, 429 or 503 still carries the headers that come with it
      for (const status of [405, 429, 503] as const) {
        const own = route.responses[status]
        if (own && !('$ref' in own) && !own.headers) {
          const shared = common[status]
          route.responses[status] = {
            ...own,
            headers: shared && !('$ref' in shared) ? shared.headers : undefined,
          }
        }
      }
    }
  }
}
