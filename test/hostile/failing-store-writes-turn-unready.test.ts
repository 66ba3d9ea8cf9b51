/**
 * Finding 6: a store that cannot write (disk full, read-only, Redis out of memory) answered 500
 * while /readyz stayed 200. Now: 503 with Retry-After, readiness 503 from a failed write until a
 * write succeeds again, reads go on. The real backends' faults are in the store tests; this pins
 * the HTTP side on any store.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createMemoryStore } from '../../src/store/memory.js'
import { StoreUnavailableError, type SessionStore } from '../../src/store/types.js'
import { makeTestApp, round } from '../helpers.js'

function fullDisk(store: SessionStore) {
  let full = false
  const refusal = () => new StoreUnavailableError(new Error('SQLITE_FULL'), true)
  const refuse = () => {
    if (full) throw refusal()
  }
  const wrapped = Object.assign(Object.create(store), {
    async update(...args: Parameters<SessionStore['update']>) {
      refuse()
      return store.update(...args)
    },
    async delete(...args: Parameters<SessionStore['delete']>) {
      refuse()
      return store.delete(...args)
    },
    checkWritable() {
      return full ? Promise.reject(refusal()) : Promise.resolve()
    },
  }) as SessionStore
  return { store: wrapped, setFull: (value: boolean) => (full = value) }
}

describe('hostile 06: a store that cannot write answers 503, never 500', () => {
  it('Should answer 503 with Retry-After, keep reads, turn readiness 503 and recover', async () => {
    const disk = fullDisk(createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: Date.now }))
    const t = makeTestApp({ store: disk.store })
    assert.equal((await round(t, 's1', [{ name: 'bash' }])).status, 200)
    assert.equal((await t.call('GET', '/readyz')).status, 200)
    disk.setFull(true)
    for (const attempt of [
      () => round(t, 's1', [{ name: 'bash' }]),
      () => t.call('PUT', '/v1/sessions/s1/todos', { items: [] }),
      () => t.call('POST', '/v1/sessions/s1/end', { outcome: 'completed' }),
      () => t.call('DELETE', '/v1/sessions/s1'),
    ]) {
      const res = await attempt()
      assert.equal(res.status, 503)
      assert.equal(res.headers.get('retry-after'), '1')
      assert.equal(res.body.type.endsWith('/store-unavailable'), true)
    }
    assert.equal((await t.call('GET', '/readyz')).status, 503)
    assert.equal((await t.call('GET', '/v1/sessions/s1')).status, 200, 'reads go on')
    assert.equal((await t.call('GET', '/v1/sessions')).status, 200)
    disk.setFull(false)
    assert.equal((await t.call('GET', '/readyz')).status, 200, 'a probe write succeeds')
    assert.equal((await round(t, 's1', [{ name: 'bash' }])).status, 200)
  })
})
