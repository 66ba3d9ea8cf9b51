/**
 * @module dialects/outcome
 * The outcome of a call a dialect refused, shared by every dialect.
 */
import type { CallOutcome, DialectState } from './types.js'

/**
 * A refused call: `content` is the error text the model sees; the list and state are unchanged.
 * @param state - the state before the call
 * @param content - the dialect's error text
 */
export function refused(state: DialectState, content: string): CallOutcome {
  return { result: { is_error: true, content, structured: null }, state, dropped: [] }
}
