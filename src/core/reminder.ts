/**
 * @module core/reminder
 * The nag: when a model stops updating its list, remind it.
 */

/** How a dialect reminds. */
export interface ReminderPolicy {
  /** Rounds without a todo call after which the reminder is due. */
  afterRounds: number
  /** Rounds that must pass between two reminders (1 = every round once due). */
  repeatEvery: number
}

/** Per-session overrides, fixed by the session's first round. */
export interface ReminderSettings {
  reminder?: boolean
  reminder_after_rounds?: number
}

export interface ReminderCounters {
  rounds_since_todo: number
  /** Rounds since the last reminder; null before the first one. */
  rounds_since_reminder: number | null
}

/**
 * Advances the counters by one round and says whether the reminder is due in this round's reply.
 * A todo call (even one that failed validation) resets the counter; the reminder does not, so it
 * repeats every `repeatEvery` rounds until the tool is called.
 * @param policy - the dialect's policy
 * @param settings - the session's overrides
 * @param counters - the counters before the round
 * @param usedTodo - whether the round called one of the dialect's tools
 */
export function advanceReminder(
  policy: ReminderPolicy,
  settings: ReminderSettings,
  counters: ReminderCounters,
  usedTodo: boolean
): { counters: ReminderCounters; due: boolean } {
  const roundsSinceTodo = usedTodo ? 0 : counters.rounds_since_todo + 1
  const sinceReminder =
    counters.rounds_since_reminder === null ? null : counters.rounds_since_reminder + 1
  const after = settings.reminder_after_rounds ?? policy.afterRounds
  const due =
    settings.reminder !== false &&
    roundsSinceTodo >= after &&
    (sinceReminder === null || sinceReminder >= policy.repeatEvery)
  return {
    counters: {
      rounds_since_todo: roundsSinceTodo,
      rounds_since_reminder: due ? 0 : sinceReminder,
    },
    due,
  }
}

/**
 * Whether the model is overdue: it has gone at least the policy's rounds without a todo call (and
 * the reminder is on). What monitors show as `reminder_due`.
 */
export function isReminderDue(
  policy: ReminderPolicy,
  settings: ReminderSettings,
  counters: ReminderCounters
): boolean {
  const after = settings.reminder_after_rounds ?? policy.afterRounds
  return settings.reminder !== false && counters.rounds_since_todo >= after
}
