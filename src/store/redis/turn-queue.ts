/**
 * @module store/redis/turn-queue
 * Updates of one session queue up inside an instance, so compare-and-set conflicts only happen
 * between instances, and each turn starts from the state the previous one stored.
 */
import { StoreUnavailableError } from '../types.js'
import type { Base } from './guess-cache.js'

/** How a turn ended, for the next turn of the same session. */
export interface TurnOutcome {
  /** The record it stored, which the next turn starts from. */
  stored: Base | null
  /** When (performance.now()) a turn of this queue found Redis unreachable. */
  unavailableAt: number | null
  /** Redis answered but refused the write (out of memory, read-only). */
  writeOnly?: boolean
}

export interface TurnQueue {
  /**
   * Runs `turn` once every turn of the same session queued ahead of it has ended.
   * @param sessionKey - the session's hash key
   * @param turn - gets what the turn ahead stored (if anything) and the outcome to fill in
   * @throws StoreUnavailableError at once when a turn ahead found Redis unreachable while this
   *   one waited, rather than waiting out another timeout
   */
  run<T>(
    sessionKey: string,
    turn: (handed: Base | null, outcome: TurnOutcome) => Promise<T>
  ): Promise<T>
}

/**
 * A queue per session.
 * @param onUnavailable - called (before the next turn starts) when a turn found Redis unreachable
 */
export function createTurnQueue(onUnavailable: (sessionKey: string) => void): TurnQueue {
  const turns = new Map<string, Promise<TurnOutcome>>()
  return {
    async run(sessionKey, turn) {
      const enqueuedAt = performance.now()
      const previous = turns.get(sessionKey)
      const outcome: TurnOutcome = { stored: null, unavailableAt: null }
      let finish!: (outcome: TurnOutcome) => void
      const mine = new Promise<TurnOutcome>((resolve) => (finish = resolve))
      turns.set(sessionKey, mine)
      try {
        const before = previous && (await previous)
        if (before?.unavailableAt != null && enqueuedAt <= before.unavailableAt) {
          outcome.unavailableAt = before.unavailableAt
          outcome.writeOnly = before.writeOnly
          const found = before.writeOnly ? 'refusing writes' : 'unreachable'
          throw new StoreUnavailableError(
            new Error(`an earlier update of this session found Redis ${found}`),
            before.writeOnly
          )
        }
        return await turn(before?.stored ?? null, outcome)
      } catch (error) {
        if (error instanceof StoreUnavailableError) {
          outcome.unavailableAt ??= performance.now()
          outcome.writeOnly ??= error.writeOnly
          onUnavailable(sessionKey)
        }
        throw error
      } finally {
        finish(outcome)
        if (turns.get(sessionKey) === mine) turns.delete(sessionKey)
      }
    },
  }
}
