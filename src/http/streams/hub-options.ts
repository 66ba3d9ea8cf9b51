/**
 * @module http/streams/hub-options
 * What the event hub is made with, and hands on to its topics (its own module, so the topics
 * read it without importing the hub that imports them).
 */
import type { Logger } from 'pino'
import type { SessionStore } from '../../store/types.js'
import type { Metrics } from '../metrics.js'

export interface EventHubOptions {
  store: SessionStore
  logger: Logger
  metrics: Metrics
  now: () => number
  staleAfterMs: number
  historyLimit: number
  heartbeatMs: number
  /**
   * Changes are gathered this long before they go out: a session that changed several times
   * in a window is read once (a tenant stream sends its latest summary; a session stream every
   * version), and each stream gets one chunk. Default 100 ms.
   */
  flushMs?: number
  /**
   * What one topic may write to its streams per second, counting each write as its bytes plus
   * 4 KiB (the syscall): past it, the next window is longer, so that a tenant written to very
   * fast with many viewers costs its viewers freshness instead of costing its writers
   * throughput. Default 64 MiB/s.
   */
  fanoutBytesPerSecond?: number
  /** Open streams per tenant on this instance; 0 for no cap. */
  maxStreamsPerTenant: number
  /** Unsent bytes per stream before its client is dropped. */
  maxBacklogBytes: number
  /** Aborted at shutdown: every stream closes. */
  shutdownSignal?: AbortSignal
}
