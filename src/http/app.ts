/**
 * @module http/app
 * `createApp(deps)`: the whole HTTP API as a hono app, without a listening socket.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { etag } from 'hono/etag'
import { HTTPException } from 'hono/http-exception'
import { methodNotAllowed } from 'hono/method-not-allowed'
import { toServiceError } from '../service/error-map.js'
import { authenticate } from './auth.js'
import {
  registerSlackRoutes,
  SLACK_INTERACTIONS_PATH,
  SLACK_TENANT,
} from './routes/integrations/slack.js'
import { bodyLimit } from './body-limit.js'
import { limitsOf, type AppDeps } from './deps.js'
import { jsonDepthLimit, TOO_DEEP_DETAIL } from './json-depth.js'
import { tenantRateLimit } from './rate-limit.js'
import type { AppEnv } from './context.js'
import { requestLogger } from './logging.js'
import { responseHeaders } from './response-headers.js'
import { watchWrites } from './store-health.js'
import { createMetrics, instrumentStore } from './metrics.js'
import { perMessageRateLimit, SERVER_ERROR } from './mcp-guards.js'
import { originGuard } from './origin-guard.js'
import { offerWriteCharge } from './write-charge.js'
import { contentTypeGuard } from './content-type.js'
import { invalidInput, MALFORMED_JSON_DETAIL, problem, problemOf } from './problem.js'
import { documentSharedResponses } from './openapi-docs.js'
import { registerDashboardRoutes } from './routes/dashboard.js'
import { registerEventRoutes } from './routes/events/index.js'
import { registerIngestRoutes } from './routes/ingest.js'
import { registerMcpRoutes } from './routes/mcp.js'
import { registerOpsRoutes } from './routes/ops.js'
import { registerOtlpRoutes } from './routes/otlp.js'
import { registerRoundRoutes } from './routes/rounds.js'
import { registerSessionRoutes } from './routes/sessions/index.js'
import { registerToolRoutes } from './routes/tools/index.js'
import { registerWhoamiRoute } from './routes/whoami.js'
import { createPeople } from './people/index.js'
import { registerWebhookRoutes } from './routes/webhooks/index.js'

export const OPENAPI_CONFIG = {
  openapi: '3.1.0',
  info: {
    title: 'agent-todos',
    version: '1.0.0',
    description:
      "The todo / plan tool of LLM agent loops as a service: send your model's todo tool calls keyed by session, get back the exact tool-result text and a reminder flag.",
  },
  servers: [{ url: '/' }],
  security: [{ Bearer: [] }],
}

// A session, its rendering and its history set their own ETag ("<version>") and answer
// If-None-Match before building a body; hono's etag() there would only re-read the headers.
const ETAG_PATHS = ['/v1/dialects', '/v1/tools', '/v1/sessions']

/**
 * The problem answer of a failure: a service error, or an error of the layers below (dialects,
 * store), as its catalog code says (service/error-map `toServiceError`); a refusal hono made as
 * `malformed-json` (its JSON validator: a 400 without a response of its own) or `http-error` with
 * its status.
 */
function onError(error: Error, c: Context<AppEnv>): Response {
  const known = toServiceError(error)
  if (known) return problemOf(c, known)
  if (error instanceof HTTPException) {
    const status = error.status
    const headers: Record<string, string> = {}
    error.res?.headers.forEach((value, name) => {
      if (name !== 'content-type' && name !== 'content-length') headers[name] = value
    })
    // the one 400 hono throws without a response of its own: its validator's body that does
    // not parse as JSON (the rounds route checks its own body, route-input)
    if (status === 400 && !error.res) {
      return problem(c, 'malformed-json', MALFORMED_JSON_DETAIL, {
        errors: [{ pointer: '', detail: error.message }],
        headers,
      })
    }
    return problem(c, 'http-error', error.message || 'Request failed.', { status, headers })
  }
  c.get('logger')?.error({ err: error }, 'unhandled error')
  return problem(c, 'internal', 'An unexpected error occurred; it has been logged.')
}

/**
 * Builds the app.
 * @param deps - store, logger, keys and limits
 * @example
 * ```ts
 * const app = createApp(deps)
 * const res = await app.request('/v1/dialects')
 * ```
 */
export function createApp(appDeps: AppDeps) {
  const metrics = appDeps.metrics ?? createMetrics()
  const writes = watchWrites(instrumentStore(appDeps.store, metrics))
  const deps: AppDeps = {
    ...appDeps,
    store: writes.store,
    metrics,
    writeHealth: writes.health,
  }
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (result.success) return
      return problemOf(c, invalidInput(result.target, result.error.issues))
    },
  })

  // request id and security headers (hono's secureHeaders() defaults), cheaply on Node
  app.use(responseHeaders())
  app.use(async function closeWhileDraining(c, next) {
    // while draining, no connection is kept alive: clients reconnect to another instance
    if (deps.isDraining()) c.header('Connection', 'close')
    await next()
  })
  app.use(requestLogger(deps.logger))
  app.use(metrics.middleware.registerMetrics)
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        problem(c, 'method-not-allowed', `${c.req.method} is not allowed here.`, {
          headers: { Allow: methods.join(', ') },
        }),
    })
  )
  app.use(
    bodyLimit(deps.bodyLimitBytes, (c) =>
      problem(c, 'body-too-large', `The request body exceeds ${deps.bodyLimitBytes} bytes.`)
    )
  )
  if (deps.corsOrigins?.length) {
    app.use(
      cors({
        origin: deps.corsOrigins,
        allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
        allowHeaders: [
          'Authorization',
          'Content-Type',
          'If-Match',
          'If-None-Match',
          'Idempotency-Key',
          'Last-Event-ID',
          'X-Session-Id',
          'X-Dialect',
          'X-Flavour',
          'Mcp-Session-Id',
          'Mcp-Protocol-Version',
        ],
        exposeHeaders: [
          'ETag',
          'X-Request-Id',
          'Idempotent-Replayed',
          'Retry-After',
          'RateLimit',
          'RateLimit-Policy',
          'Mcp-Session-Id',
        ],
        maxAge: 600,
      })
    )
  }
  // the guard against foreign pages and DNS rebinding (MCP's rule, on every route) answers before
  // any key is looked at
  app.use(
    originGuard(
      {
        corsOrigins: deps.corsOrigins ?? [],
        allowedHosts: deps.allowedHosts ?? [],
        // open access: no keys and no sign-in (SPEC config HOST)
        openAccess: deps.keys.size === 0 && !deps.signIn,
      },
      (c, detail) =>
        c.req.path === '/mcp'
          ? c.json(
              { jsonrpc: '2.0', error: { code: SERVER_ERROR, message: detail }, id: null },
              403
            )
          : problem(c, 'foreign-origin', detail)
    )
  )
  // a body a browser may send without a preflight (text/plain, a form, none) is no ingest body;
  // the other body routes take only JSON already (their validators answer 415)
  app.use(
    '/v1/ingest/*',
    contentTypeGuard((c, detail) => problem(c, 'unsupported-media-type', detail))
  )
  // the same keys, tokens, sign-ins and tenants for the REST API and MCP; Slack's interactions
  // carry no key: they are verified by Slack's signature (routes/integrations)
  const people = createPeople(deps)
  const keyAuth = authenticate(deps.keys, { people: people.auth })
  const v1Auth: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (c.req.path !== SLACK_INTERACTIONS_PATH) return keyAuth(c, next)
    c.set('tenant', SLACK_TENANT)
    c.set('role', 'viewer')
    await next()
  }
  app.use('/v1/*', v1Auth)
  app.use(
    '/mcp',
    authenticate(deps.keys, { viewerWrites: 'let-route-decide', people: people.auth })
  )
  // one limiter per budget for both APIs: a tenant has one write budget and one read budget
  for (const [budget, perMinute] of [
    ['write', deps.rateLimitPerMinute],
    ['read', deps.readRateLimitPerMinute],
  ] as const) {
    if (!perMinute) continue
    const limiter = tenantRateLimit(budget, perMinute, appDeps.store.counters)
    app.use('/v1/*', limiter)
    // an ingest delivery spends one write per session and store update it makes
    if (budget === 'write') {
      app.use('/v1/ingest/*', offerWriteCharge(limiter))
      app.use('/v1/otlp/*', offerWriteCharge(limiter))
    }
    // a JSON-RPC batch spends one request per message
    app.use('/mcp', perMessageRateLimit(limiter, limitsOf(deps).maxToolCalls))
  }
  // before any route parses a body: nothing may recurse over one nested deeper than this
  app.use(
    '/v1/*',
    jsonDepthLimit((c) => problem(c, 'body-too-deep', TOO_DEEP_DETAIL))
  )
  app.use(
    '/mcp',
    jsonDepthLimit((c) =>
      c.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: TOO_DEEP_DETAIL } }, 400)
    )
  )
  // not on /events: the middleware would read a never-ending stream to hash it
  for (const path of ETAG_PATHS) app.use(path, etag())
  app.openAPIRegistry.registerComponent('securitySchemes', 'Bearer', {
    type: 'http',
    scheme: 'bearer',
  })

  registerToolRoutes(app)
  registerWhoamiRoute(app)
  registerRoundRoutes(app, deps)
  registerSessionRoutes(app, deps)
  registerEventRoutes(app, deps, metrics)
  registerIngestRoutes(app, deps, metrics)
  registerOtlpRoutes(app, deps, metrics)
  registerMcpRoutes(app, deps)
  registerWebhookRoutes(app, deps)
  registerSlackRoutes(app, deps)
  people.register(app)
  app.get('/metrics', metrics.middleware.printMetrics)
  documentSharedResponses(app.openAPIRegistry)

  let generated: string | undefined
  const document = () =>
    deps.openapiDocument ??
    (generated ??= JSON.stringify(app.getOpenAPI31Document(OPENAPI_CONFIG), null, 2) + '\n')
  registerOpsRoutes(app, deps, document)
  registerDashboardRoutes(app, deps)

  app.notFound((c) => problem(c, 'not-found', `No route for ${c.req.method} ${c.req.path}.`))
  app.onError(onError)
  return app
}

export type App = ReturnType<typeof createApp>
