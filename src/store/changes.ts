/**
 * @module store/changes
 * The in-process change feed of the memory and SQLite stores.
 */
import type { ChangeEvent, ChangeListener } from './types.js'

/** A set of listeners; a failing listener never breaks a write. */
export function createChangeFeed() {
  const listeners = new Set<ChangeListener>()
  return {
    subscribe(listener: ChangeListener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    emit(event: ChangeEvent) {
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
