/**
 * @module core/reconcile-ids
 * Stable item identity across whole-list rewrites, so monitors see one history per item.
 */
import type { Item } from './items.js'

/** An item of an incoming whole-list write, before it has a stable id. */
export interface Incoming {
  id?: string
  content: string
}

/**
 * Gives each incoming item an id: the stored item's with the same id, else the first unmatched
 * stored item with the same content, else the unmatched stored item at the same position, else a
 * fresh id from the counter (never one in use, so ids are not reused while the session lives).
 * @param before - the stored list
 * @param incoming - the new list, in order
 * @param nextId - the counter of fresh ids (a decimal integer)
 * @param options - `byPosition: false` skips the positional match (a new plan after a cleared
 *   list: only an item written again word for word is the same item)
 * @returns the ids, in the order of `incoming`, and the advanced counter
 */
export function reconcileIds(
  before: readonly Item[],
  incoming: readonly Incoming[],
  nextId: number,
  { byPosition = true }: { byPosition?: boolean } = {}
): { ids: string[]; nextId: number } {
  // the common rewrite (statuses moved on): the same items in the same order keep their ids, as
  // the content match below would give them; most lists are rewritten this way, on every call
  if (
    before.length === incoming.length &&
    incoming.every((item, i) => item.id === undefined && item.content === before[i].content)
  ) {
    return { ids: before.map((item) => item.id), nextId: Math.max(nextId, 1) }
  }
  const stored = new Set(before.map((item) => item.id))
  const matched = new Set<string>()
  const ids: (string | undefined)[] = incoming.map((item) => {
    if (item.id !== undefined && stored.has(item.id) && !matched.has(item.id)) {
      matched.add(item.id)
      return item.id
    }
    return undefined
  })
  incoming.forEach((item, i) => {
    if (ids[i] !== undefined) return
    const same = before.find((old) => !matched.has(old.id) && old.content === item.content)
    if (same) {
      matched.add(same.id)
      ids[i] = same.id
    }
  })
  incoming.forEach((_, i) => {
    const old = before[i]
    if (!byPosition || ids[i] !== undefined || !old || matched.has(old.id)) return
    matched.add(old.id)
    ids[i] = old.id
  })
  const taken = new Set([...stored, ...incoming.flatMap((item) => (item.id ? [item.id] : []))])
  let counter = Math.max(nextId, 1)
  const result = ids.map((id, i) => {
    if (id !== undefined) return id
    const own = incoming[i].id
    if (own !== undefined && !matched.has(own)) {
      matched.add(own)
      return own
    }
    while (taken.has(String(counter))) counter++
    taken.add(String(counter))
    return String(counter++)
  })
  return { ids: result, nextId: counter }
}
