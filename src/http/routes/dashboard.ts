/**
 * @module http/routes/dashboard
 * `GET /`: the live progress dashboard, and `GET /dashboard/<version>/<module>.js`: its script
 * modules. Neither needs a key (they hold no data); the page reads the `/v1` API with the key the
 * person enters.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import {
  DASHBOARD_CSP,
  DASHBOARD_MODULES,
  DASHBOARD_VERSION,
  dashboardHtml,
} from '../dashboard/page.js'
import { conditionMatches } from '../etag.js'
import { problem } from '../problem.js'
import { requestHeader } from '../route-input.js'

/**
 * Registers the dashboard page and its modules.
 * @param app - the app
 * @param deps - the stale threshold and the clock
 */
export function registerDashboardRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  app.get('/', (c) =>
    c.html(
      dashboardHtml({
        staleAfterMs: deps.staleAfterMs,
        serverNow: deps.now(),
        signIn: deps.signIn !== undefined,
      }),
      200,
      {
        'Content-Security-Policy': DASHBOARD_CSP,
        // the page carries the server's clock
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      }
    )
  )

  app.get('/dashboard/:version/:file', (c) => {
    const { version, file } = c.req.param()
    // own entries only; another version's modules are not kept (the page names the current one)
    const module = version === DASHBOARD_VERSION ? DASHBOARD_MODULES.get(file) : undefined
    if (!module) return problem(c, 'not-found', `No dashboard module '${version}/${file}'.`)
    const headers = {
      ETag: module.etag,
      // the path changes whenever any module does
      'Cache-Control': 'public, max-age=31536000, immutable',
    }
    const condition = requestHeader(c, 'if-none-match')
    if (condition && conditionMatches(condition, module.etag, true))
      return c.body(null, 304, headers)
    return c.body(module.source, 200, {
      ...headers,
      'Content-Type': 'text/javascript; charset=utf-8',
    })
  })
}
