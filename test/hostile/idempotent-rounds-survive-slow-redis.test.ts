/**
 * Finding 5 on Redis: a write that committed but whose reply took longer than the command
 * timeout (1 s) answered 503, the claim on the Idempotency-Key was released, and the retry
 * applied the round again (s03 version 1 → 2, two identical TaskCreates). A TCP proxy in front of
 * a redis-server this test starts holds back the write script's replies; the reply is now stored
 * by the same script as the round, so the retry replays it.
 */
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { RedisSessionStore } from '../../src/store/redis/index.js'
import { luaScript } from '../../src/store/redis/scripts.js'
import { makeTestApp, type TestApp } from '../helpers.js'
import { startSlowReplyProxy, type SlowReplyProxy } from '../redis-proxy.js'
import {
  missingRedis,
  openTestRedisStore,
  probeRedisBinaries,
  startPrivateRedis,
  type PrivateRedis,
} from '../redis-support.js'

const missing = probeRedisBinaries()

if (missing) {
  missingRedis('hostile 05 on Redis (slow replies)', missing)
} else {
  const WRITE_LUA = luaScript('write-session')
  const WRITE_SHA = createHash('sha1').update(WRITE_LUA).digest('hex')
  /** The write script, as EVALSHA or (a connection's first use) as EVAL with its text. */
  const isWrite = ([name, first]: string[]) =>
    (name.toLowerCase() === 'evalsha' && first === WRITE_SHA) ||
    (name.toLowerCase() === 'eval' && first === WRITE_LUA)

  describe('hostile 05 on Redis: a committed round whose reply comes too late', () => {
    let redis: PrivateRedis
    let proxy: SlowReplyProxy
    let store: RedisSessionStore
    let t: TestApp
    const clock = { now: Date.parse('2026-11-30T12:00:00Z') }

    before(async () => {
      redis = await startPrivateRedis('slow')
      proxy = await startSlowReplyProxy({ host: '127.0.0.1', port: redis.port })
      store = await openTestRedisStore({
        url: proxy.url,
        now: () => clock.now,
        commandTimeoutMs: 1000,
      })
      t = makeTestApp({ store, now: () => clock.now })
    })
    after(async () => {
      await store?.close()
      await proxy?.close()
      await redis?.stop()
    })

    /** Sends the round while the write's reply is held back 1.5 s, then retries it at once. */
    async function slowThenRetry(path: string, body: unknown, key: string) {
      const headers = { 'Idempotency-Key': key }
      proxy.delayReplies(isWrite, 1500)
      const delayedBefore = proxy.delayed()
      const first = await t.call('POST', path, body, headers)
      proxy.reset()
      assert.equal(proxy.delayed(), delayedBefore + 1, 'the write reply was held back')
      assert.equal(first.status, 503, first.text)
      assert.equal(first.headers.get('retry-after'), '1')
      assert.ok(first.body.type.endsWith('/store-unavailable'), first.body.type)
      const retry = await t.call('POST', path, body, headers)
      assert.equal(retry.status, 200, retry.text)
      assert.equal(retry.headers.get('idempotent-replayed'), 'true')
      return retry
    }

    it('Should replay the s03 round to the retry: version stays 1', async () => {
      const body = {
        tool_calls: [
          {
            id: 'toolu_1',
            name: 'todo',
            input: { items: [{ id: '1', text: 'Write tests', status: 'pending' }] },
          },
        ],
      }
      const retry = await slowThenRetry('/v1/sessions/s03/rounds', body, 'slow-1')
      assert.equal(retry.body.version, 1)
      const view = await t.call('GET', '/v1/sessions/s03')
      assert.equal(view.body.version, 1, 'applied once')
      const history = await t.call('GET', '/v1/sessions/s03/history')
      assert.equal(history.status, 200)
      assert.deepEqual(
        history.body.entries.map((entry: { version: number }) => entry.version),
        [1]
      )
    })

    it('Should never store two identical TaskCreates', async () => {
      const create = (subject: string) => ({
        dialect: 'claude-tasks',
        tool_calls: [
          { id: 'toolu_c', name: 'TaskCreate', input: { subject, description: `Do ${subject}` } },
        ],
      })
      const retry = await slowThenRetry('/v1/sessions/tasks/rounds', create('Ship'), 'slow-2')
      assert.equal(retry.body.results[0].content, 'Task #1 created successfully: Ship')
      const view = await t.call('GET', '/v1/sessions/tasks')
      assert.deepEqual(
        view.body.items.map((item: { id: string; content: string }) => [item.id, item.content]),
        [['1', 'Ship']]
      )
      const next = await t.call('POST', '/v1/sessions/tasks/rounds', create('Review'))
      assert.equal(next.body.results[0].content, 'Task #2 created successfully: Review')
      assert.equal(next.body.version, 2)
    })
  })
}
