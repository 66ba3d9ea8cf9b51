/**
 * @module ingest/edit
 * A person's edit (PUT …/todos) of an observed session. The agent owns its list: the service never
 * writes it for the agent. An agent whose reply the model reads (Claude Code's hooks) can be told,
 * so an edit of such a session is kept pending and handed to the model once, as the next reply's
 * `additionalContext`; the list itself changes when the agent's own todo tool writes it. Whether
 * an agent takes edits is its descriptor's (`agents`: `editRefusal`, which the use case asks).
 */
import type { Item } from '../core/items.js'
import type { Session } from '../core/session.js'

/**
 * An observed session with a person's edit pending (the list itself unchanged).
 * @param current - the stored session (observed, taking edits)
 * @param items - the edited list, checked by the session's dialect
 * @param now - epoch ms
 */
export function pendEdit(current: Session, items: Item[], now: number): Session {
  return {
    ...current,
    version: current.version + 1,
    observed: { ...current.observed!, pending_edit: { items, at: now } },
    updated_at: now,
  }
}
