/**
 * @module dialects/list-rewrite
 * A whole-list write as the replace-style dialects (codex-plan, gemini-todos, langchain-todos,
 * openhands-tracker) apply it: stable ids for unchanged items, and the unfinished items it drops.
 */
import { reconcileIds } from '../core/identity.js'
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
 * Ids for a write whose own ids are authoritative (OpenHands shows them to the model): an id the
 * model sent is kept; the items without one are reconciled against the stored items no one
 * claimed. A repeated id is treated as absent.
 */
function explicitIds(
  before: readonly Item[],
  incoming: readonly NewItem[],
  nextId: number
): { ids: string[]; nextId: number } {
  const ids: (string | undefined)[] = incoming.map(() => undefined)
  const used = new Set<string>()
  incoming.forEach((item, i) => {
    if (item.id === undefined || used.has(item.id)) return
    ids[i] = item.id
    used.add(item.id)
  })
  const rest = incoming.flatMap((_, i) => (ids[i] === undefined ? [i] : []))
  const free = before.filter((item) => !used.has(item.id))
  const reconciled = reconcileIds(
    free,
    rest.map((i) => ({ content: incoming[i].content })),
    nextId
  )
  let counter = reconciled.nextId
  const inUse = new Set([...before.map((item) => item.id), ...used, ...reconciled.ids])
  rest.forEach((i, k) => {
    let id = reconciled.ids[k]
    // a fresh counter id may equal an id the model chose for another item
    if (used.has(id)) {
      while (inUse.has(String(counter))) counter++
      id = String(counter++)
      inUse.add(id)
    }
    ids[i] = id
    used.add(id)
  })
  return { ids: ids as string[], nextId: counter }
}

/**
 * Replaces the list: each new item gets a stable id (by id, then content, then position, see
 * `reconcileIds`), fresh ids come from the `next_id` counter, and the unfinished items the write
 * removed are returned as `dropped`.
 * @param state - the dialect state before the write
 * @param incoming - the new list, in order
 * @param options - `explicitIds`: ids sent by the model are kept verbatim
 */
export function rewriteList(
  state: DialectState,
  incoming: readonly NewItem[],
  options: { explicitIds?: boolean } = {}
): { state: DialectState; dropped: Item[] } {
  const nextId = nextIdOf(state.data)
  const assigned = options.explicitIds
    ? explicitIds(state.items, incoming, nextId)
    : reconcileIds(state.items, incoming, nextId)
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
