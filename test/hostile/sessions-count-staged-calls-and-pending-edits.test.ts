/**
 * An observed session keeps more than its list: calls staged until their result, and a person's
 * edit waiting for the model (a second list). Both were outside MAX_SESSION_BYTES, so a session
 * could hold about three times the cap that reads, listings and streams are sized for.
 * `checkSessionLimits` (core/limits) measures the whole session.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Item } from '../../src/core/items.js'
import {
  checkSessionLimits,
  checkStoredLimits,
  DEFAULT_LIST_LIMITS,
} from '../../src/core/limits.js'

/** A list of about `kb` KB. */
const listOf = (kb: number): Item[] =>
  Array.from({ length: kb / 10 }, (_, i) =>
    makeItem({ id: String(i + 1), content: `${i} `.padEnd(9_900, 'x'), status: 'pending' })
  )

const observed = (
  extra: Partial<{
    pending: { input: unknown; bytes?: number }[]
    pending_edit: { items: Item[] } | null
  }>
) => ({
  pending: [],
  pending_edit: null,
  ...extra,
})

describe('sessions count staged calls and pending edits against MAX_SESSION_BYTES', () => {
  const items = listOf(600)

  it('Should pass a 600 KB list alone, as before', () => {
    assert.equal(checkStoredLimits({ items, data: {} }, DEFAULT_LIST_LIMITS), null)
    assert.equal(checkSessionLimits({ items, dialect_state: {} }, DEFAULT_LIST_LIMITS), null)
    assert.equal(
      checkSessionLimits({ items, dialect_state: {}, observed: observed({}) }, DEFAULT_LIST_LIMITS),
      null
    )
  })

  it('Should refuse a 600 KB list with a 600 KB pending edit', () => {
    const refusal = checkSessionLimits(
      { items, dialect_state: {}, observed: observed({ pending_edit: { items: listOf(600) } }) },
      DEFAULT_LIST_LIMITS
    )
    assert.match(refusal ?? '', /MAX_SESSION_BYTES/)
  })

  it('Should refuse a 600 KB list with 600 KB of staged inputs, measured or not', () => {
    const input = { content: 'y'.repeat(200_000) }
    for (const bytes of [undefined, 200_012]) {
      const pending = [1, 2, 3].map(() => ({ input, bytes }))
      const refusal = checkSessionLimits(
        { items, dialect_state: {}, observed: observed({ pending }) },
        DEFAULT_LIST_LIMITS
      )
      assert.match(refusal ?? '', /staged calls and pending edit/, String(bytes))
    }
  })

  it('Should still name the first other limit a list breaks', () => {
    const refusal = checkSessionLimits(
      {
        items: [makeItem({ id: '1', content: 'x'.repeat(20_000), status: 'pending' })],
        dialect_state: {},
        observed: observed({ pending_edit: { items: listOf(10) } }),
      },
      DEFAULT_LIST_LIMITS
    )
    assert.match(refusal ?? '', /MAX_CONTENT_LENGTH/)
  })
})
