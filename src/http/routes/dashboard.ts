/**
 * @module http/routes/dashboard
 * `GET /`: the live progress dashboard. The page itself needs no key (it holds no data); it reads
 * the `/v1` API with the key the person enters.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import { DASHBOARD_CSP, dashboardHtml } from '../dashboard/page.js'

/**
 * Registers the dashboard page.
 * @param app - the app
 * @param deps - the stale threshold and the clock
 */
export function registerDashboardRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  app.get('/', (c) =>
    c.html(dashboardHtml({ staleAfterMs: deps.staleAfterMs, serverNow: deps.now() }), 200, {
      'Content-Security-Policy': DASHBOARD_CSP,
      // the page carries the server's clock
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    })
  )
}
