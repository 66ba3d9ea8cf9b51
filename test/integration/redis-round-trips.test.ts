/**
 * One Redis round trip per mutation, counted with INFO commandstats on a redis-server of this
 * test's own (commandstats count every client's commands: on the shared Redis another test file's
 * alert worker, polling beside this one, was counted too), and the safety of the base-state cache behind it:
 * delete and re-creation at the same version elsewhere (ABA), conflicts between instances,
 * records written without a token, decisions taken on a stale guess, and the cache bound.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Redis } from 'ioredis'
import { makeItem } from '../../src/core/items.js'
import { newSession, type Session, type SessionKey } from '../../src/core/session.js'
import {
  createRedisStore,
  type RedisSessionStore,
  type RedisStoreOptions,
} from '../../src/store/redis/index.js'
import type { Updater } from '../../src/store/types.js'
import {
  missingRedis,
  probeRedisBinaries,
  startPrivateRedis,
  uniquePrefix,
  type PrivateRedis,
} from '../redis-support.js'

const missing = probeRedisBinaries()

if (missing) {
  missingRedis('Redis round trips (a redis-server of its own)', missing)
} else {
  let redis: PrivateRedis
  const prefix = uniquePrefix('round-trips')
  const tenant = `rt-${process.pid}-${Date.now()}`
  let clock = Date.now()
  let raw: Redis
  const stores: RedisSessionStore[] = []
  let sessionCounter = 0
  const newKey = (): SessionKey => ({ tenant, sessionId: `s${sessionCounter++}` })
  const hashKey = (key: SessionKey) => `${prefix}:{${key.tenant}:${key.sessionId}}:s`

  /** A store instance on the shared prefix; several of them act as several server instances. */
  const open = async (extra: Partial<RedisStoreOptions> = {}) => {
    const store = await createRedisStore({
      url: redis.url,
      keyPrefix: prefix,
      ttlMs: 3_600_000,
      historyLimit: 10,
      now: () => clock,
      ...extra,
    })
    stores.push(store)
    return store
  }

  /**
   * An updater that appends one item labelled `label` to the current items (creating the session
   * when absent) and records every state it is called with.
   */
  const append = (key: SessionKey, label: string, seen: (Session | null)[] = []) => {
    const now = ++clock
    const updater: Updater<Session> = (current, { versionFloor }) => {
      seen.push(current)
      const base = current ?? newSession(key, 's03', {}, now, versionFloor)
      const version = base.version + 1
      const next: Session = {
        ...base,
        version,
        items: [
          ...base.items,
          makeItem({ id: String(version), content: label, status: 'pending' }),
        ],
        updated_at: now,
      }
      return { value: next, write: { session: next, source: 'round' } }
    }
    return updater
  }

  const labels = (session: Session | null) => session?.items.map((item) => item.content)

  const COUNTED = ['evalsha', 'eval', 'hmget', 'hget', 'zadd'] as const
  type Calls = Record<(typeof COUNTED)[number], number>

  const commandCalls = async (): Promise<Calls> => {
    const text = await raw.info('commandstats')
    const calls = {} as Calls
    for (const name of COUNTED) {
      calls[name] = Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(text)?.[1] ?? 0)
    }
    return calls
  }

  /** Waits (2 s at most) until the counted commands stand still between two INFO readings. */
  const quietCalls = async (): Promise<Calls> => {
    let calls = await commandCalls()
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      const again = await commandCalls()
      if (COUNTED.every((name) => again[name] === calls[name])) return again
      calls = again
    }
    return calls
  }

  /**
   * Compares the commandstats calls of the counted commands while `run` runs with `expected`.
   * INFO is not among them, and the measurement starts once no other client moves them.
   * Commands a script runs count in commandstats too: the write script runs exactly one HMGET,
   * no HGET and (standalone) one ZADD when it writes, so HMGET and ZADD calls equal the EVALSHA
   * calls when nothing is sent as a separate command.
   */
  const assertCalls = async (run: () => Promise<void>, expected: Calls) => {
    const start = await quietCalls()
    await run()
    const end = await commandCalls()
    const calls = {} as Calls
    for (const name of COUNTED) calls[name] = end[name] - start[name]
    assert.deepEqual(calls, expected)
  }

  before(async () => {
    redis = await startPrivateRedis('round-trips')
    raw = new Redis(redis.url)
    await raw.ping()
  })
  after(async () => {
    await Promise.all(stores.map((store) => store.close()))
    raw?.disconnect()
    await redis?.stop()
  })

  describe('Redis store: round trips per mutation', () => {
    it('Should send one EVALSHA per update of a known session, index included', async () => {
      const store = await open()
      const key = newKey()
      await store.update(key, append(key, 'first'))
      const n = 50
      let last = null as Session | null
      await assertCalls(
        async () => {
          for (let i = 0; i < n; i++) last = await store.update(key, append(key, `u${i}`))
        },
        { evalsha: n, eval: 0, hmget: n, hget: 0, zadd: n }
      )
      const stored = await store.get(key)
      assert.ok(last && stored)
      assert.deepEqual(stored, last)
      assert.equal(stored.items.length, stored.version)
      // the listing index was moved inside the script
      const page = await store.list(tenant, { state: 'all', staleBefore: 0, limit: 1 })
      assert.equal(page.sessions[0]?.session_id, key.sessionId)
      assert.equal(page.sessions[0]?.updated_at, stored.updated_at)
      assert.equal(
        Number(await raw.zscore(`${prefix}:{${tenant}}:sessions`, key.sessionId)),
        stored.updated_at
      )
    })

    it('Should read first on a cache miss, and keep no more sessions than baseCacheSize', async () => {
      const store = await open({ baseCacheSize: 2 })
      const keys = [newKey(), newKey(), newKey()]
      // a connection's first use of a script sends EVAL with the script text; later ones EVALSHA
      const warmUp = newKey()
      await store.update(warmUp, append(warmUp, 'warm-up'))
      const rounds = 4
      // round robin over 3 sessions with room for 2: every update misses and reads first
      await assertCalls(
        async () => {
          for (let round = 0; round < rounds; round++) {
            for (const key of keys) await store.update(key, append(key, `r${round}`))
          }
        },
        { evalsha: 12, eval: 0, hmget: 24, hget: 0, zadd: 12 }
      )
      for (const key of keys) {
        const session = await store.get(key)
        assert.equal(session?.version, rounds)
        assert.deepEqual(labels(session), ['r0', 'r1', 'r2', 'r3'])
      }
      // two sessions fit: updates of them do not read
      await assertCalls(
        async () => {
          for (let round = 0; round < 3; round++) {
            for (const key of keys.slice(0, 2)) await store.update(key, append(key, 'again'))
          }
        },
        { evalsha: 6, eval: 0, hmget: 6 + 2, hget: 0, zadd: 6 }
      )
      assert.equal((await store.get(keys[0]))?.version, rounds + 3)
    })

    it('Should always read first with baseCacheSize 0', async () => {
      const store = await open({ baseCacheSize: 0 })
      const key = newKey()
      await store.update(key, append(key, 'first'))
      await assertCalls(
        async () => {
          for (let i = 0; i < 5; i++) await store.update(key, append(key, `u${i}`))
        },
        { evalsha: 5, eval: 0, hmget: 10, hget: 0, zadd: 5 }
      )
      assert.equal((await store.get(key))?.version, 6)
    })
  })

  describe('Redis store: the base-state cache is only a guess', () => {
    it('Should build on the re-created session after a delete and re-creation to the same version elsewhere', async () => {
      const a = await open()
      const b = await open()
      const key = newKey()
      for (const label of ['a1', 'a2', 'a3']) await a.update(key, append(key, label))
      assert.equal(await b.delete(key), true)
      // the tombstone keeps version 3, so a re-creation goes on at 4; without it (expired, or
      // removed by an instance of an earlier version) the re-creation reaches version 3 again
      assert.equal(await raw.hget(hashKey(key), 'v'), '3')
      await raw.del(hashKey(key))
      for (const label of ['b1', 'b2', 'b3']) await b.update(key, append(key, label))
      assert.equal((await b.get(key))?.version, 3)

      const seen: (Session | null)[] = []
      const result = await a.update(key, append(key, 'a4', seen))
      // A's own version 3 was tried first and refused: same version, another write's token
      assert.equal(seen.length, 2)
      assert.deepEqual(labels(seen[0]), ['a1', 'a2', 'a3'])
      assert.deepEqual(labels(seen[1]), ['b1', 'b2', 'b3'])
      assert.equal(seen[1]?.version, 3)
      assert.equal(result.version, 4)
      assert.deepEqual(labels(result), ['b1', 'b2', 'b3', 'a4'])
      assert.deepEqual(await b.get(key), result)
      const history = await b.history(key, 10)
      assert.deepEqual(
        history.map((entry) => entry.version),
        [1, 2, 3, 4]
      )
    })

    it('Should retry from the winner when another instance wrote since, losing nothing', async () => {
      let conflicts = 0
      const a = await open({ onConflict: () => conflicts++ })
      const b = await open()
      const key = newKey()
      await a.update(key, append(key, 'a1'))
      await a.update(key, append(key, 'a2'))
      await b.update(key, append(key, 'b3'))

      const seen: (Session | null)[] = []
      const result = await a.update(key, append(key, 'a4', seen))
      assert.equal(seen.at(-1)?.version, 3)
      assert.deepEqual(labels(seen.at(-1) ?? null), ['a1', 'a2', 'b3'])
      assert.equal(conflicts, 1)
      assert.equal(result.version, 4)
      assert.deepEqual(labels(await b.get(key)), ['a1', 'a2', 'b3', 'a4'])
      // the refusal refreshed A's guess: its next update is one round trip again
      await assertCalls(
        async () => {
          await a.update(key, append(key, 'a5'))
        },
        { evalsha: 1, eval: 0, hmget: 1, hget: 0, zadd: 1 }
      )
      assert.deepEqual(labels(await a.get(key)), ['a1', 'a2', 'b3', 'a4', 'a5'])
    })

    it('Should update records that carry no token (written before tokens existed)', async () => {
      const a = await open()
      const key = newKey()
      await a.update(key, append(key, 'a1'))
      await a.update(key, append(key, 'a2'))
      assert.equal(await raw.hdel(hashKey(key), 't'), 1)
      const third = await a.update(key, append(key, 'a3'))
      assert.equal(third.version, 3)
      assert.deepEqual(labels(await a.get(key)), ['a1', 'a2', 'a3'])
      assert.notEqual(await raw.hget(hashKey(key), 't'), null)

      // a hash exactly as the previous version wrote it, met by an instance that never saw it
      const legacy = newKey()
      const old: Session = {
        ...newSession(legacy, 's03', {}, clock),
        version: 2,
        items: [makeItem({ id: '1', content: 'old', status: 'pending' })],
      }
      const expires = String(clock + 3_600_000)
      await raw.hset(hashKey(legacy), { v: '2', exp: expires, data: JSON.stringify(old) })
      const fresh = await open()
      const next = await fresh.update(legacy, append(legacy, 'new'))
      assert.equal(next.version, 3)
      assert.deepEqual(labels(await fresh.get(legacy)), ['old', 'new'])

      // an instance of the previous version deleted and re-created a session at the version this
      // instance holds a guess of: a record without a token never matches a guess with one
      const raced = newKey()
      const mine = await a.update(raced, append(raced, 'mine'))
      const theirs: Session = {
        ...mine,
        items: [makeItem({ id: '1', content: 'theirs', status: 'pending' })],
      }
      await raw.del(hashKey(raced))
      await raw.hset(hashKey(raced), { v: '1', exp: expires, data: JSON.stringify(theirs) })
      const updated = await a.update(raced, append(raced, 'next'))
      assert.equal(updated.version, 2)
      assert.deepEqual(labels(updated), ['theirs', 'next'])
    })

    it('Should confirm a guess with a read when the updater decides without writing or throws', async () => {
      const a = await open()
      const b = await open()
      const key = newKey()
      await a.update(key, append(key, 'a1'))
      await a.update(key, append(key, 'a2'))
      await b.update(key, append(key, 'b3'))

      // reads never answer from the cache
      assert.equal((await a.get(key))?.version, 3)
      await b.update(key, append(key, 'b4'))

      const seen: (Session | null)[] = []
      const version = await a.update(key, (current) => {
        seen.push(current)
        return { value: current?.version }
      })
      assert.equal(version, 4)
      assert.deepEqual(
        seen.map((state) => state?.version),
        [3, 4]
      )

      await b.update(key, append(key, 'b5'))
      // like an If-Match check: it would refuse the stale guess, but it holds on the current state
      const write = append(key, 'a6')
      const result = await a.update(key, (current, context) => {
        if (current?.version !== 5) throw new Error(`version ${current?.version} does not match`)
        return write(current, context)
      })
      assert.equal(result.version, 6)
      assert.deepEqual(labels(await b.get(key)), ['a1', 'a2', 'b3', 'b4', 'b5', 'a6'])

      // a refusal that the current state confirms still surfaces
      await assert.rejects(
        a.update(key, () => {
          throw new Error('refused')
        }),
        /refused/
      )
    })

    it('Should lose no update among concurrent ones from two instances with warm caches', async () => {
      const a = await open()
      const b = await open()
      const key = newKey()
      await a.update(key, append(key, 'start'))
      await b.get(key)
      const writes = Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).update(key, append(key, `w${i}`))
      )
      await Promise.all(writes)
      const final = await a.get(key)
      assert.equal(final?.version, 41)
      assert.deepEqual(
        [...(labels(final) ?? [])].sort(),
        ['start', ...Array.from({ length: 40 }, (_, i) => `w${i}`)].sort()
      )
    })
  })
}
