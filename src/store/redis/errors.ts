/**
 * @module store/redis/errors
 * Which ioredis errors mean "Redis cannot be reached right now" (503) rather than a bug (500).
 */
import { StoreUnavailableError } from '../types.js'

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/** ioredis's own errors for a connection that is down, refusing, or not answering. */
const UNAVAILABLE_MESSAGES = [
  'Connection is closed',
  "Stream isn't writeable",
  'Command timed out',
  "Cluster isn't ready",
  'Cluster is disconnect',
  'None of startup nodes',
  'Too many Cluster redirections',
  'Node is disconnected',
  'Failed to refresh slots cache',
  'Socket timeout',
  'connect ETIMEDOUT',
]
/** Server replies that mean "not now" rather than "wrong". */
const UNAVAILABLE_REPLY = /^(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|BUSY)\b/
/**
 * Server replies that refuse writes while reads still work: out of memory under `noeviction`
 * (a write script is refused up front), a read-only replica after a failover, too few replicas,
 * a failing RDB save with `stop-writes-on-bgsave-error`.
 */
const WRITE_REFUSED_REPLY = /^(OOM|READONLY|NOREPLICAS|MISCONF)\b/

/**
 * Whether an ioredis error means Redis refuses writes for now (out of memory, read-only) while it
 * still answers reads.
 * @param error - what a command rejected with
 */
export function isWriteRefusal(error: unknown): boolean {
  return error instanceof Error && WRITE_REFUSED_REPLY.test(error.message)
}

/**
 * Whether an ioredis error means Redis cannot serve the command right now, unreachable or
 * refusing writes (as opposed to a script or logic error).
 * @param error - what a command rejected with
 */
export function isUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as NodeJS.ErrnoException).code
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    error.name === 'ClusterAllFailedError' ||
    (code !== undefined && UNAVAILABLE_CODES.has(code)) ||
    UNAVAILABLE_MESSAGES.some((message) => error.message.startsWith(message)) ||
    UNAVAILABLE_REPLY.test(error.message) ||
    isWriteRefusal(error)
  )
}

/**
 * Runs one Redis call, turning "cannot reach Redis" into StoreUnavailableError (write-only when
 * Redis refuses writes but answers reads); anything else (a script or logic error) is rethrown
 * as it is.
 * @param run - the call
 */
export async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (isWriteRefusal(error)) throw new StoreUnavailableError(error, true)
    throw isUnavailableError(error) ? new StoreUnavailableError(error) : error
  }
}
