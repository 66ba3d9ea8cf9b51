/**
 * @module http/routes/webhooks
 * Managing a tenant's webhooks (docs/alerts.md), one operation per file, `admin` only.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../../context.js'
import type { AppDeps } from '../../deps.js'
import { registerOperations } from '../../operation.js'
import { createWebhook } from './create.js'
import { deleteWebhook } from './delete.js'
import { listDeliveries } from './deliveries.js'
import { getWebhook } from './get.js'
import { listWebhooks } from './list.js'
import { rotateWebhook } from './rotate.js'
import { adminOnly, type WebhookRoutesDeps } from './shared.js'
import { testWebhook } from './test.js'

/**
 * Registers the webhook routes behind the `admin` rule.
 * @param app - the app
 * @param deps - the app's dependencies
 */
export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  const settings = deps.webhooks
  const routes: WebhookRoutesDeps = {
    app: deps,
    service: {
      alerts: deps.store.alerts,
      now: deps.now,
      allowPrivate: settings?.allowPrivate ?? false,
      maxPerTenant: settings?.maxPerTenant ?? 20,
      resolver: settings?.resolver,
      wake: settings?.wake,
    },
  }
  app.use('/v1/webhooks', adminOnly(deps))
  app.use('/v1/webhooks/*', adminOnly(deps))
  registerOperations(app, routes, [
    createWebhook,
    listWebhooks,
    getWebhook,
    deleteWebhook,
    testWebhook,
    rotateWebhook,
    listDeliveries,
  ])
}
