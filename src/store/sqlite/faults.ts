/**
 * @module store/sqlite/faults
 * Which SQLite errors are the storage failing (503, retry later) rather than a bug (500).
 */
import Database from 'better-sqlite3'
import { StoreUnavailableError } from '../types.js'

/**
 * Primary result codes of a file or disk that cannot serve: full, read-only, corrupt, not a
 * database, I/O errors, cannot open, locked by another process beyond the busy timeout, out of
 * memory. Extended codes (`SQLITE_IOERR_WRITE`, `SQLITE_READONLY_DBMOVED`, …) count with their
 * primary one.
 */
const FAULTS = new Set([
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_BUSY',
  'SQLITE_NOMEM',
  'SQLITE_PROTOCOL',
])

/** Whether an error is the storage failing. */
export function isStoreFault(error: unknown): error is InstanceType<typeof Database.SqliteError> {
  if (!(error instanceof Database.SqliteError)) return false
  const code = error.code
  const underscore = code.indexOf('_', 'SQLITE_'.length)
  return FAULTS.has(underscore === -1 ? code : code.slice(0, underscore))
}

/**
 * The error a caller hears: a storage fault becomes StoreUnavailableError, anything else (an
 * updater's refusal, a constraint, a bug) is returned as it is.
 * @param error - what a statement threw
 * @param writeOnly - true on the write path: reads may still work
 */
export function asStoreError(error: unknown, writeOnly: boolean): unknown {
  return isStoreFault(error) ? new StoreUnavailableError(error, writeOnly) : error
}
