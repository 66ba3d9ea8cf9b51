/**
 * @module core/limits
 * The service's own caps on a list, on top of each dialect's rules.
 */
import type { Item } from './items.js'

export interface ListLimits {
  /** Items per list (a hard cap over every dialect's own maximum). */
  maxItems: number
  /** Characters in an item's content, active form, description or notes. */
  maxContentLength: number
}

export const DEFAULT_LIST_LIMITS: ListLimits = { maxItems: 500, maxContentLength: 10_000 }

const TEXT_FIELDS = ['content', 'active_form', 'description', 'notes'] as const

/**
 * The first limit a list breaks, as a sentence naming it; null when within limits.
 * @param items - the list
 * @param limits - the caps
 */
export function checkListLimits(items: readonly Item[], limits: ListLimits): string | null {
  if (items.length > limits.maxItems) {
    return `Limit exceeded: a list may hold at most ${limits.maxItems} items (MAX_ITEMS); this one has ${items.length}.`
  }
  for (const item of items) {
    for (const field of TEXT_FIELDS) {
      const text = item[field]
      if (text !== undefined && text.length > limits.maxContentLength) {
        return `Limit exceeded: item ${item.id}'s ${field} has ${text.length} characters; at most ${limits.maxContentLength} are allowed (MAX_CONTENT_LENGTH).`
      }
    }
  }
  return null
}
