/**
 * @module cli/batch-sender
 * What the two line forwarders (`acp`'s tap and `observe`) share: lines wait in a queue bounded in
 * bytes (the oldest dropped past it, so the agent's output never waits for the service), go out in
 * order in batches bounded by lines and bytes, one batch in flight at a time, and once the sender
 * is closed are delivered until a deadline, after which what is left stays queued, undelivered.
 * Each sender brings its own delivery (route, retries, what ends forwarding) and its own counts.
 */
import { sleep } from './sleep.js'

/** How a sender batches and how much it holds. */
export interface BatchTuning {
  /** Wait this long after the first queued line for more before posting. */
  lingerMs: number
  maxBatchLines: number
  maxBatchBytes: number
  /** Bytes of lines kept while the service cannot take them; the oldest go past this. */
  maxQueueBytes: number
}

/**
 * The batching a forwarder starts from (`observe`'s; the acp tap changes what suits an editor's
 * agent): many lines a batch, batches well within the service's default body limit.
 */
export const DEFAULT_BATCHING: BatchTuning = {
  lingerMs: 20,
  maxBatchLines: 500,
  maxBatchBytes: 512 * 1024,
  maxQueueBytes: 32 * 1024 * 1024,
}

/**
 * A FIFO of lines and their sizes with O(1) push and shift (an array's `shift` moves every element
 * left: a full queue dropping its oldest line per new one would cost the editor's throughput).
 */
class LineQueue {
  private lines: string[] = []
  private sizes: number[] = []
  private head = 0
  /** The lines' bytes, a newline each. */
  bytes = 0

  get length(): number {
    return this.lines.length - this.head
  }

  push(line: string): void {
    const size = Buffer.byteLength(line) + 1
    this.lines.push(line)
    this.sizes.push(size)
    this.bytes += size
  }

  /** The size of the oldest line (the queue is not empty). */
  firstSize(): number {
    return this.sizes[this.head]
  }

  shift(): string {
    const line = this.lines[this.head]
    this.bytes -= this.sizes[this.head]
    this.lines[this.head] = ''
    this.head++
    if (this.head >= 4096 && this.head * 2 >= this.lines.length) {
      this.lines = this.lines.slice(this.head)
      this.sizes = this.sizes.slice(this.head)
      this.head = 0
    }
    return line
  }

  /** Puts lines back in front (a batch not delivered before the deadline). */
  restore(batch: readonly string[]): void {
    const rest = this.lines.slice(this.head)
    this.clear()
    for (const line of [...batch, ...rest]) this.push(line)
  }

  clear(): void {
    this.lines = []
    this.sizes = []
    this.head = 0
    this.bytes = 0
  }
}

/**
 * Posts queued lines in order, one batch at a time, never holding the caller: a subclass says
 * how a batch is delivered and counts what is dropped.
 */
export abstract class BatchSender<T extends BatchTuning = BatchTuning> {
  private readonly queue = new LineQueue()
  private wake: (() => void) | null = null
  private closing = false
  private stopped = false
  /** Aborted once the flush timeout passed: deliveries in flight and their waits end. */
  protected readonly deadline = new AbortController()
  private readonly warned = new Set<string>()
  private readonly loop: Promise<void>

  /**
   * @param tuning - the batching (and whatever else the subclass reads)
   * @param warn - where a warning goes (each at most once, see `warnOnce`)
   */
  constructor(
    protected readonly tuning: T,
    private readonly warn: (message: string) => void
  ) {
    // before any line is pushed the loop only waits, so a subclass's fields are set by its first batch
    this.loop = this.run()
  }

  /**
   * Queues a line (ignored once forwarding stopped), dropping the oldest past `maxQueueBytes`.
   * @param line - one line, without its newline
   */
  push(line: string): void {
    if (this.stopped) return
    this.queue.push(line)
    while (this.queue.bytes > this.tuning.maxQueueBytes && this.queue.length > 1) {
      this.queue.shift()
      this.droppedOldest()
    }
    this.wake?.()
  }

  /**
   * No more lines: delivers what is queued, giving up after `timeoutMs`.
   * @param timeoutMs - how long delivery may go on
   * @returns how many lines were left undelivered
   */
  protected async flush(timeoutMs: number): Promise<number> {
    this.closing = true
    this.wake?.()
    const timer = setTimeout(() => this.deadline.abort(), timeoutMs)
    await this.loop
    clearTimeout(timer)
    return this.queue.length
  }

  /**
   * Ends forwarding for good (the service refused in a way no retry changes): the queue is
   * emptied and later lines are ignored.
   * @returns how many queued lines were let go
   */
  protected stop(): number {
    this.stopped = true
    const left = this.queue.length
    this.queue.clear()
    return left
  }

  /**
   * Warns once per `key`, however often it happens.
   * @param key - what kind of trouble
   * @param message - the warning
   */
  protected warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return
    this.warned.add(key)
    this.warn(message)
  }

  /**
   * One batch to its end: taken, or given up on (the subclass counts it).
   * @returns false when the deadline passed first (the batch is put back, undelivered)
   */
  protected abstract deliver(batch: string[]): Promise<boolean>

  /** The oldest queued line was dropped to keep the queue within `maxQueueBytes`. */
  protected abstract droppedOldest(): void

  private take(): string[] {
    const batch: string[] = []
    let bytes = 0
    while (this.queue.length && batch.length < this.tuning.maxBatchLines) {
      const size = this.queue.firstSize()
      if (batch.length && bytes + size > this.tuning.maxBatchBytes) break
      batch.push(this.queue.shift())
      bytes += size
    }
    return batch
  }

  private async run(): Promise<void> {
    for (;;) {
      if (this.deadline.signal.aborted) return
      if (!this.queue.length) {
        if (this.closing || this.stopped) return
        await new Promise<void>((resolve) => (this.wake = resolve))
        this.wake = null
        if (!this.closing) await sleep(this.tuning.lingerMs)
        continue
      }
      const batch = this.take()
      if (!(await this.deliver(batch))) {
        // the deadline passed mid-retry: what is left stays undelivered
        this.queue.restore(batch)
        return
      }
      if (this.stopped) return
    }
  }
}
