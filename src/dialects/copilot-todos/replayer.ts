/**
 * @module dialects/copilot-todos/replayer
 * Copilot's `sql` queries replayed OFF the event loop, under a deadline. better-sqlite3 runs
 * SQLite on the calling thread and has no interrupt or progress handler, so a statement that
 * SQLite takes long over (a review's 600-byte cross join of `sqlite_master` held `/livez` for
 * 22.6 s; a `LIKE` over rows within the bounds still can take seconds) would hold every tenant's
 * requests. The replay (`sql.ts`) runs in one long-lived worker thread instead
 * (`replay-worker.ts`), one job at a time, the next ones queued here; a job answers within
 * `deadlineMs` or is refused ("ran past its deadline": the call applies nothing).
 *
 * A thread past its deadline is terminated and a new one takes the next job. `terminate()` stops
 * JavaScript, not a native call: a thread inside SQLite ends only when that statement returns
 * (measured: `terminate()` of a thread in a 32 s query resolved after the 32 s). Such a thread
 * is "stranded": it holds a CPU until then, so at most `maxStranded` are let be at a time, and
 * while that many run the queue waits for one to end instead of starting another. The
 * allow-list (`bytecode.ts`, the bounds in `sql.ts`) is what keeps statements cheap; the
 * deadline is what keeps a statement that is not from holding the service.
 *
 * Cost: a round trip to the thread per replayed call (the tables and the query cloned there,
 * the tables cloned back), paid only by a `sql` call that may write the todo tables and is not
 * provably cheap (`inline.ts` replays those in place: Copilot's usual calls).
 */
import { Worker } from 'node:worker_threads'
import type { ReplayOutcome, TodoTables } from './sql.js'

/** What the thread is asked. */
export interface ReplayRequest {
  id: number
  tables: TodoTables
  query: string
  /** Replay only the first statements (those a failed query completed). */
  limit?: number
}

/** What the thread answers. */
export interface ReplayResponse {
  id: number
  outcome: ReplayOutcome
}

/** How long one replay may take in the thread (a real call takes a few ms). */
export const REPLAY_DEADLINE_MS = 1000
/** Threads past their deadline still inside SQLite, at most, before the queue waits. */
export const MAX_STRANDED = 2

/** The replayer's bounds. */
export interface ReplayerOptions {
  /** How long one replay may take once the thread has it. */
  deadlineMs?: number
  /** Threads past their deadline still running, at most, before new jobs wait. */
  maxStranded?: number
}

interface Job {
  request: Omit<ReplayRequest, 'id'>
  resolve: (outcome: ReplayOutcome) => void
}

const FROM_SOURCES = import.meta.url.endsWith('.ts')
const WORKER_URL = new URL(`./replay-worker${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url)

/** Starts the thread: the compiled module, or the sources through tsx (the tests, `npm run dev`). */
function startThread(): Worker {
  if (!FROM_SOURCES) return new Worker(WORKER_URL)
  return new Worker(new URL('../../../scripts/tsx-worker.mjs', import.meta.url), {
    workerData: { tsEntry: WORKER_URL.href },
  })
}

/** A refused call: the tables as given, and why. */
const refusedOutcome = (tables: TodoTables, reason: string): ReplayOutcome => ({
  tables,
  ran: 0,
  skipped: [{ statement: 0, reason }],
  refused: reason,
})

/** One replay thread, its queue and its deadline. */
export class Replayer {
  private readonly deadlineMs: number
  private readonly maxStranded: number
  private thread: Worker | null = null
  /** Whether the thread has said it is ready (its copy made): deadlines start from then. */
  private ready = false
  private running: (Job & { id: number; timer: NodeJS.Timeout }) | null = null
  private readonly queue: Job[] = []
  /** Threads past their deadline, still inside SQLite. */
  private readonly stranded = new Set<Worker>()
  private serial = 0
  private closed = false

  constructor(options: ReplayerOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? REPLAY_DEADLINE_MS
    this.maxStranded = options.maxStranded ?? MAX_STRANDED
  }

  /**
   * Replays a query in the thread.
   * @param request - the tables, the query, the statement limit
   * @returns the outcome; a refused call (tables as given) past the deadline or on a failure
   */
  replay(request: Omit<ReplayRequest, 'id'>): Promise<ReplayOutcome> {
    if (this.closed)
      return Promise.resolve(refusedOutcome(request.tables, 'the replayer is closed'))
    return new Promise((resolve) => {
      this.queue.push({ request, resolve })
      this.next()
    })
  }

  /** Threads past their deadline that still run (a test reads it). */
  get strandedThreads(): number {
    return this.stranded.size
  }

  /** Stops the thread; queued jobs are refused. */
  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) {
      job.resolve(refusedOutcome(job.request.tables, 'the replayer is closed'))
    }
    if (this.running) this.finish(refusedOutcome(this.running.request.tables, 'closed'))
    const thread = this.thread
    this.thread = null
    await thread?.terminate()
  }

  /** Hands the next queued job to the thread, when it is free. */
  private next(): void {
    if (this.running) return
    if (this.queue.length === 0) {
      // idle: the thread keeps no process alive
      this.thread?.unref()
      return
    }
    const thread = this.thread ?? this.start()
    // jobs wait: for the thread to start, or for a stranded one to end (kept alive till then)
    for (const one of thread ? [thread] : this.stranded) one.ref()
    if (!thread || !this.ready) return
    const job = this.queue.shift()!
    const id = ++this.serial
    // the deadline keeps the process alive while a job runs (the thread itself does not)
    const timer = setTimeout(() => this.expire(id), this.deadlineMs)
    this.running = { ...job, id, timer }
    thread.postMessage(JSON.stringify({ id, ...job.request } satisfies ReplayRequest))
  }

  /** A new thread, or null while `maxStranded` past their deadline still run. */
  private start(): Worker | null {
    if (this.stranded.size >= this.maxStranded) return null
    const thread = startThread()
    thread.on('message', (message: string | { ready: true }) => {
      if (typeof message !== 'string') {
        if (this.thread !== thread) return
        this.ready = true
        this.next()
      } else {
        const response = JSON.parse(message) as ReplayResponse
        if (this.running?.id === response.id) this.finish(response.outcome)
      }
    })
    thread.on('error', (error) => {
      this.drop(thread, false)
      if (this.running)
        this.finish(
          refusedOutcome(this.running.request.tables, `the replay failed: ${error.message}`)
        )
    })
    thread.on('exit', () => {
      this.drop(thread, false)
      if (this.running && this.thread === null) {
        this.finish(refusedOutcome(this.running.request.tables, 'the replay thread stopped'))
      }
    })
    this.thread = thread
    this.ready = false
    return thread
  }

  /** The thread is no longer the replayer's; `strand` when it is left running past a deadline. */
  private drop(thread: Worker, strand: boolean): void {
    if (this.thread === thread) this.thread = null
    if (!strand) return
    this.stranded.add(thread)
    thread.removeAllListeners('exit')
    thread.once('exit', () => {
      this.stranded.delete(thread)
      this.next()
    })
    thread.unref()
    void thread.terminate()
  }

  /** The running job passed its deadline: refused, its thread let go, a new one for the rest. */
  private expire(id: number): void {
    if (this.running?.id !== id || !this.thread) return
    this.drop(this.thread, true)
    this.finish(
      refusedOutcome(
        this.running.request.tables,
        `the replay ran past its deadline (${this.deadlineMs} ms)`
      )
    )
  }

  /** Answers the running job and starts the next. */
  private finish(outcome: ReplayOutcome): void {
    const job = this.running
    if (!job) return
    clearTimeout(job.timer)
    this.running = null
    job.resolve(outcome)
    if (!this.closed) this.next()
  }
}

let shared: Replayer | undefined

/** The process's replayer, made on first use. */
export function replayer(): Replayer {
  shared ??= new Replayer()
  return shared
}

/**
 * Replaces the process's replayer with one of other bounds (a test's short deadline); the old
 * one is closed.
 * @param options - the new replayer's bounds
 */
export async function configureReplayer(options: ReplayerOptions): Promise<Replayer> {
  const old = shared
  shared = new Replayer(options)
  await old?.close()
  return shared
}
