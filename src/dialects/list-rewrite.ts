/**
 * @module dialects/list-rewrite
 * A whole-list write as the replace-style dialects (codex-plan, gemini-todos, langchain-todos,
 * openhands-tracker) apply it: stable ids for unchanged items, and the unfinished items it drops.
 */
import { reconcileIds } from '../core/reconcile-ids.js'
import { droppedItems, makeItem, type Item, type Status } from '../core/items.js'
import type { DialectState } from './types.js'

/** An item of a whole-list write, in canonical terms, before it has its stable id. */
export interface NewItem {
  id?: string
  content: string
  status: Status
  notes?: string
  /** Claude's `activeForm`, for lists observed from TodoWrite. */
  active_form?: string
}

/**
 * The counter of fresh ids kept in the dialect's state (`next_id`).
 * @param data - the dialect's state
 */
export function nextIdOf(data: Readonly<Record<string, unknown>>): number {
  const value = data.next_id
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : 1
}

/**
 * Replaces the list: each new item gets a stable id (by id, then content, then position, see
 * `reconcileIds`), fresh ids come from the `next_id` counter, and the unfinished items the write
 * removed are returned as `dropped`.
 * @param state - the dialect state before the write
 * @param incoming - the new list, in order
 * @param options - passed to `reconcileIds`
 */
export function rewriteList(
  state: DialectState,
  incoming: readonly NewItem[],
  options: { byPosition?: boolean } = {}
): { state: DialectState; dropped: Item[] } {
  const assigned = reconcileIds(state.items, incoming, nextIdOf(state.data), options)
  const items = incoming.map((item, i) =>
    makeItem({
      id: assigned.ids[i],
      content: item.content,
      status: item.status,
      notes: item.notes,
      active_form: item.active_form,
    })
  )
  return {
    state: { items, data: { ...state.data, next_id: assigned.nextId } },
    dropped: droppedItems(state.items, items),
  }
}

const CHECKLIST_MARKS: Record<Status, string> = {
  pending: '[ ]',
  in_progress: '[>]',
  completed: '[x]',
  cancelled: '[-]',
  blocked: '[!]',
}

/**
 * The list as Claude Code's reminder and Gemini CLI's result number it: one
 * `N. [status] content` line per item; `empty` when there are no items.
 * @param items - the list
 * @param empty - the text for an empty list
 */
export function renderNumbered(items: readonly Item[], empty: string): string {
  if (items.length === 0) return empty
  return items.map((item, i) => `${i + 1}. [${item.status}] ${item.content}`).join('\n')
}

/**
 * A checklist rendering for dialects whose native shows no list of its own: one
 * `[x]`/`[>]`/`[ ]` line per item (`[-]` cancelled, `[!]` blocked), a blank line and
 * `(done/total completed)`; `empty` when there are no items.
 * @param items - the list
 * @param empty - the text for an empty list
 */
export function renderChecklist(items: readonly Item[], empty: string): string {
  if (items.length === 0) return empty
  const done = items.filter((item) => item.status === 'completed').length
  return [
    ...items.map((item) => `${CHECKLIST_MARKS[item.status]} ${item.content}`),
    '',
    `(${done}/${items.length} completed)`,
  ].join('\n')
}
