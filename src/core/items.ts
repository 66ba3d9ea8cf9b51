/**
 * @module core/items
 * The canonical todo item: a superset of every dialect's item.
 */

/** Every status an item can have, across dialects. */
export const STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'blocked'] as const

export type Status = (typeof STATUSES)[number]

/** One todo item in canonical form. Dialect field names map onto `content`. */
export interface Item {
  id: string
  content: string
  status: Status
  active_form?: string
  description?: string
  owner?: string
  blocks: string[]
  blocked_by: string[]
  metadata?: Record<string, unknown>
  notes?: string
}

/**
 * Whether an item still needs work (neither completed nor cancelled).
 * @param item - the item to test
 */
export function isUnfinished(item: Item): boolean {
  return item.status !== 'completed' && item.status !== 'cancelled'
}

/**
 * Builds an item with empty dependency lists, dropping undefined optional fields.
 * @param fields - id, content, status and any optional fields
 */
export function makeItem(
  fields: Pick<Item, 'id' | 'content' | 'status'> & Partial<Omit<Item, 'id' | 'content' | 'status'>>
): Item {
  const item: Item = {
    id: fields.id,
    content: fields.content,
    status: fields.status,
    blocks: fields.blocks ?? [],
    blocked_by: fields.blocked_by ?? [],
  }
  if (fields.active_form !== undefined) item.active_form = fields.active_form
  if (fields.description !== undefined) item.description = fields.description
  if (fields.owner !== undefined) item.owner = fields.owner
  if (fields.metadata !== undefined) item.metadata = fields.metadata
  if (fields.notes !== undefined) item.notes = fields.notes
  return item
}

/**
 * The unfinished items of `before` that no longer appear (by id) in `after`:
 * what a whole-list write silently dropped.
 * @param before - the list before the write
 * @param after - the list after the write
 */
export function droppedItems(before: readonly Item[], after: readonly Item[]): Item[] {
  const kept = new Set(after.map((item) => item.id))
  return before.filter((item) => isUnfinished(item) && !kept.has(item.id))
}
