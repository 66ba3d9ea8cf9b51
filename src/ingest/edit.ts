/**
 * @module ingest/edit
 * A person's edit (PUT …/todos) of an observed session. The agent owns its list: the service never
 * writes it for the agent. Claude Code can be told through a hook reply, so an edit of an observed
 * Claude session is kept pending and handed to the model once, as the next PostToolUse reply's
 * `additionalContext`; the list itself changes when the agent's own todo tool writes it. Every
 * other agent's list cannot be edited here.
 */
import type { Item } from '../core/items.js'
import type { Session } from '../core/session.js'
import { FAMILY_OF } from './apply.js'

/**
 * Why a person cannot edit this observed session's list, or null when the edit can be handed to
 * the agent (a Claude session that Claude Code hooks feed) or the session is not observed.
 * @param session - the stored session
 */
export function editRefusal(session: Session | null): string | null {
  const observed = session?.observed
  if (!observed) return null
  if (FAMILY_OF[observed.source] !== 'claude') {
    return `The agent (${observed.source}) owns this list: its own todo tool writes it, and the service only observes it.`
  }
  if (observed.source === 'claude-code' || observed.hooks) return null
  // a stream or SDK forwarder only reports: an edit would wait for a hook reply that never comes
  return `The agent (${observed.source}) owns this list, and no Claude Code hook feeds this session, so an edit could not reach the model: add the PostToolUse HTTP hook (docs/observe.md) to edit its list here.`
}

/**
 * An observed Claude session with a person's edit pending (the list itself unchanged).
 * @param current - the stored session (observed, Claude)
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
