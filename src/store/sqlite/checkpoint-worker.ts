/**
 * @module store/sqlite/checkpoint-worker
 * The thread that checkpoints the store's WAL (`checkpointer.ts` starts it and says why). It
 * sleeps until the store commits, lets frames gather for `intervalMs`, then copies them with
 * PASSIVE checkpoints on its own connection, and offers the store a last pass after which the WAL
 * starts over.
 */
import { workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import {
  CHECKPOINT_SLOTS,
  passiveCheckpoint,
  RESTART,
  type CheckpointWorkerData,
} from './checkpointer.js'

const { path, signal, intervalMs, restartFrames, synchronous } = workerData as CheckpointWorkerData
const slots = new Int32Array(signal)
const stopping = () => Atomics.load(slots, CHECKPOINT_SLOTS.stop) !== 0

/** Opens the thread's connection; a failure reaches the store as an Error with its code. */
function open(): Database.Database {
  try {
    return new Database(path, { fileMustExist: true, timeout: 1000 })
  } catch (error) {
    // a SqliteError crosses to the parent thread as its own properties only ({ code })
    const { message, code } = error as { message: string; code?: string }
    throw new Error(`cannot open ${path} for checkpoints: ${message}${code ? ` (${code})` : ''}`, {
      cause: error,
    })
  }
}

/**
 * Waits while the `restartDue` slot holds `state`, for at most `ms`.
 * @returns the state it holds now
 */
function waitWhile(state: number, ms: number): number {
  // a monotonic clock: a step of the wall clock does not stretch the wait
  const end = performance.now() + ms
  for (let now; (now = Atomics.load(slots, CHECKPOINT_SLOTS.restartDue)) === state;) {
    const left = end - performance.now()
    if (left <= 0 || stopping()) return now
    Atomics.wait(slots, CHECKPOINT_SLOTS.restartDue, state, left)
  }
  return Atomics.load(slots, CHECKPOINT_SLOTS.restartDue)
}

/**
 * The WAL is long and copied up to its last few frames: the store's writes wait while this
 * thread copies those (so that the event loop does not wait for their disk syncs), then the next
 * write starts the WAL over. When no write comes within `intervalMs` the offer is withdrawn.
 */
function restartWithStore() {
  Atomics.store(slots, CHECKPOINT_SLOTS.restartDue, RESTART.due)
  let state = waitWhile(RESTART.due, intervalMs)
  if (state === RESTART.due) {
    state = Atomics.compareExchange(slots, CHECKPOINT_SLOTS.restartDue, RESTART.due, RESTART.idle)
    // withdrawn; otherwise the store took it meanwhile, and waits for the last pass
    if (state === RESTART.due) return
  }
  try {
    checkpoint()
  } finally {
    Atomics.store(slots, CHECKPOINT_SLOTS.restartDue, RESTART.idle)
    Atomics.notify(slots, CHECKPOINT_SLOTS.restartDue)
  }
}

const db = open()
// as the store's connection (checkpoints sync the same at NORMAL and FULL)
db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
const checkpoint = () => passiveCheckpoint(db)
Atomics.store(slots, CHECKPOINT_SLOTS.ready, 1)
try {
  // from 0, not the count at start: commits made before the thread ran are checkpointed too
  let seen = 0
  /** Whether the last round copied every frame: then a long WAL is worth a round at once. */
  let caughtUp = false
  while (!stopping()) {
    Atomics.wait(slots, CHECKPOINT_SLOTS.commits, seen)
    if (stopping()) break
    // frames gather for a while, unless the WAL is long already (and no reader's open
    // transaction kept the last round from copying all of it: then waiting is as good)
    if (!caughtUp || Atomics.load(slots, CHECKPOINT_SLOTS.walFrames) < restartFrames) {
      Atomics.wait(slots, CHECKPOINT_SLOTS.stop, 0, intervalMs)
    }
    seen = Atomics.load(slots, CHECKPOINT_SLOTS.commits)
    try {
      let result = checkpoint()
      // before an offer of the last pass, a second one copies what was committed during the
      // first, so that little is left; a short WAL gets one (each pass syncs twice)
      if (result.busy === 0 && result.log >= restartFrames) result = checkpoint()
      Atomics.store(slots, CHECKPOINT_SLOTS.walFrames, Math.max(result.log, 0))
      caughtUp = result.busy === 0 && result.checkpointed === result.log
      Atomics.add(slots, CHECKPOINT_SLOTS.checkpoints, 1)
      if (result.busy === 0 && result.checkpointed === result.log && result.log >= restartFrames) {
        restartWithStore()
      }
    } catch {
      // a full, read-only or locked file: the next commit brings another try, and the store's
      // own auto-checkpoint bounds the WAL meanwhile
      Atomics.add(slots, CHECKPOINT_SLOTS.failures, 1)
    }
  }
} finally {
  db.close()
}
