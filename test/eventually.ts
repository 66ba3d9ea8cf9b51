/**
 * Polling for what happens on another thread, process or connection, for the tests.
 */
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Waits until `check` holds, for at most `ms`, asking every 10 ms. The bound is generous (30 s):
 * a condition that holds costs only the time it takes, and a loaded machine (a worker thread
 * starting, a process descheduled) may take seconds where an idle one takes milliseconds.
 * @returns whether it held
 */
export async function eventually(check: () => boolean, ms = 30_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) if (check()) return true
  return check()
}
