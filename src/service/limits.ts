/**
 * @module service/limits
 * The caps the use cases enforce: the list limits of core, and the service's own.
 */
import { DEFAULT_LIST_LIMITS, type ListLimits } from '../core/limits.js'

export interface ServiceLimits extends ListLimits {
  /** Tool calls in one round. */
  maxToolCalls: number
  /** Live sessions per tenant; 0 for no cap. */
  maxSessionsPerTenant: number
  /** Open event streams per tenant on one instance; 0 for no cap. */
  maxStreamsPerTenant: number
  /** Bytes an event stream's client may leave unread before it is dropped. */
  maxStreamBacklogBytes: number
}

export const DEFAULT_LIMITS: ServiceLimits = {
  ...DEFAULT_LIST_LIMITS,
  maxToolCalls: 128,
  maxSessionsPerTenant: 0,
  maxStreamsPerTenant: 100,
  maxStreamBacklogBytes: 4 * 1024 * 1024,
}

/**
 * The caps in force: the configured ones over the defaults.
 * @param deps - what holds the configured caps
 */
export function limitsOf(deps: { limits?: Partial<ServiceLimits> }): ServiceLimits {
  return { ...DEFAULT_LIMITS, ...deps.limits }
}
