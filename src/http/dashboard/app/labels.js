// @ts-check
/**
 * @module dashboard/labels
 * The words the page shows for the service's values.
 */

/** Every item status, in the order the editor offers them. */
export const STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'blocked']

/** @type {Record<string, string>} */
export const STATUS_LABEL = {
  pending: 'Pending',
  in_progress: 'In progress',
  completed: 'Completed',
  cancelled: 'Cancelled',
  blocked: 'Blocked',
}

/** @type {Record<string, string>} */
export const STATUS_MARK = {
  pending: '○',
  in_progress: '▶',
  completed: '✓',
  cancelled: '✕',
  blocked: '!',
}

/** @type {Record<string, string>} */
export const OUTCOME_LABEL = {
  completed: 'Ended · completed',
  max_turns: 'Ended at max turns',
  error: 'Ended with error',
  cancelled: 'Ended · cancelled',
}

/**
 * What wrote a history entry.
 * @type {Record<string, string>}
 */
export const SOURCE_LABEL = {
  round: 'Round',
  put: 'Operator edit',
  end: 'Ended',
  delete: 'Deleted',
}
