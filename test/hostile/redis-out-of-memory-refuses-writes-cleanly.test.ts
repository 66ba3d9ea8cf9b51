/**
 * Finding 6 on Redis: with `maxmemory` reached under `noeviction`, updates, PUT and end answered
 * 500, and a write creating a session still succeeded and pushed Redis past its limit (its
 * script began with a DEL, which Redis lets through, and then ran to the end). Against a
 * redis-server this test starts: every write answers 503 with Retry-After, /readyz 503, reads
 * serve, a creation stores nothing, the shared counters fail as unavailable (the rate limiter
 * decides what to do), and once maxmemory is raised writes and readiness recover without a
 * restart.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Redis } from 'ioredis'
import type { RedisSessionStore } from '../../src/store/redis/index.js'
import { StoreUnavailableError } from '../../src/store/types.js'
import { makeTestApp, round, type TestApp } from '../helpers.js'
import {
  missingRedis,
  openTestRedisStore,
  probeRedisBinaries,
  startPrivateRedis,
  type PrivateRedis,
} from '../redis-support.js'

const missing = probeRedisBinaries()

if (missing) {
  missingRedis('hostile 06 on Redis (out of memory)', missing)
} else {
  describe('hostile 06 on Redis: out of memory under noeviction answers 503, never 500', () => {
    let redis: PrivateRedis
    let raw: Redis
    let store: RedisSessionStore
    let t: TestApp
    const clock = { now: Date.parse('2026-11-30T12:00:00Z') }
    const todo = (text: string) => [
      { name: 'todo', input: { items: [{ id: '1', text, status: 'pending' }] } },
    ]

    before(async () => {
      redis = await startPrivateRedis('oom', ['--maxmemory-policy', 'noeviction'])
      raw = new Redis(redis.url)
      store = await openTestRedisStore({ url: redis.url, now: () => clock.now })
      t = makeTestApp({ store, now: () => clock.now })
    })
    after(async () => {
      await store?.close()
      raw?.disconnect()
      await redis?.stop()
    })

    it('Should refuse writes with 503, keep reads, store no creation, and recover', async () => {
      assert.equal((await round(t, 's1', todo('before'))).status, 200)
      assert.equal((await t.call('GET', '/readyz')).status, 200)
      const keysBefore = await raw.dbsize()

      // far below what Redis already uses: every command that needs memory is refused
      await raw.config('SET', 'maxmemory', '1')
      const writes: [string, () => ReturnType<TestApp['call']>][] = [
        ['round', () => round(t, 's1', todo('during'))],
        [
          'idempotent round',
          () =>
            t.call(
              'POST',
              '/v1/sessions/s1/rounds',
              { tool_calls: todo('during') },
              { 'Idempotency-Key': 'oom-1' }
            ),
        ],
        ['put', () => t.call('PUT', '/v1/sessions/s1/todos', { items: [] })],
        ['end', () => t.call('POST', '/v1/sessions/s1/end', { outcome: 'completed' })],
        ['delete', () => t.call('DELETE', '/v1/sessions/s1')],
        ['creation', () => round(t, 'fresh', todo('new'))],
        ['creation by put', () => t.call('PUT', '/v1/sessions/fresh2/todos', { items: [] })],
      ]
      for (const [what, write] of writes) {
        const res = await write()
        assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`)
        assert.equal(res.headers.get('retry-after'), '1', what)
        assert.ok(res.body.type.endsWith('/store-unavailable'), `${what}: ${res.body.type}`)
        assert.match(res.body.detail, /cannot write/, what)
      }
      assert.equal((await t.call('GET', '/readyz')).status, 503)

      const view = await t.call('GET', '/v1/sessions/s1')
      assert.equal(view.status, 200, 'reads go on')
      assert.equal(view.body.version, 1)
      assert.equal((await t.call('GET', '/v1/sessions/s1/history')).status, 200)
      const list = await t.call('GET', '/v1/sessions')
      assert.equal(list.status, 200)
      assert.deepEqual(
        list.body.sessions.map((s: { session_id: string }) => s.session_id),
        ['s1']
      )
      assert.equal((await t.call('GET', '/v1/sessions/fresh')).status, 404)
      assert.equal(await raw.dbsize(), keysBefore, 'nothing was written past the limit')

      // the fleet's rate-limit counters need memory too: unavailable, not a bug
      await assert.rejects(store.counters.increment('tenant:default', 60_000), (error) => {
        assert.ok(error instanceof StoreUnavailableError)
        assert.equal(error.writeOnly, true)
        return true
      })

      await raw.config('SET', 'maxmemory', '0')
      assert.equal((await t.call('GET', '/readyz')).status, 200, 'a probe write succeeds again')
      const again = await round(t, 's1', todo('after'))
      assert.equal(again.status, 200)
      assert.equal(again.body.version, 2)
      assert.equal((await round(t, 'fresh', todo('new'))).status, 200)
      assert.equal((await store.counters.increment('tenant:default', 60_000)).hits, 1)
    })
  })
}
