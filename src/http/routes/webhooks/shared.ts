/**
 * @module http/routes/webhooks/shared
 * What the webhook operations share: their dependencies, their route and the `admin` rule.
 */
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../context.js'
import type { AppDeps } from '../../deps.js'
import { problemResponses, ServiceError } from '../../problem.js'
import type { WebhookDeps } from '../../../service/webhooks.js'
import { resourceRoute } from '../../route-config.js'
import { WebhookIdParam } from './schemas.js'

/** What a webhook operation's handler is built from. */
export interface WebhookRoutesDeps {
  app: AppDeps
  service: WebhookDeps
}

/**
 * The route of an operation on the webhook its path names: tagged `webhooks`, `id` validated, and
 * its problems those of every such operation: a malformed id, no key, not admin, no such webhook.
 */
export const webhookRoute = resourceRoute(
  'webhooks',
  WebhookIdParam,
  problemResponses('invalid-session-id', 'unauthorized', 'forbidden', 'webhook-not-found')
)

/**
 * Managing webhooks takes the `admin` role; `agent` and `viewer` keys are refused (open access,
 * without keys, may).
 * @param deps - the app's dependencies (its key table)
 */
export const adminOnly =
  (deps: AppDeps): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (deps.keys.size > 0 && c.get('role') !== 'admin') {
      throw new ServiceError(
        'forbidden',
        `Managing webhooks takes a key of role admin (this key's role is ${c.get('role')}).`
      )
    }
    await next()
  }
