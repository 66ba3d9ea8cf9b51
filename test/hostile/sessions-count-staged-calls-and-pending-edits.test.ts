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
import { makeTestApp } from '../helpers.js'
import { ingest } from '../ingest-support.js'

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

describe('an observed session stays within MAX_SESSION_BYTES with what it stages', () => {
  const SESSION = 'gemini:5e55b0c1-0000-4000-8000-00000000beef'
  const line = (value: object) => JSON.stringify(value)
  const todos = (n: number, size: number) => ({
    todos: Array.from({ length: n }, (_, i) => ({
      description: `${i} `.padEnd(size, 'x'),
      status: i === 0 ? 'in_progress' : 'pending',
    })),
  })

  it('Should not stage a call that would take the session past the cap beside its list', async () => {
    const t = makeTestApp({ limits: { maxSessionBytes: 16_384 } })
    const start = line({
      type: 'init',
      timestamp: '2026-12-01T08:00:00Z',
      session_id: SESSION.slice(7),
    })
    const first = [
      start,
      line({
        type: 'tool_use',
        tool_name: 'write_todos',
        tool_id: 'w1',
        parameters: todos(6, 1800),
      }),
      line({ type: 'tool_result', tool_id: 'w1', status: 'success' }),
    ]
    assert.equal((await ingest(t, 'gemini-cli', first.join('\n') + '\n')).status, 200)
    // a call whose result comes in a later delivery: staged, 6 KB of input beside an 11 KB list
    const pendingCall = line({
      type: 'tool_use',
      tool_name: 'write_todos',
      tool_id: 'w2',
      parameters: todos(3, 2000),
    })
    // the stream continued in parts: its later lines name no session
    const later = await ingest(t, 'gemini-cli', pendingCall + '\n', `?session_id=${SESSION}`)
    assert.equal(later.status, 200, later.text)
    const stored = await t.store.get({ tenant: 'default', sessionId: SESSION })
    assert.ok(stored?.observed)
    const whole = checkSessionLimits(
      { items: stored.items, dialect_state: stored.dialect_state, observed: stored.observed },
      { ...DEFAULT_LIST_LIMITS, maxSessionBytes: 16_384 }
    )
    assert.equal(whole, null, 'the stored session is within MAX_SESSION_BYTES')
    assert.deepEqual(stored.observed.pending, [])
  })
})
