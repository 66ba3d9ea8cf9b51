/**
 * Polling for what happens on another thread, process or connection, for the tests.
 */
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Waits until `check` holds, for at most `ms`, asking every 10 ms.
 * @returns whether it held
 */
export async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) if (check()) return true
  return check()
}
