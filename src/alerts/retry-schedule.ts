/**
 * @module alerts/retry-schedule
 * When a failed delivery is tried again: after each interval of `WEBHOOK_RETRY_SCHEDULE` in turn
 * (seconds between attempts); when the list is used up the delivery is `failed`.
 */

/** The SPEC's default: 5 s, 30 s, 2 min, 10 min, 1 h, 3 h. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 30, 120, 600, 3600, 10800] as const

/**
 * Parses `WEBHOOK_RETRY_SCHEDULE`: comma-separated whole seconds, each 1 to 86400.
 * @param spec - the variable's value
 * @throws Error naming the bad entry
 */
export function parseRetrySchedule(spec: string | undefined): number[] {
  if (spec === undefined || spec.trim() === '') return [...DEFAULT_RETRY_SCHEDULE_SECONDS]
  return spec.split(',').map((entry, index) => {
    const text = entry.trim()
    const seconds = /^\d+$/.test(text) ? Number(text) : Number.NaN
    if (!(seconds >= 1 && seconds <= 86_400)) {
      throw new Error(
        `WEBHOOK_RETRY_SCHEDULE entry ${index + 1} ('${text}') must be whole seconds from 1 to 86400`
      )
    }
    return seconds
  })
}

/**
 * When the next attempt is due after `attempts` failed ones, or null when the schedule is used up.
 * @param attempts - attempts made so far (the first one included)
 * @param lastAttemptAt - epoch ms of the last attempt
 * @param scheduleSeconds - the intervals
 */
export function nextAttemptAt(
  attempts: number,
  lastAttemptAt: number,
  scheduleSeconds: readonly number[]
): number | null {
  const interval = scheduleSeconds[attempts - 1]
  return interval === undefined ? null : lastAttemptAt + interval * 1000
}
