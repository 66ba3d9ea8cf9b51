/**
 * @module core/limits
 * The service's own caps on what a session may store, on top of each dialect's rules, and the
 * depth scans that enforce them without recursion.
 *
 * How depth is counted: an object or array is one level deeper than the container holding it,
 * and scalars add no level. A stored item is level 1, so `{"metadata": {"a": [1]}}` is 3 levels
 * deep (the item, its metadata, the array); the dialect state counts the same way. A request body
 * counts from its root: `{"a": 1}` is 1 level, `[]` is 1, `1` is 0.
 */
import type { Item } from './items.js'

export interface ListLimits {
  /** Items per list (a hard cap over every dialect's own maximum). */
  maxItems: number
  /** Characters in an item's content, active form, description or notes. */
  maxContentLength: number
  /** Nesting levels of a stored item (the item is level 1) or of the dialect state. */
  maxJsonDepth: number
  /**
   * Bytes of a session's stored JSON: the UTF-8 length of `JSON.stringify(items)` plus that of
   * `JSON.stringify(dialect_state)`. History entries are copies of the list, so each is within it.
   */
  maxSessionBytes: number
}

export const DEFAULT_LIST_LIMITS: ListLimits = {
  maxItems: 500,
  maxContentLength: 10_000,
  maxJsonDepth: 32,
  maxSessionBytes: 1_048_576,
}

/**
 * The largest value each configurable limit may be set to. The request schemas cap their fields
 * here, so a request within any configured limit is never refused by a schema: the limit's own
 * check answers, naming it.
 */
export const LIMIT_CEILINGS = {
  maxItems: 10_000,
  maxContentLength: 1_048_576,
  // a stored item sits a few levels below a request body's root; this keeps it within MAX_BODY_DEPTH
  maxJsonDepth: 256,
  maxSessionBytes: 64 * 1_048_576,
  maxToolCalls: 128,
} as const

/**
 * Nesting levels a request body (or a JSON text inside one, such as OpenAI `arguments`) may have;
 * deeper gets 400. Far under the stack depth at which JavaScript's recursive `JSON.stringify`
 * overflows (about 4,000 levels in a request), so every later serialisation is safe.
 */
export const MAX_BODY_DEPTH = 512

const TEXT_FIELDS = ['content', 'active_form', 'description', 'notes'] as const

/**
 * Whether a JSON text nests deeper than `limit` (levels counted as in the module's header),
 * without parsing it or recursing. Brackets inside strings do not count. Meant for a text about
 * to be parsed: an invalid one may get either answer, and the parser then refuses it.
 * @param text - the JSON text
 * @param limit - the deepest nesting allowed
 */
export function jsonTooDeep(text: string, limit: number): boolean {
  // a text deeper than `limit` holds more than `limit` opening brackets: most texts hold fewer,
  // and counting them (native searches) is far cheaper than scanning the text
  if (text.length <= limit || countUpTo(text, '{', limit) + countUpTo(text, '[', limit) <= limit) {
    return false
  }
  return jsonTextDepth(text, limit) > limit
}

/** How often `char` occurs in `text`, counting no further than `cap + 1`. */
function countUpTo(text: string, char: string, cap: number): number {
  let count = 0
  for (let i = text.indexOf(char); i !== -1 && count <= cap; i = text.indexOf(char, i + 1)) count++
  return count
}

/**
 * The deepest nesting in a JSON text, counted as in the module's header, by one scan without
 * recursion; it stops once past `limit`, so the answer is exact up to `limit` and `limit + 1`
 * beyond. Brackets inside strings do not count.
 * @param text - the JSON text
 * @param limit - the deepest nesting of interest
 */
export function jsonTextDepth(text: string, limit: number): number {
  let depth = 0
  let max = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      i = stringEnd(text, i)
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max && (max = depth) > limit) return max
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    }
  }
  return max
}

/** The index of the quote closing the string opened at `open` (the text's end if none). */
function stringEnd(text: string, open: number): number {
  let i = open
  for (;;) {
    i = text.indexOf('"', i + 1)
    if (i === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return i
  }
}

/** What `measure` learns of a JSON value. */
interface Measure {
  /** Nesting levels, counted from 1 at the value; `limit + 1` once over the limit. */
  depth: number
  /** An upper bound on the UTF-8 bytes of its JSON text (Infinity when over the depth limit). */
  bound: number
}

/**
 * What one check (or one round, with one set of limits) learned of the values it saw, by
 * identity; the values are not changed in place.
 */
export interface LimitCache {
  /** Of values inside items and states (an item's metadata outlives most updates of its item). */
  measures?: WeakMap<object, Measure>
  /** The exact serialised size of items and states, once a bound was not enough. */
  bytes?: WeakMap<object, number>
  /** The size bound of items of long lists that passed every per-item check. */
  items?: WeakMap<Item, number>
}

/** Lists at least this long remember their items' checks: most calls change one or two items. */
const REMEMBERED_LIST_LENGTH = 32

/** An empty cache, for one check or one round (its maps are made when first needed). */
export const newLimitCache = (): LimitCache => ({})

// JSON.stringify writes at most 6 bytes per UTF-16 unit (`\u001f`; a lone surrogate as `\udXXX`)
const STRING_FACTOR = 6
// the longest number JSON.stringify writes: -1.2345678901234567e-308
const NUMBER_BOUND = 25

/**
 * The depth of a JSON value and an upper bound on its serialised size, by an iterative walk that
 * stops once the value is deeper than `limit`.
 * @param value - an object or array
 * @param limit - the deepest nesting allowed
 */
function measure(value: object, limit: number): Measure {
  const values: unknown[] = [value]
  const depths: number[] = [1]
  let max = 0
  let bound = 0
  while (values.length > 0) {
    const node = values.pop()
    const depth = depths.pop()!
    if (depth > max && (max = depth) > limit) return { depth: max, bound: Infinity }
    bound += 2
    if (Array.isArray(node)) {
      for (const child of node) {
        bound += 1
        if (typeof child === 'string') bound += STRING_FACTOR * child.length + 2
        else if (typeof child === 'object' && child !== null) {
          values.push(child)
          depths.push(depth + 1)
        } else bound += NUMBER_BOUND
      }
    } else {
      for (const key in node as Record<string, unknown>) {
        const child = (node as Record<string, unknown>)[key]
        bound += STRING_FACTOR * key.length + 4
        if (typeof child === 'string') bound += STRING_FACTOR * child.length + 2
        else if (typeof child === 'object' && child !== null) {
          values.push(child)
          depths.push(depth + 1)
        } else bound += NUMBER_BOUND
      }
    }
  }
  return { depth: max, bound }
}

function measured(value: object, limit: number, cache: LimitCache): Measure {
  const measures = (cache.measures ??= new WeakMap())
  let m = measures.get(value)
  if (m === undefined) measures.set(value, (m = measure(value, limit)))
  return m
}

/**
 * `measure` of a value one level below its container (an item's field, a state's entry),
 * without a walk or an allocation for the usual flat ones: strings, numbers, arrays of strings.
 */
function fieldMeasure(value: unknown, limit: number, cache: LimitCache): Measure | number {
  if (typeof value === 'string') return STRING_FACTOR * value.length + 2
  if (typeof value !== 'object' || value === null) return NUMBER_BOUND
  if (Array.isArray(value)) {
    let bound = 2
    for (const entry of value) {
      if (typeof entry !== 'string') return measured(value, limit, cache)
      bound += STRING_FACTOR * entry.length + 3
    }
    return limit >= 1 ? bound : { depth: 1, bound: Infinity }
  }
  return measured(value, limit, cache)
}

/**
 * The depth of an object (an item, a dialect state; level 1) and a bound on its size.
 * @returns the bound, or -1 when deeper than `limit`
 */
function objectBound(value: Readonly<Record<string, unknown>>, limit: number, cache: LimitCache) {
  let bound = 2
  for (const key in value) {
    const m = fieldMeasure(value[key], limit - 1, cache)
    if (typeof m === 'number') bound += m
    else if (m.depth > limit - 1) return -1
    else bound += m.bound
    bound += STRING_FACTOR * key.length + 4
  }
  return bound
}

function exactBytes(value: object, cache: LimitCache): number {
  const sizes = (cache.bytes ??= new WeakMap())
  let bytes = sizes.get(value)
  if (bytes === undefined) {
    // safe to serialise: the value is within the depth limit
    sizes.set(value, (bytes = Buffer.byteLength(JSON.stringify(value))))
  }
  return bytes
}

/**
 * The first limit a list breaks (item count, text lengths), as a sentence naming it; null when
 * within limits.
 * @param items - the list
 * @param limits - the caps
 */
export function checkListLimits(items: readonly Item[], limits: ListLimits): string | null {
  if (items.length > limits.maxItems) {
    return `Limit exceeded: a list may hold at most ${limits.maxItems} items (MAX_ITEMS); this one has ${items.length}.`
  }
  for (const item of items) {
    const overLength = textOverLength(item, limits)
    if (overLength) return overLength
  }
  return null
}

function textOverLength(item: Item, limits: ListLimits): string | null {
  for (const field of TEXT_FIELDS) {
    const text = item[field]
    if (text !== undefined && text.length > limits.maxContentLength) {
      return `Limit exceeded: item ${item.id}'s ${field} has ${text.length} characters; at most ${limits.maxContentLength} are allowed (MAX_CONTENT_LENGTH).`
    }
  }
  return null
}

/**
 * The first limit a session's stored state breaks, as a sentence naming it; null when within
 * limits: `MAX_ITEMS`, `MAX_CONTENT_LENGTH`, `MAX_JSON_DEPTH` (per item and for the dialect
 * state), then `MAX_SESSION_BYTES`. Cheap for a small session: the size is bounded from the
 * lengths of its strings, and only a state whose bound passes the cap is serialised to count it.
 * @param state - the list and the dialect state a write would store
 * @param limits - the caps
 * @param cache - measures of items and states already checked (e.g. earlier in the same round)
 */
export function checkStoredLimits(
  state: { items: readonly Item[]; data: Readonly<Record<string, unknown>> },
  limits: ListLimits,
  cache: LimitCache = newLimitCache()
): string | null {
  const { items, data } = state
  if (items.length > limits.maxItems) return checkListLimits(items, limits)
  const depthLimit = limits.maxJsonDepth
  const passed = items.length >= REMEMBERED_LIST_LENGTH ? (cache.items ??= new WeakMap()) : null
  let bound = 2 + items.length
  for (const item of items) {
    const known = passed?.get(item)
    if (known !== undefined) {
      bound += known
      continue
    }
    const overLength = textOverLength(item, limits)
    if (overLength) return overLength
    const itemBound = objectBound(item as unknown as Record<string, unknown>, depthLimit, cache)
    if (itemBound < 0) {
      return `Limit exceeded: item ${item.id} is nested more than ${depthLimit} levels deep (the item is level 1, its metadata level 2); at most ${depthLimit} are allowed (MAX_JSON_DEPTH).`
    }
    passed?.set(item, itemBound)
    bound += itemBound
  }
  const dataBound = objectBound(data, depthLimit, cache)
  if (dataBound < 0) {
    return `Limit exceeded: the dialect state is nested more than ${depthLimit} levels deep; at most ${depthLimit} are allowed (MAX_JSON_DEPTH).`
  }
  bound += dataBound
  if (bound <= limits.maxSessionBytes) return null
  // `[`, `]` and the commas between items
  let bytes = 2 + Math.max(0, items.length - 1) + exactBytes(data, cache)
  for (const item of items) bytes += exactBytes(item, cache)
  if (bytes <= limits.maxSessionBytes) return null
  return `Limit exceeded: the session's stored JSON would be ${bytes} bytes; at most ${limits.maxSessionBytes} are allowed (MAX_SESSION_BYTES).`
}

/** What an observed session keeps besides its list and dialect state (`core/session` Observed). */
export interface ObservedData {
  /** Staged calls: their inputs, measured when staged (`bytes`) or here. */
  pending: readonly { input: unknown; bytes?: number }[]
  /** A person's edit waiting for the model: a second list. */
  pending_edit: { items: readonly Item[] } | null
}

/**
 * Bytes an observed session holds beyond its list and dialect state: its staged calls' inputs
 * and its pending edit's list, each measured once (staged calls carry their size).
 * @param observed - the session's observed part
 * @param cache - sizes measured before
 */
export function observedBytes(observed: ObservedData, cache: LimitCache = newLimitCache()): number {
  let bytes = 0
  for (const call of observed.pending) {
    bytes +=
      call.bytes ??
      (typeof call.input === 'object' && call.input !== null
        ? exactBytes(call.input, cache)
        : Buffer.byteLength(JSON.stringify(call.input ?? null)))
  }
  const edit = observed.pending_edit
  if (edit) bytes += exactBytes(edit.items, cache)
  return bytes
}

/**
 * `checkStoredLimits` for a whole session: what an observed session stages (calls waiting for
 * their result) and a person's pending edit count against `MAX_SESSION_BYTES` with its list and
 * dialect state, so that no part of a session grows it past the cap that reads, listings and
 * streams are sized for.
 * @param session - the list, the dialect state and, for an observed session, what it keeps
 * @param limits - the caps
 * @param cache - measures of items and states already checked
 */
export function checkSessionLimits(
  session: {
    items: readonly Item[]
    dialect_state: Readonly<Record<string, unknown>>
    observed?: ObservedData
  },
  limits: ListLimits,
  cache: LimitCache = newLimitCache()
): string | null {
  const extra = session.observed ? observedBytes(session.observed, cache) : 0
  const state = { items: session.items, data: session.dialect_state }
  if (extra === 0) return checkStoredLimits(state, limits, cache)
  const within = { ...limits, maxSessionBytes: Math.max(0, limits.maxSessionBytes - extra) }
  const over = checkStoredLimits(state, within, cache)
  if (over === null || !over.endsWith('(MAX_SESSION_BYTES).')) return over
  return `Limit exceeded: the session's list and state with its ${extra} bytes of staged calls and pending edit would pass ${limits.maxSessionBytes} bytes; at most ${limits.maxSessionBytes} are allowed (MAX_SESSION_BYTES).`
}
