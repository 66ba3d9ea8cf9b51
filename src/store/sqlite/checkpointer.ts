/**
 * @module store/sqlite/checkpointer
 * WAL checkpoints off the event loop. better-sqlite3 runs SQLite on the calling thread, so the
 * auto-checkpoint (from 1,000 WAL pages: a copy of every frame not yet copied into the database and, at
 * `synchronous=NORMAL`, an fsync of the WAL and one of the database) ran inside the COMMIT that
 * crossed the threshold, and every request queued behind it waited for the disk. That stall was
 * in every SQLite p99 (bench/results.md, "WAL checkpoints in a thread").
 *
 * A worker thread with its own connection copies the frames instead (`checkpoint-worker.ts`),
 * with PASSIVE checkpoints, which neither wait for the writer nor make it wait. The WAL starts over
 * at a write that finds every frame copied (a TRUNCATE or RESTART checkpoint would block the
 * writer instead), which under load never happens by itself: so when the thread has caught up with a WAL of
 * `restartFrames` or more, the store's next writes wait (asynchronously: the event loop goes on)
 * while the thread copies the frames of the last few commits, and the first of them starts the
 * WAL over. (When the store ran that last checkpoint itself, its disk syncs took 6 % of the
 * event loop's time under load.)
 *
 * The writes wait for the last pass `MAX_FINAL_HOLD_MS` at most: a disk sync slower than that
 * (a busy disk) lets them go on, and the WAL starts over at a later pass.
 *
 * Where the disk cannot keep up, the store copies what is left itself, on the event loop: past
 * `HOLD_BYTES` of WAL, each flush first runs a checkpoint of its own, and while the thread's
 * holds the lock the writes wait for it (asynchronously, for at most `MAX_HOLD_MS`, then not for
 * `HOLD_COOLDOWN_MS`). Frames that a reader's open transaction still needs (another process, a
 * backup) cannot be copied by anyone, so they make no write wait. The store's connection
 * also keeps an auto-checkpoint as a backstop: SQLite's default until the thread has opened its
 * connection, `SAFETY_NET_PAGES` once it has, the default again if the thread stops. (At 3,000
 * pages, when nothing started the WAL over, it fired after nearly every COMMIT and the thread's
 * checkpoints found the lock taken: the p99 doubled.)
 */
import { statSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'

/** Int32 slots of the buffer the store and the thread share. */
export const CHECKPOINT_SLOTS = {
  /** Bumped (and notified) after every COMMIT, and on close. */
  commits: 0,
  /** Set to 1 (and notified) to stop the thread. */
  stop: 1,
  /** Set to 1 by the thread once its connection is open. */
  ready: 2,
  /** The offer of the last pass before the WAL starts over: a `RESTART` state. */
  restartDue: 3,
  checkpoints: 4,
  failures: 5,
  /** Frames in the WAL at the thread's last checkpoint. */
  walFrames: 6,
} as const

/** States of the `restartDue` slot. */
export const RESTART = {
  idle: 0,
  /** The thread caught up with a WAL of `restartFrames` or more, and waits for the store. */
  due: 1,
  /**
   * The store's writes wait while the thread copies the last frames; back to idle (and
   * notified) when it is done, and the next write starts the WAL over.
   */
  final: 2,
} as const

/** What the thread is started with: the store's options for it, its file and the slots. */
export type CheckpointWorkerData = Omit<CheckpointerOptions, 'onStopped'> & {
  path: string
  signal: SharedArrayBuffer
}

/**
 * The store connection's auto-checkpoint while the thread runs: well above what the thread
 * leaves in the WAL, so it fires only when the thread falls behind; it bounds the WAL at about
 * 40 MB then.
 */
export const SAFETY_NET_PAGES = 10_000

/**
 * From this size of the WAL file, the store copies the rest of the WAL itself before it writes
 * (see the module). Also the store's `journal_size_limit`, so that the file shrinks back to it
 * at every start-over and its size past this says the WAL holds that much now. Reached only
 * where the disk cannot keep up: one transaction per write in a tight loop, at 15,000 commits/s
 * here.
 */
export const HOLD_BYTES = 12 * 1024 * 1024

/** Writes wait at most this long at a time; then they go, and the auto-checkpoint bounds the WAL. */
export const MAX_HOLD_MS = 1000

/**
 * Writes wait at most this long for the thread's last pass (a few ms when the disk syncs
 * promptly); past it they go on, and a later pass starts the WAL over. A sync can take hundreds
 * of ms on a busy disk: held that long, every hook and round in flight waited for it (one hold
 * of 355 ms at 1,000 deliveries/s on the dev VM, bench/results.md).
 */
export const MAX_FINAL_HOLD_MS = 20

/** After a wait that ran out, how long the WAL's length makes no write wait. */
export const HOLD_COOLDOWN_MS = 10_000

/** What `PRAGMA wal_checkpoint` answers. */
export interface CheckpointResult {
  /** 1 when another checkpoint held the lock (then the other two are -1). */
  busy: number
  /** Frames in the WAL when it started. */
  log: number
  /** Frames in the database, of those. */
  checkpointed: number
}

/**
 * One PASSIVE checkpoint on a connection: it copies what it can without waiting for anyone.
 * @param db - the thread's connection or the store's
 */
export function passiveCheckpoint(db: Database.Database): CheckpointResult {
  return (db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[])[0]
}

/** The store's `journal_size_limit` without the thread. */
export const STORE_JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024

/** SQLite's default auto-checkpoint. */
export const DEFAULT_AUTOCHECKPOINT_PAGES = 1000

export interface CheckpointStats {
  /** Rounds of checkpoints the thread ran. */
  checkpoints: number
  /** Its checkpoints that failed (a full, read-only or locked file). */
  failures: number
  /** Frames in the WAL at its last checkpoint. */
  walFrames: number
}

export interface Checkpointer {
  /** Tells the thread that a transaction committed (and, once it is ready, hands it the WAL). */
  committed(): void
  /**
   * Whether writes must wait: for the thread's last pass, or, with the WAL past `HOLD_BYTES`,
   * for the thread's checkpoint that keeps the store's own from copying the rest.
   */
  holdWrites(): boolean
  stats(): CheckpointStats
  /** Stops the thread after its current checkpoint; resolves once its connection is closed. */
  close(): Promise<void>
}

export interface CheckpointerOptions {
  /** How long the thread lets frames gather after a commit before it checkpoints. */
  intervalMs: number
  /** From this many frames in a WAL the thread caught up with, the store starts it over. */
  restartFrames: number
  /** The store's `synchronous`, for the thread's connection. */
  synchronous: 'normal' | 'full'
  /** How long writes wait for the last pass at most (default `MAX_FINAL_HOLD_MS`). */
  maxFinalHoldMs?: number
  /** The thread stopped by itself (its error, if it failed); checkpoints are the store's again. */
  onStopped: (error: Error) => void
}

/** Whether this module runs from the sources under tsx (the tests, `npm run dev`). */
const FROM_SOURCES = import.meta.url.endsWith('.ts')

const WORKER_URL = new URL(`./checkpoint-worker${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url)

/** Starts the thread; from the sources, through the shim that registers tsx in it first. */
function startWorker(data: CheckpointWorkerData): Worker {
  if (!FROM_SOURCES) return new Worker(WORKER_URL, { workerData: data })
  return new Worker(new URL('../../../scripts/tsx-worker.mjs', import.meta.url), {
    workerData: { ...data, tsEntry: WORKER_URL.href },
  })
}

/**
 * Starts the checkpoint thread of a store's connection to a database file in WAL mode.
 * @param db - the store's connection, whose auto-checkpoint this takes over
 * @param path - its file, already created and migrated
 * @param options - timing, and what to do when the thread stops by itself
 */
export function startCheckpointer(
  db: Database.Database,
  path: string,
  options: CheckpointerOptions
): Checkpointer {
  const signal = new SharedArrayBuffer(
    Int32Array.BYTES_PER_ELEMENT * Object.keys(CHECKPOINT_SLOTS).length
  )
  const slots = new Int32Array(signal)
  const { onStopped: _onStopped, maxFinalHoldMs = MAX_FINAL_HOLD_MS, ...forThread } = options
  const worker = startWorker({ ...forThread, path, signal })
  db.pragma(`journal_size_limit = ${HOLD_BYTES}`)
  const walPath = `${path}-wal`
  // the thread never keeps the process alive: a store that is not closed just loses it
  worker.unref()

  /** When writes began to wait (0: they do not), on `performance.now()`. */
  let heldSince = 0
  /** Until when the WAL's length makes no write wait, after a wait that ran out. */
  let coolUntil = 0
  let running = true
  let armed = false
  let stopping = false
  let failure: Error | undefined
  const exited = new Promise<void>((resolve) => {
    worker.on('error', (error) => {
      failure = error
    })
    worker.on('exit', () => {
      running = false
      if (!stopping) {
        if (db.open) {
          db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`)
          db.pragma(`journal_size_limit = ${STORE_JOURNAL_SIZE_LIMIT}`)
        }
        options.onStopped(failure ?? new Error('the checkpoint thread exited'))
      }
      resolve()
    })
  })

  /** How long writes have waited at `now` (they start to now, unless they wait already). */
  const heldFor = (now: number) => now - (heldSince ||= now)
  /** The last pass under way outlasted `maxFinalHoldMs`: no write waits for it any more. */
  let finalOverdue = false
  /** Writes wait for the last pass, unless they have waited `maxFinalHoldMs` for it already. */
  const holdForLastPass = () => {
    if (finalOverdue) return false
    if (heldFor(performance.now()) < maxFinalHoldMs) return true
    finalOverdue = true
    return release()
  }
  /** Writes wait, unless they have waited `MAX_HOLD_MS` already: then not for a while. */
  const hold = () => {
    const now = performance.now()
    if (heldFor(now) <= MAX_HOLD_MS) return true
    // writes wait for the disk, not for ever: another process on the file may keep the lock
    coolUntil = now + HOLD_COOLDOWN_MS
    return release()
  }
  const release = () => {
    heldSince = 0
    return false
  }

  return {
    committed() {
      if (!running) return
      Atomics.add(slots, CHECKPOINT_SLOTS.commits, 1)
      Atomics.notify(slots, CHECKPOINT_SLOTS.commits)
      if (!armed && Atomics.load(slots, CHECKPOINT_SLOTS.ready) === 1) {
        armed = true
        db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`)
      }
    },
    holdWrites() {
      if (!running) return release()
      const restart = Atomics.load(slots, CHECKPOINT_SLOTS.restartDue)
      if (restart === RESTART.final) return holdForLastPass()
      if (finalOverdue) {
        // the overdue pass is over: the next one is waited for again
        finalOverdue = false
        release()
      }
      if (
        restart === RESTART.due &&
        Atomics.compareExchange(slots, CHECKPOINT_SLOTS.restartDue, RESTART.due, RESTART.final) ===
          RESTART.due
      ) {
        Atomics.notify(slots, CHECKPOINT_SLOTS.restartDue)
        return holdForLastPass()
      }
      let size: number
      try {
        size = statSync(walPath).size
      } catch {
        return release()
      }
      if (size <= HOLD_BYTES) return release()
      if (performance.now() < coolUntil) return release()
      try {
        const result = passiveCheckpoint(db)
        // only the thread's checkpoint in progress is worth waiting for: frames that a reader's
        // open transaction keeps (another process, a backup) stay whatever the writes do
        return result.busy !== 0 ? hold() : release()
      } catch {
        // a disk fault: the write finds it too, and fails on its own
        return release()
      }
    },
    stats() {
      return {
        checkpoints: Atomics.load(slots, CHECKPOINT_SLOTS.checkpoints),
        failures: Atomics.load(slots, CHECKPOINT_SLOTS.failures),
        walFrames: Atomics.load(slots, CHECKPOINT_SLOTS.walFrames),
      }
    },
    close() {
      if (!stopping) {
        stopping = true
        // held until it exits: the caller awaits its connection's close
        worker.ref()
        Atomics.store(slots, CHECKPOINT_SLOTS.stop, 1)
        Atomics.notify(slots, CHECKPOINT_SLOTS.stop)
        // a bump as well as a notify: the thread may be just about to wait for the next commit
        Atomics.add(slots, CHECKPOINT_SLOTS.commits, 1)
        Atomics.notify(slots, CHECKPOINT_SLOTS.commits)
        Atomics.notify(slots, CHECKPOINT_SLOTS.restartDue)
      }
      return exited
    },
  }
}
