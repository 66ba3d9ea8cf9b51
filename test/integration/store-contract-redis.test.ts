/**
 * The store contract on the shared Redis (127.0.0.1:6379 unless TEST_REDIS_URL), under a key
 * prefix of its own, plus what only Redis has: change fan-out between instances and clear errors.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { openStore } from '../../src/store/index.js'
import { createRedisStore, isUnavailableError } from '../../src/store/redis/index.js'
import { guarded, isWriteRefusal } from '../../src/store/redis/errors.js'
import { Redis } from 'ioredis'
import { makeItem } from '../../src/core/items.js'
import { newSession, type Session } from '../../src/core/session.js'
import {
  StoreUnavailableError,
  type ListCursor,
  type ListQuery,
  type SessionStore,
} from '../../src/store/types.js'
import { storeContract } from '../store-contract.js'
import { fanOutSuite } from '../redis-fanout.js'
import {
  dropKeys,
  freeRedisPort,
  missingRedis,
  probeRedis,
  TEST_REDIS_URL,
  uniquePrefix,
} from '../redis-support.js'

const unreachable = await probeRedis()

if (unreachable) {
  missingRedis(`SessionStore contract: redis at ${TEST_REDIS_URL}`, unreachable)
} else {
  const prefix = uniquePrefix('contract')
  after(async () => {
    await dropKeys({ url: TEST_REDIS_URL }, prefix)
  })

  storeContract('redis', (options) =>
    createRedisStore({ ...options, url: TEST_REDIS_URL, keyPrefix: prefix })
  )

  fanOutSuite('redis', (options) =>
    createRedisStore({ ...options, url: TEST_REDIS_URL, keyPrefix: prefix })
  )

  describe('Redis listing index', () => {
    const tenant = `index-${process.pid}-${Date.now()}`
    let store: SessionStore
    let raw: Redis
    before(async () => {
      store = await createRedisStore({
        url: TEST_REDIS_URL,
        keyPrefix: prefix,
        ttlMs: 3_600_000,
        historyLimit: 5,
        now: Date.now,
      })
      raw = new Redis(TEST_REDIS_URL)
      const t0 = Date.now() - 1_000_000
      for (let i = 0; i < 120; i++) {
        const key = { tenant, sessionId: `s${String(i).padStart(3, '0')}` }
        await store.update(key, () => {
          const session: Session = {
            ...newSession(key, 's03', {}, t0 + i),
            version: 1,
            items: [
              makeItem({ id: '1', content: 'x', status: i % 10 === 0 ? 'completed' : 'pending' }),
            ],
          }
          return { value: null, write: { session, source: 'round' as const } }
        })
      }
    })
    after(async () => {
      await store.close()
      raw.disconnect()
    })

    const collect = async (state: ListQuery['state'], limit: number) => {
      const ids: string[] = []
      let cursor: ListCursor | undefined
      for (let page = 0; page < 200; page++) {
        const result = await store.list(tenant, { state, staleBefore: 0, limit, cursor })
        assert.ok(result.sessions.length <= limit)
        ids.push(...result.sessions.map((s) => s.session_id))
        if (!result.next) break
        cursor = result.next
      }
      return ids
    }

    it('Should page through a filtered listing that needs several index batches', async () => {
      const expected = Array.from(
        { length: 12 },
        (_, i) => `s${String(110 - i * 10).padStart(3, '0')}`
      )
      assert.deepEqual(await collect('done', 5), expected)
      assert.deepEqual((await collect('all', 7)).length, 120)
    })

    it('Should drop index members whose session is gone, when it meets them', async () => {
      await raw.del(`${prefix}:{${tenant}:s119}:s`)
      assert.equal((await raw.zscore(`${prefix}:{${tenant}}:sessions`, 's119')) !== null, true)
      const first = await store.list(tenant, { state: 'all', staleBefore: 0, limit: 1 })
      assert.deepEqual(
        first.sessions.map((s) => s.session_id),
        ['s118']
      )
      for (let waited = 0; waited < 1000; waited += 10) {
        if ((await raw.zscore(`${prefix}:{${tenant}}:sessions`, 's119')) === null) break
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      assert.equal(await raw.zscore(`${prefix}:{${tenant}}:sessions`, 's119'), null)
    })

    it('Should keep every key of a session under its hash tag, each with the sliding TTL', async () => {
      const keys = await raw.keys(`${prefix}:{${tenant}:s001}*`)
      assert.deepEqual(keys.sort(), [
        `${prefix}:{${tenant}:s001}:h`,
        `${prefix}:{${tenant}:s001}:s`,
      ])
      const ttl = await raw.pttl(`${prefix}:{${tenant}:s001}:s`)
      assert.ok(ttl > 3_500_000 && ttl <= 3_600_000, `session TTL ${ttl}`)
      assert.ok((await raw.pttl(`${prefix}:{${tenant}:s001}:h`)) > 3_500_000)
      assert.ok((await raw.pttl(`${prefix}:{${tenant}}:sessions`)) > 3_500_000)
    })
  })

  describe('Redis store setup and failures', () => {
    it('Should refuse a configuration without REDIS_URL or REDIS_CLUSTER_NODES', async () => {
      await assert.rejects(
        openStore({
          kind: 'redis',
          sqlitePath: '',
          sqliteSync: 'normal',
          ttlMs: 1000,
          historyLimit: 5,
          now: Date.now,
        }),
        /REDIS_URL .*REDIS_CLUSTER_NODES/
      )
    })

    it('Should retry at startup, log why, and give up clearly after its timeout', async () => {
      const port = await freeRedisPort()
      const logged: string[] = []
      const started = Date.now()
      await assert.rejects(
        createRedisStore({
          url: `redis://127.0.0.1:${port}`,
          ttlMs: 1000,
          historyLimit: 5,
          now: Date.now,
          startupTimeoutMs: 1200,
          logger: {
            info: (_, msg) => logged.push(msg),
            warn: (obj, msg) => logged.push(`${msg} ${JSON.stringify(obj)}`),
          },
        }),
        /redis unreachable at redis:\/\/127\.0\.0\.1:\d+\/? after \d+ ms: .*ECONNREFUSED/
      )
      assert.ok(Date.now() - started < 3000)
      assert.match(logged[0] ?? '', /redis unreachable at startup; retrying.*ECONNREFUSED/)
    })

    it('Should reject with StoreUnavailableError at once when Redis goes away', async () => {
      const store = await createRedisStore({
        url: TEST_REDIS_URL,
        keyPrefix: prefix,
        ttlMs: 60_000,
        historyLimit: 5,
        now: Date.now,
        logger: { info: () => undefined, warn: () => undefined },
      })
      await store.close()
      const started = Date.now()
      await assert.rejects(store.get({ tenant: 't', sessionId: 's' }), StoreUnavailableError)
      await assert.rejects(store.ping(), StoreUnavailableError)
      assert.ok(Date.now() - started < 500)
    })

    it('Should tell connection errors from script errors', () => {
      assert.equal(
        isUnavailableError(
          Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
        ),
        true
      )
      assert.equal(isUnavailableError(new Error('Command timed out')), true)
      assert.equal(
        isUnavailableError(
          new Error("Stream isn't writeable and enableOfflineQueue options is false")
        ),
        true
      )
      assert.equal(isUnavailableError(new Error('CLUSTERDOWN The cluster is down')), true)
      assert.equal(
        isUnavailableError(new Error('ERR Error running script: attempt to compare nil')),
        false
      )
      assert.equal(isUnavailableError(new Error('WRONGTYPE Operation against a key')), false)
    })

    it('Should take out-of-memory and read-only replies for refused writes, reads still served', async () => {
      for (const message of [
        "OOM command not allowed when used memory > 'maxmemory'.",
        "READONLY You can't write against a read only replica.",
        'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
        'NOREPLICAS Not enough good replicas to write.',
      ]) {
        assert.equal(isWriteRefusal(new Error(message)), true, message)
        assert.equal(isUnavailableError(new Error(message)), true, message)
        await assert.rejects(
          guarded(() => Promise.reject(new Error(message))),
          (error) => error instanceof StoreUnavailableError && error.writeOnly
        )
      }
      await assert.rejects(
        guarded(() => Promise.reject(new Error('Command timed out'))),
        (error) => error instanceof StoreUnavailableError && !error.writeOnly
      )
      assert.equal(isWriteRefusal(new Error('ERR Error running script')), false)
    })
  })
}
