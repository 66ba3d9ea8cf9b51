/**
 * @module http/logging
 * One log line per request, with a per-request child logger for handlers.
 */
import type { MiddlewareHandler } from 'hono'
import { routePath } from 'hono/route'
import type { Logger } from 'pino'
import type { AppEnv } from './context.js'

/**
 * Logs each request once it is answered: request id, method, route pattern (never the raw path,
 * which holds session ids), status and duration.
 * @param root - the root logger
 */
export function requestLogger(root: Logger): MiddlewareHandler<AppEnv> {
  return async function requestLogger(c, next) {
    const start = performance.now()
    if (!root.isLevelEnabled('info')) {
      // request lines are info: skip the per-request child logger, log only failures
      c.set('logger', root)
      await next()
      if (c.res.status >= 500) {
        root.error(
          {
            req_id: c.get('requestId'),
            method: c.req.method,
            route: routePath(c, -1),
            status: c.res.status,
          },
          'request'
        )
      }
      return
    }
    const logger = root.child({ req_id: c.get('requestId') })
    c.set('logger', logger)
    await next()
    const status = c.res.status
    const line = {
      method: c.req.method,
      route: routePath(c, -1),
      status,
      ms: Math.round((performance.now() - start) * 100) / 100,
    }
    if (status >= 500) logger.error(line, 'request')
    else logger.info(line, 'request')
  }
}
