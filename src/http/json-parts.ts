/**
 * @module http/json-parts
 * JSON arrays built one element at a time, within a byte budget, giving the event loop back
 * between slices: a page of large sessions or history entries never holds the loop for long.
 */

import { randomUUID } from 'node:crypto'

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

/** Strings longer than this are serialised in pieces of this many characters. */
const STRING_PIECE = 64 * 1024
/** Arrays at least this long are serialised element by element. */
const ARRAY_SLICING = 16

/**
 * JSON text of a long string, a piece at a time: the same text as JSON.stringify (pieces never
 * split a surrogate pair).
 */
async function stringifyLongString(text: string): Promise<string> {
  const parts: string[] = []
  let slice = performance.now()
  for (let from = 0; from < text.length;) {
    let to = Math.min(text.length, from + STRING_PIECE)
    const code = text.charCodeAt(to - 1)
    if (to < text.length && code >= 0xd800 && code <= 0xdbff) to++
    parts.push(JSON.stringify(text.slice(from, to)).slice(1, -1))
    from = to
    if (performance.now() - slice > SLICE_MS) {
      await yieldToLoop()
      slice = performance.now()
    }
  }
  return `"${parts.join('')}"`
}

/**
 * JSON text of an object, its long top-level arrays serialised element by element and its long
 * strings a piece at a time, giving the event loop back every few ms; the same text as
 * JSON.stringify (key order kept). For views and history entries: `items` and `rendered`.
 * @param value - a plain object of JSON values
 */
export async function stringifySliced(value: object): Promise<string> {
  const nonce = randomUUID()
  const holes: { token: string; value: unknown }[] = []
  const shallow: Record<string, unknown> = { ...value }
  for (const [key, field] of Object.entries(shallow)) {
    const long =
      (Array.isArray(field) && field.length >= ARRAY_SLICING) ||
      (typeof field === 'string' && field.length > STRING_PIECE)
    if (!long) continue
    const token = `\u0000${nonce}:${holes.length}\u0000`
    holes.push({ token: JSON.stringify(token), value: field })
    shallow[key] = token
  }
  if (!holes.length) return JSON.stringify(value)
  const head = JSON.stringify(shallow)
  const out: string[] = []
  let at = 0
  for (const hole of holes) {
    // the holes appear in key order, and no other text can hold the nonce
    const found = head.indexOf(hole.token, at)
    out.push(head.slice(at, found))
    if (typeof hole.value === 'string') out.push(await stringifyLongString(hole.value))
    else {
      const parts: string[] = []
      await forEachSliced(hole.value as unknown[], (element) => {
        parts.push(JSON.stringify(element) ?? 'null')
      })
      out.push(`[${parts.join(',')}]`)
    }
    at = found + hole.token.length
  }
  out.push(head.slice(at))
  return out.join('')
}

const bodyEncoder = new TextEncoder()

/**
 * A response body for JSON text: the text itself when short, else a stream that encodes and
 * hands out 64 K characters at a time with a turn of the event loop between pieces, so that a
 * 2 MB body goes to the socket in slices (never splitting a surrogate pair).
 * @param text - the JSON text
 */
export function textBody(text: string): string | ReadableStream<Uint8Array> {
  if (text.length <= STRING_PIECE) return text
  let from = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (from > 0) await yieldToLoop()
        let to = Math.min(text.length, from + STRING_PIECE)
        const code = text.charCodeAt(to - 1)
        if (to < text.length && code >= 0xd800 && code <= 0xdbff) to++
        controller.enqueue(bodyEncoder.encode(text.slice(from, to)))
        from = to
        if (from >= text.length) controller.close()
      },
    },
    { highWaterMark: 0 }
  )
}
