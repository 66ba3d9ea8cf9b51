/**
 * @module store/sqlite/group-commit
 * Every mutation is queued; the queue is flushed on `setImmediate` in one
 * `BEGIN IMMEDIATE … COMMIT`, each mutation inside its own SAVEPOINT, so one that throws undoes
 * only its own writes. Callers hear back (and the change feed speaks) only after COMMIT: nothing
 * is acknowledged that is not committed. One transaction per event-loop turn instead of one per
 * request is what makes `synchronous=FULL` affordable, and BEGIN IMMEDIATE keeps several
 * processes on one file serialised. A transaction carries at most `maxBatch` mutations and about
 * `maxBatchBytes` of what they write (the first always goes): the rest wait for the next turn,
 * after pending I/O, so a queue of the largest sessions' writes holds the event loop for one
 * transaction's bytes at a time, not for all of them.
 *
 * A batch whose transaction fails (disk full, read-only, I/O error) is rolled back whole and its
 * callers hear StoreUnavailableError; the connection stays usable, so writes come back by
 * themselves when the disk does.
 */
import type Database from 'better-sqlite3'
import type { ChangeEvent } from '../types.js'
import { asStoreError } from './faults.js'

/** What a mutation returns inside the batch. */
export interface OpResult {
  value: unknown
  /** Emitted after COMMIT. */
  event?: ChangeEvent
}

/** How soon held writes ask again whether they may go. */
const HOLD_RETRY_MS = 1

/** A mutation waiting for the next group commit. */
interface QueuedOp {
  /** Runs inside the batch's transaction; throws to undo only itself. */
  run: () => OpResult
  /** About how many bytes it writes (0 when unknown). */
  bytes: number
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export class StoreClosedError extends Error {
  constructor() {
    super('the SQLite store is closed')
    this.name = 'StoreClosedError'
  }
}

export interface GroupCommit {
  /**
   * Queues a mutation for the next group commit.
   * @param run - the mutation
   * @param bytes - about how many bytes it writes, which the batch's byte bound counts
   */
  enqueue<T>(run: () => OpResult, bytes?: number): Promise<T>
  /** Commits (and answers) everything queued, then refuses new mutations. */
  close(): void
}

/**
 * Creates the group commit of one connection.
 * @param db - the connection
 * @param options - most mutations in one transaction (the rest wait for the next turn), where
 *   committed change events go, who hears of each COMMIT, and whether writes must wait
 */
export function createGroupCommit(
  db: Database.Database,
  options: {
    maxBatch: number
    /** About how many bytes one transaction writes at most (its first mutation always goes). */
    maxBatchBytes?: number
    emit: (event: ChangeEvent) => void
    onCommit?: () => void
    /** True while writes must wait (the WAL is long); asked again every `HOLD_RETRY_MS`. */
    holdWrites?: () => boolean
  }
): GroupCommit {
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')
  const savepoint = db.prepare('SAVEPOINT op')
  const release = db.prepare('RELEASE op')
  const rollbackTo = db.prepare('ROLLBACK TO op')

  let queue: QueuedOp[] = []
  let scheduled = false
  let closed = false

  const maxBytes = options.maxBatchBytes ?? Infinity

  /** How many queued mutations the next transaction takes: by count and by bytes. */
  const batchSize = () => {
    const most = Math.min(queue.length, options.maxBatch)
    let bytes = queue[0].bytes
    let size = 1
    while (size < most && bytes + queue[size].bytes <= maxBytes) bytes += queue[size++].bytes
    return size
  }

  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(flush)
  }

  /**
   * Runs one batch of queued mutations in one transaction; settles each after COMMIT.
   * @param force - run it even while writes are held (on close)
   */
  function flush(force = false) {
    if (!force && queue.length > 0 && options.holdWrites?.()) {
      // still scheduled: what is enqueued meanwhile joins this batch
      setTimeout(flush, HOLD_RETRY_MS)
      return
    }
    scheduled = false
    if (queue.length === 0) return
    let batch = queue
    const size = batchSize()
    if (queue.length > size) {
      batch = queue.slice(0, size)
      queue = queue.slice(size)
      schedule()
    } else {
      queue = []
    }
    if (!db.open) {
      for (const op of batch) op.reject(new StoreClosedError())
      return
    }
    const results = new Array<OpResult | undefined>(batch.length)
    const errors: unknown[] = new Array(batch.length)
    try {
      begin.run()
      for (let i = 0; i < batch.length; i++) {
        savepoint.run()
        try {
          results[i] = batch[i].run()
          release.run()
        } catch (error) {
          errors[i] = error
          // an error that ended the whole transaction (e.g. disk full) fails the batch below
          if (!db.inTransaction) throw error
          rollbackTo.run()
          release.run()
        }
      }
      commit.run()
    } catch (error) {
      if (db.inTransaction) {
        try {
          rollback.run()
        } catch {
          // the transaction is gone either way
        }
      }
      for (let i = 0; i < batch.length; i++) batch[i].reject(asStoreError(errors[i] ?? error, true))
      return
    }
    // after the try: what it does (a checkpoint) cannot fail a batch that committed
    options.onCommit?.()
    for (let i = 0; i < batch.length; i++) {
      const result = results[i]
      if (result?.event) options.emit(result.event)
    }
    for (let i = 0; i < batch.length; i++) {
      const result = results[i]
      if (result) batch[i].resolve(result.value)
      else batch[i].reject(asStoreError(errors[i], true))
    }
  }

  return {
    enqueue<T>(run: () => OpResult, bytes = 0): Promise<T> {
      if (closed) return Promise.reject(new StoreClosedError())
      return new Promise<T>((resolve, reject) => {
        queue.push({ run, bytes, resolve: resolve as (value: unknown) => void, reject })
        schedule()
      })
    },
    close() {
      closed = true
      while (queue.length > 0) flush(true)
    },
  }
}
