/**
 * A key that PUTs the largest lists in a loop must not cost the store what a thousand small
 * writes do while spending the write budget of one: a write costs
 * `1 + floor(body bytes / 64 KiB)` units of RATE_LIMIT_PER_MINUTE (README, Limits).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, type TestApp } from '../helpers.js'
import { writeUnits } from '../../src/http/rate-limit.js'

/** A list of about `bytes` bytes of JSON. */
const listOf = (bytes: number) => {
  const count = Math.max(1, Math.floor(bytes / 5000))
  return Array.from({ length: count }, (_, i) => ({
    id: String(i + 1),
    content: `${i} `.padEnd(4950, 'x'),
    status: 'pending',
  }))
}

// claude-todowrite: lists of more than s03's 20 items, stored near MAX_SESSION_BYTES
const put = (t: TestApp, id: string, items: unknown[]) =>
  t.call('PUT', `/v1/sessions/${id}/todos`, { items, dialect: 'claude-todowrite' })

describe('large writes spend the write budget by their bytes', () => {
  it('Should charge 1 + floor(bytes / 64 KiB) units per write', () => {
    assert.equal(writeUnits(0), 1)
    assert.equal(writeUnits(64 * 1024 - 1), 1)
    assert.equal(writeUnits(64 * 1024), 2)
    assert.equal(writeUnits(1024 * 1024), 17)
  })

  it('Should let 40 small writes through a budget of 40, and only a few ~450 KB ones', async () => {
    const small = makeTestApp({ rateLimitPerMinute: 40 })
    for (let i = 0; i < 40; i++) {
      const res = await put(small, `s${i % 4}`, listOf(1000))
      assert.equal(res.status, 200, `small write ${i}`)
    }
    assert.equal((await put(small, 's0', listOf(1000))).status, 429)

    const large = makeTestApp({ rateLimitPerMinute: 40 })
    const items = listOf(450 * 1024)
    const units = writeUnits(Buffer.byteLength(JSON.stringify({ items })))
    assert.ok(units >= 7, `a ~450 KB body costs ${units} units`)
    let passed = 0
    for (let i = 0; i < 10; i++) {
      const res = await put(large, `l${i % 2}`, items)
      if (res.status === 429) break
      assert.equal(res.status, 200)
      // the request that passed is not told to retry: its extra units refuse the next one
      assert.equal(res.headers.get('retry-after'), null)
      passed++
    }
    // each passes on its first unit while any is left: ceil(40 / units) of them
    assert.equal(passed, Math.ceil(40 / units))
  })
})
