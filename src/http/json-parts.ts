/**
 * @module http/json-parts
 * JSON arrays built one element at a time, within a byte budget, giving the event loop back
 * between slices: a page of large sessions or history entries never holds the loop for long.
 */

/** The most bytes of elements one page (history, listing, tenant snapshot) carries. */
export const PAGE_BYTES = 2 * 1024 * 1024

/** How long serialisation runs before it lets other work in. */
const SLICE_MS = 4

/** Resolves on the next turn of the event loop, after pending I/O. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export interface JsonArray {
  /** The elements taken, as one JSON array text. */
  json: string
  /** How many elements (from the front) it holds. */
  taken: number
  /** UTF-8 bytes of the elements. */
  bytes: number
}

/**
 * Serialises elements in order while their UTF-8 size fits in `maxBytes` (the first one always
 * goes in, so a page is never empty), yielding to the event loop every few milliseconds.
 * @param items - the elements, in page order
 * @param toJson - one element's JSON text
 * @param maxBytes - the budget
 */
export async function jsonArrayWithin<T>(
  items: readonly T[],
  toJson: (item: T) => string,
  maxBytes: number
): Promise<JsonArray> {
  const parts: string[] = []
  let bytes = 0
  let slice = performance.now()
  for (const item of items) {
    const json = toJson(item)
    const size = Buffer.byteLength(json) + 1
    if (parts.length && bytes + size > maxBytes) break
    parts.push(json)
    bytes += size
    if (performance.now() - slice > SLICE_MS) {
      await yieldToLoop()
      slice = performance.now()
    }
  }
  return { json: `[${parts.join(',')}]`, taken: parts.length, bytes }
}

/**
 * A time-sliced loop: calls `fn` for each element, yielding to the event loop every few
 * milliseconds; stops early when `fn` returns false.
 * @param items - the elements
 * @param fn - the work for one element
 */
export async function forEachSliced<T>(
  items: Iterable<T>,
  fn: (item: T) => boolean | void
): Promise<void> {
  let slice = performance.now()
  for (const item of items) {
    if (fn(item) === false) return
    if (performance.now() - slice > SLICE_MS) {
      await yieldToLoop()
      slice = performance.now()
    }
  }
}

const HOLE = '\u0000sliced\u0000'

/**
 * JSON text of an object whose `key` holds a long array: that array is serialised element by
 * element (yielding to the event loop between slices), the rest at once; the key order is kept.
 * @param value - the object, e.g. a session view
 * @param key - the array-valued key, e.g. `items`
 */
export async function stringifySliced<T extends object>(value: T, key: keyof T & string) {
  const array = value[key] as unknown
  if (!Array.isArray(array) || array.length < 16) return JSON.stringify(value)
  const head = JSON.stringify({ ...value, [key]: HOLE })
  // the first occurrence is the key itself: it comes before any text a field could hold
  const marker = `${JSON.stringify(key)}:${JSON.stringify(HOLE)}`
  const at = head.indexOf(marker)
  const parts: string[] = []
  await forEachSliced(array, (element) => void parts.push(JSON.stringify(element)))
  return `${head.slice(0, at)}${JSON.stringify(key)}:[${parts.join(',')}]${head.slice(at + marker.length)}`
}
