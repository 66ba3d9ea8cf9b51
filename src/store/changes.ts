/**
 * @module store/changes
 * The in-process change feed of the memory and SQLite stores.
 */
import type { ChangeSource, SessionKey } from '../core/session.js'
import type { ChangeEvent, ChangeListener } from './types.js'

/**
 * The event every subscriber hears for a change of a session (version 0 for a deletion).
 * @param key - tenant and session
 * @param version - the version written
 * @param source - what wrote it
 * @param quiet - a quiet write: the same version, the record changed
 */
export const changeEvent = (
  key: SessionKey,
  version: number,
  source: ChangeSource,
  quiet = false
): ChangeEvent => ({
  tenant: key.tenant,
  session_id: key.sessionId,
  version,
  source,
  ...(quiet ? { quiet: true } : {}),
})

/** A set of listeners; a failing listener never breaks a write. */
export function createChangeFeed() {
  const listeners = new Set<ChangeListener>()
  return {
    // arrow functions: the stores hand these on detached (`subscribe: feed.subscribe`)
    subscribe: (listener: ChangeListener) => {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    emit: (event: ChangeEvent) => {
      for (const listener of listeners) {
        try {
          listener(event)
        } catch {
          // a subscriber's fault is its own
        }
      }
    },
  }
}
