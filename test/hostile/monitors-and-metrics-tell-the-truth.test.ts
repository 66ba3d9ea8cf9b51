/**
 * What monitors read must be true. Seen before: an MCP call of an unknown tool counted as a store
 * error in /metrics (a store-error alert would fire on a hallucinated tool name); a session's
 * event stream answered 404 before the first round, and EventSource then gave up for good; the
 * quota refusal said "end old ones" though ended sessions still count.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, round } from '../helpers.js'
import { createMemoryStore } from '../../src/store/memory.js'

const ACCEPT = 'application/json, text/event-stream'

/** The value of a counter line of /metrics (0 when absent). */
async function counter(t: ReturnType<typeof makeTestApp>, line: RegExp): Promise<number> {
  const text = (await t.call('GET', '/metrics')).text
  const match = text.split('\n').find((l) => line.test(l))
  return match ? Number(match.split(' ').pop()) : 0
}

describe('Store errors count store faults only', () => {
  it('Should not count an MCP call of an unknown tool, or a refused PUT, as a store error', async () => {
    const t = makeTestApp()
    const call = await t.call(
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'rm_rf_everything', arguments: {} },
      },
      { Accept: ACCEPT, 'X-Session-Id': 's1' }
    )
    assert.equal(call.status, 200)
    assert.ok(call.body.error || call.body.result?.isError, call.text)
    const put = await t.call('PUT', '/v1/sessions/s2/todos', {
      items: [
        { id: '1', content: 'a', status: 'in_progress' },
        { id: '2', content: 'b', status: 'in_progress' },
      ],
    })
    assert.equal(put.status, 422)
    assert.equal(await counter(t, /^agent_todos_store_errors_total\{/), 0)
  })

  it('Should still count a store that fails', async () => {
    const store = createMemoryStore({ ttlMs: 60_000, historyLimit: 5, now: Date.now })
    store.update = async () => {
      throw new Error('disk on fire')
    }
    const t = makeTestApp({ store })
    const res = await round(t, 's3', [{ name: 'bash' }])
    assert.equal(res.status, 500)
    assert.equal(await counter(t, /^agent_todos_store_errors_total\{op="update"\}/), 1)
  })
})

describe("A session's event stream before its first round", () => {
  it('Should tell an EventSource to come back (200, retry:), and answer others 404', async () => {
    const t = makeTestApp()
    const early = await t.app.request('/v1/sessions/later/events', {
      headers: { Accept: 'text/event-stream' },
    })
    assert.equal(early.status, 200)
    assert.match(early.headers.get('content-type') ?? '', /^text\/event-stream/)
    assert.match(await early.text(), /^retry: \d+\n/)
    assert.equal((await t.call('GET', '/v1/sessions/later/events')).status, 404)
  })
})

describe('The session quota says what counts', () => {
  it('Should not tell a tenant to end sessions when ended ones still count', async () => {
    const t = makeTestApp({ limits: { maxSessionsPerTenant: 1 } })
    assert.equal((await round(t, 'one', [{ name: 'bash' }])).status, 200)
    const end = await t.call('POST', '/v1/sessions/one/end', { outcome: 'completed' })
    assert.equal(end.status, 200)
    const refused = await round(t, 'two', [{ name: 'bash' }])
    assert.equal(refused.status, 403)
    assert.doesNotMatch(refused.body.detail, /end old ones/)
    assert.match(refused.body.detail, /ended session counts/)
  })
})
