/**
 * @module store/postgres/faults
 * Which `pg` errors mean "PostgreSQL cannot serve this right now" (503 with Retry-After) rather
 * than a bug (500): an unreachable or restarting server, a full disk, a read-only standby.
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
  // SQLSTATE: the server is shutting down, crashed, or not accepting connections yet
  '57P01',
  '57P02',
  '57P03',
  // too many connections
  '53300',
])
/** SQLSTATE classes of a lost or refused connection (08) and of exhausted resources (53). */
const UNAVAILABLE_CLASSES = ['08', '53']
/** SQLSTATEs that refuse writes while reads still work: disk full, a read-only transaction. */
const WRITE_REFUSED_CODES = new Set(['53100', '25006'])
/** `pg`'s own messages for a connection that went away or never came. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection closed',
  'the PostgreSQL store is closed',
]

/** Whether a `pg` error means PostgreSQL refuses writes but may still answer reads. */
export function isPgWriteRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && WRITE_REFUSED_CODES.has(code)
}

/** Whether a `pg` error means PostgreSQL cannot be reached or cannot serve right now. */
export function isPgUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || WRITE_REFUSED_CODES.has(code)) return true
    if (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true
  }
  return UNAVAILABLE_MESSAGES.some((message) => error.message.includes(message))
}

/**
 * Runs one PostgreSQL call, turning "cannot reach PostgreSQL" into StoreUnavailableError
 * (write-only when it refuses writes); anything else is rethrown as it is.
 */
export async function pgGuarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (isPgWriteRefusal(error)) throw new StoreUnavailableError(error, true)
    throw isPgUnavailable(error) ? new StoreUnavailableError(error) : error
  }
}
