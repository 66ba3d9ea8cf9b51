/**
 * @module dialects/observe/types
 * The observe seam, beside each dialect's `apply`: an agent ran its own todo tool and the service
 * saw the call and its result. An observer applies what the agent did to the mirrored list; it
 * never validates for the agent, assigns an id of its own or writes a result text.
 */
import { STATUSES, type Status } from '../../core/items.js'
import type { DialectState } from '../types.js'

/** A call as the agent made it (the input may have been rewritten by the agent's own hooks). */
export interface ObservedCall {
  name: string
  /** The call's input, when seen (a hook's `tool_input`, a stream's `tool_use.input`). */
  input?: unknown
}

/** What the agent's tool answered. */
export interface ObservedResult {
  is_error: boolean
  /** The tool's structured output (`tool_use_result`, `tool_response`, an observation). */
  structured?: unknown
  /** The result text the model read. */
  text?: string
}

export type ObserveOutcome =
  { applied: true; state: DialectState } | { applied: false; reason: string }

/** One dialect's observer. */
export interface Observer {
  dialect: string
  /** The tools it observes (the dialect's, plus snapshot-only ones like Codex's `todo_list`). */
  tools: readonly string[]
  /**
   * Applies a call that the agent ran, given its result. Pure; a failed call, or one whose
   * result does not say what the agent did, is `applied: false` and changes nothing.
   */
  observe(call: ObservedCall, result: ObservedResult, state: DialectState): ObserveOutcome
}

/**
 * Thrown by an observer whose outcome needs work off the event loop first (copilot-todos replays
 * SQL in a worker thread): the caller awaits `settle()`, which leaves the outcome where the
 * observer finds it, and runs its pure update again (ingest: `service/deliver-observed`). The
 * observer itself stays synchronous and pure: the same call on the same state, once settled,
 * gives the same outcome.
 */
export class ObservePending extends Error {
  constructor(readonly settle: () => Promise<void>) {
    super('The observer needs work off the event loop before it can answer.')
    this.name = 'ObservePending'
  }
}

/**
 * Observes a call, settling what the observer asks for first (`ObservePending`): for a test or a
 * tool; the service's ingest does the same around its store update.
 * @param observer - an observer (any: only copilot-todos asks)
 * @param args - the observer's arguments
 */
export async function observeSettled(
  observer: Observer,
  ...args: Parameters<Observer['observe']>
): Promise<ObserveOutcome> {
  for (;;) {
    try {
      return observer.observe(...args)
    } catch (error) {
      if (!(error instanceof ObservePending)) throw error
      await error.settle()
    }
  }
}

/** Not applied: the state stays as it was. */
export const notApplied = (reason: string): ObserveOutcome => ({ applied: false, reason })

const CANONICAL: ReadonlySet<string> = new Set(STATUSES)

/**
 * A status as an agent spelled it, in canonical terms (`inProgress` from Codex's app-server,
 * `in-progress`, OpenHands' `todo`/`done`); undefined when unknown.
 * @param value - the agent's status
 */
export function canonicalStatus(value: unknown): Status | undefined {
  if (typeof value !== 'string') return undefined
  // most agents spell it canonically already: no rewriting for those
  if (CANONICAL.has(value)) return value as Status
  const key = value
    .replace(/[-\s]/g, '_')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
  switch (key) {
    case 'pending':
    case 'todo':
    case 'not_started':
      return 'pending'
    case 'in_progress':
      return 'in_progress'
    case 'completed':
    case 'done':
      return 'completed'
    case 'cancelled':
    case 'canceled':
      return 'cancelled'
    case 'blocked':
      return 'blocked'
    default:
      return undefined
  }
}
