/**
 * @module core/progress
 * Progress counters of a list.
 */
import type { Item } from './items.js'

export interface Progress {
  total: number
  completed: number
  in_progress: number
  pending: number
  cancelled: number
  blocked: number
  percent: number
}

/**
 * Counts items by status. `percent = floor(100 × completed / (total − cancelled))`, 0 when
 * the denominator is 0.
 * @param items - the list
 */
export function computeProgress(items: readonly Item[]): Progress {
  const progress: Progress = {
    total: items.length,
    completed: 0,
    in_progress: 0,
    pending: 0,
    cancelled: 0,
    blocked: 0,
    percent: 0,
  }
  for (const item of items) progress[item.status]++
  const denominator = progress.total - progress.cancelled
  progress.percent = denominator > 0 ? Math.floor((100 * progress.completed) / denominator) : 0
  return progress
}

/**
 * The item in progress (the first one when a dialect allows several), or null.
 * @param items - the list
 */
export function currentItem(items: readonly Item[]): Item | null {
  return items.find((item) => item.status === 'in_progress') ?? null
}
