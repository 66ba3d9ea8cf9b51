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
 * Managing webhooks takes the `admin` role; `agent` and `viewer` keys, tokens and sign-ins are
 * refused (open access, without keys or sign-in, may).
 * @param _deps - the app's dependencies (the caller's `via` says whether access is open)
 */
export const adminOnly =
  (_deps: AppDeps): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (c.get('via') !== 'open' && c.get('role') !== 'admin') {
      throw new ServiceError(
        'forbidden',
        `Managing webhooks takes a key of role admin (this key's role is ${c.get('role')}).`
      )
    }
    await next()
  }
