/**
 * @module http/alerts
 * The alert worker as the server runs it: deliveries and sessions by state are counted in
 * `/metrics`. The payload's session summary is the listing's, built by the worker itself
 * (service/views `sessionSummary`, so alerts carry what listings carry, origin and labels included).
 */
import type { Logger } from 'pino'
import {
  createAlertWorker,
  type AlertWorker,
  type AlertWorkerOptions,
} from '../service/alert-worker.js'
import { watchSessionStates, type Metrics } from './metrics.js'

/** How often the worker's failures of one kind are logged at most. */
const ERROR_LOG_EVERY_MS = 30_000

/** The worker's options this module does not fill, with the metrics and the logger. */
export type AlertWiring = Omit<AlertWorkerOptions, 'onDelivery' | 'onError'> & {
  metrics: Metrics
  logger: Pick<Logger, 'warn'>
}

/**
 * Creates (not starts) the alert worker and the sessions-by-state gauge.
 * @param wiring - store, metrics, logger and the WEBHOOK_* settings
 */
export function createServerAlerts(wiring: AlertWiring): AlertWorker {
  const lastLogged = new Map<string, number>()
  const alerts = wiring.store.alerts
  if (alerts) {
    watchSessionStates(
      wiring.metrics,
      () => alerts.countStates(wiring.now() - wiring.staleAfterMs),
      wiring.now
    )
  }
  return createAlertWorker({
    ...wiring,
    onDelivery: (type, result) => wiring.metrics.webhookDeliveries.inc({ type, result }),
    // never the delivery's body or headers: no secret reaches the log; at most one line per
    // step every 30 s, so a store outage does not fill the log at the worker's pace
    onError: (error, what) => {
      const at = wiring.now()
      if (at - (lastLogged.get(what) ?? Number.NEGATIVE_INFINITY) < ERROR_LOG_EVERY_MS) return
      lastLogged.set(what, at)
      wiring.logger.warn({ err: error, what }, 'alert worker: a step failed and is retried')
    },
  })
}
