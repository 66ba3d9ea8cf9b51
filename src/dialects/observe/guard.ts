/**
 * @module dialects/observe/guard
 * An observed list obeys the same rules as one written here: every list an observer makes is
 * checked before it is stored. Ids are non-empty, at most 128 characters (an item id, as the API
 * takes it) and unique, and the dialect's own `checkList` (what the agent's tool refuses: an
 * empty TodoWrite content, two Gemini items in progress, …) holds; a list that breaks them is not
 * taken, as a refused call would not be. A task that blocks itself is repaired (the edge dropped):
 * an edge names two tasks. A snapshot whose result the agent reported as a success but that
 * breaks these was not made by the agent's tool (a forged or corrupted delivery), and storing it
 * would let a later call by id change two items at once.
 */
import type { Item } from '../../core/items.js'
import type { Dialect } from '../types.js'
import { notApplied, type ObserveOutcome } from './types.js'

/** The longest item id the API takes. */
const MAX_ITEM_ID = 128

/** The item without edges to itself, or the item itself when it has none. */
function withoutSelfEdges(item: Item): Item {
  if (!item.blocks.includes(item.id) && !item.blocked_by.includes(item.id)) return item
  return {
    ...item,
    blocks: item.blocks.filter((id) => id !== item.id),
    blocked_by: item.blocked_by.filter((id) => id !== item.id),
  }
}

/**
 * An observer's outcome held to the list rules: refused (not applied) when an id is empty, too
 * long or repeated, or the dialect's `checkList` refuses the list; self-blocks dropped.
 * @param dialect - the session's dialect
 * @param outcome - what the observer made of the call
 */
export function guardObserved(dialect: Dialect, outcome: ObserveOutcome): ObserveOutcome {
  if (!outcome.applied) return outcome
  const seen = new Set<string>()
  let repaired = false
  const items = outcome.state.items.map((item) => {
    const kept = withoutSelfEdges(item)
    if (kept !== item) repaired = true
    return kept
  })
  for (const item of items) {
    if (item.id === '' || item.id.length > MAX_ITEM_ID) {
      return notApplied(`an item id must have 1 to ${MAX_ITEM_ID} characters`)
    }
    if (seen.has(item.id)) return notApplied(`duplicate item id '${item.id}'`)
    seen.add(item.id)
  }
  const checked = dialect.checkList(items)
  if (!checked.ok) return notApplied(checked.message)
  return repaired ? { applied: true, state: { ...outcome.state, items } } : outcome
}
