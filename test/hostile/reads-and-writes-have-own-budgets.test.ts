/**
 * Finding 11: in open access the whole company is one tenant, so the old default of 6000
 * requests a minute capped every agent together at 100 requests/s, and a viewer's reads spent
 * the agents' budget. The limits are now off by default and reads and writes have budgets of
 * their own.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig } from '../../src/config.js'
import { parseAuthKeys } from '../../src/http/auth.js'
import { StoreUnavailableError, type SharedCounters } from '../../src/store/types.js'
import { createMemoryStore } from '../../src/store/memory.js'
import { makeTestApp, type TestApp } from '../helpers.js'

const round = (
  t: TestApp,
  id: string,
  calls: unknown[],
  extra: object,
  headers: Record<string, string>
) => t.call('POST', `/v1/sessions/${id}/rounds`, { ...extra, tool_calls: calls }, headers)

const keys = parseAuthKeys('acme:agent:acme-agent-key-1,acme:viewer:acme-viewer-key-1')
const agent = { Authorization: 'Bearer acme-agent-key-1' }
const viewer = { Authorization: 'Bearer acme-viewer-key-1' }

describe('hostile 11: rate limits fit one tenant and its monitors', () => {
  it('Should turn both budgets off by default', () => {
    const config = loadConfig({})
    assert.equal(config.RATE_LIMIT_PER_MINUTE, 0)
    assert.equal(config.READ_RATE_LIMIT_PER_MINUTE, 0)
  })

  it('Should serve 1,000 requests a minute of one tenant with no limit configured', async () => {
    const t = makeTestApp({ keys })
    for (let i = 0; i < 1000; i++) {
      const res = await round(t, `s${i % 10}`, [{ name: 'bash' }], {}, agent)
      assert.equal(res.status, 200)
    }
  })

  it("Should keep a viewer's reads from spending the agents' write budget", async () => {
    const t = makeTestApp({ keys, rateLimitPerMinute: 3, readRateLimitPerMinute: 5 })
    for (let i = 0; i < 5; i++) {
      assert.equal((await t.call('GET', '/v1/sessions', undefined, viewer)).status, 200)
    }
    const read = await t.call('GET', '/v1/sessions', undefined, viewer)
    assert.equal(read.status, 429)
    assert.match(read.body.detail, /READ_RATE_LIMIT_PER_MINUTE/)
    for (let i = 0; i < 3; i++) {
      assert.equal((await round(t, 's1', [{ name: 'bash' }], {}, agent)).status, 200)
    }
    const write = await round(t, 's1', [{ name: 'bash' }], {}, agent)
    assert.equal(write.status, 429)
    assert.match(write.body.detail, /\(RATE_LIMIT_PER_MINUTE\)/)
  })

  it('Should let reads through uncounted when the shared counters cannot write', async () => {
    const failing: SharedCounters = {
      increment: () =>
        Promise.reject(new StoreUnavailableError(new Error('OOM command not allowed'), true)),
      decrement: async () => {},
      reset: async () => {},
    }
    const memory = createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: Date.now })
    const store = Object.assign(Object.create(memory), { counters: failing })
    const t = makeTestApp({ keys, store, rateLimitPerMinute: 3, readRateLimitPerMinute: 3 })
    assert.equal((await t.call('GET', '/v1/sessions', undefined, viewer)).status, 200)
    const write = await round(t, 's1', [{ name: 'bash' }], {}, agent)
    assert.equal(write.status, 503)
    assert.equal(write.headers.get('retry-after'), '1')
  })
})
