/**
 * @module cli/sleep
 * A wait that an abort ends early, quietly: the senders back off between attempts but stop
 * waiting the moment their deadline passes. (`timers/promises`' setTimeout rejects on abort,
 * which every caller would have to catch.)
 */

/**
 * Resolves after `ms`, or at once when `signal` aborts (never rejects).
 * @param ms - how long to wait
 * @param signal - ends the wait early
 */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
