/**
 * Finding 10: with MAX_SESSIONS_PER_TENANT=5, 100 concurrent creations stored 100 sessions. The
 * count and the creation are now one atomic step in the store.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, round } from '../helpers.js'

describe('hostile 10: the session quota is hard', () => {
  it('Should store exactly the cap among 100 concurrent creations', async () => {
    const t = makeTestApp({ limits: { maxSessionsPerTenant: 5 } })
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => round(t, `c${i}`, [{ name: 'bash' }]))
    )
    const statuses = replies.map((r) => r.status)
    assert.equal(statuses.filter((s) => s === 200).length, 5)
    assert.equal(statuses.filter((s) => s === 403).length, 95)
    const list = await t.call('GET', '/v1/sessions?limit=200')
    assert.equal(list.body.sessions.length, 5)
  })

  it('Should not count deleted sessions', async () => {
    const t = makeTestApp({ limits: { maxSessionsPerTenant: 1 } })
    assert.equal((await round(t, 'a', [{ name: 'bash' }])).status, 200)
    await t.call('DELETE', '/v1/sessions/a')
    assert.equal((await round(t, 'b', [{ name: 'bash' }])).status, 200)
    assert.equal((await round(t, 'a', [{ name: 'bash' }])).status, 403)
  })
})
