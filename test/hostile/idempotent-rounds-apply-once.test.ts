/**
 * Finding 5: a round whose write committed but whose reply was lost (a Redis reply slower than
 * the command timeout, a crash between commit and storing the reply) was applied again by the
 * retry. The reply is now stored in the same atomic step as the round.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createMemoryStore } from '../../src/store/memory.js'
import { StoreUnavailableError, type SessionStore } from '../../src/store/types.js'
import { makeTestApp } from '../helpers.js'

const todo = (status: string) => ({
  tool_calls: [
    { id: 'toolu_1', name: 'todo', input: { items: [{ id: '1', text: 'Write tests', status }] } },
  ],
})

/** A store whose next update commits and then fails as a timed-out Redis call does. */
function losingReplies(store: SessionStore) {
  let loseNext = false
  const wrapped = Object.assign(Object.create(store), {
    async update(...args: Parameters<SessionStore['update']>) {
      const value = await store.update(...args)
      if (loseNext) {
        loseNext = false
        throw new StoreUnavailableError(new Error('Command timed out'))
      }
      return value
    },
  }) as SessionStore
  return { store: wrapped, loseNextReply: () => (loseNext = true) }
}

describe('hostile 05: idempotency holds when a committed round loses its reply', () => {
  it('Should replay the committed round to the retry instead of applying it again', async () => {
    const base = createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: Date.now })
    const { store, loseNextReply } = losingReplies(base)
    const t = makeTestApp({ store })
    const headers = { 'Idempotency-Key': 'retry-me' }
    loseNextReply()
    const first = await t.call('POST', '/v1/sessions/s1/rounds', todo('pending'), headers)
    assert.equal(first.status, 503)
    assert.ok(first.headers.get('retry-after'))
    const retry = await t.call('POST', '/v1/sessions/s1/rounds', todo('pending'), headers)
    assert.equal(retry.status, 200)
    assert.equal(retry.headers.get('idempotent-replayed'), 'true')
    assert.equal(retry.body.version, 1)
    assert.equal((await t.call('GET', '/v1/sessions/s1')).body.version, 1, 'applied once')
  })

  it('Should run the retry when nothing committed', async () => {
    const base = createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: Date.now })
    let failNext = true
    const store = Object.assign(Object.create(base), {
      async update(...args: Parameters<SessionStore['update']>) {
        if (failNext) {
          failNext = false
          throw new StoreUnavailableError(new Error('connection refused'))
        }
        return base.update(...args)
      },
    }) as SessionStore
    const t = makeTestApp({ store })
    const headers = { 'Idempotency-Key': 'k2' }
    assert.equal(
      (await t.call('POST', '/v1/sessions/s2/rounds', todo('pending'), headers)).status,
      503
    )
    const retry = await t.call('POST', '/v1/sessions/s2/rounds', todo('pending'), headers)
    assert.equal(retry.status, 200)
    assert.equal(retry.headers.get('idempotent-replayed'), null)
    assert.equal(retry.body.version, 1)
  })
})
