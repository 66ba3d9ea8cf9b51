/**
 * Finding 10 on Redis: with MAX_SESSIONS_PER_TENANT=5, 100 concurrent creations stored 100
 * sessions. Two instances (two stores, two apps) on a redis-server and on a 3-master Cluster this
 * test starts: exactly 5 are stored. On standalone Redis the write script counts and creates; on
 * Cluster, where the tenant's index lives in another slot than its sessions, a creation first
 * holds a seat in the tenant's count.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { RedisSessionStore, RedisStoreOptions } from '../../src/store/redis/index.js'
import { makeTestApp, round } from '../helpers.js'
import {
  freeRedisPort,
  missingRedis,
  openTestRedisStore,
  probeRedisBinaries,
  startRedisCluster,
  startRedisServer,
} from '../redis-support.js'

const missing = probeRedisBinaries()

/** 100 concurrent creations split over two instances with a cap of 5: exactly 5 stored. */
async function hundredCreations(target: Pick<RedisStoreOptions, 'url' | 'clusterNodes'>) {
  const clock = { now: Date.parse('2026-11-30T12:00:00Z') }
  const now = () => clock.now
  const open = () => openTestRedisStore({ ...target, now })
  const stores: RedisSessionStore[] = [await open(), await open()]
  try {
    const apps = stores.map((store) =>
      makeTestApp({ store, now, limits: { maxSessionsPerTenant: 5 } })
    )
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => round(apps[i % 2], `c${i}`, [{ name: 'bash' }]))
    )
    const statuses = replies.map((reply) => reply.status)
    assert.equal(statuses.filter((s) => s === 200).length, 5, statuses.join(' '))
    assert.equal(statuses.filter((s) => s === 403).length, 95)
    for (const reply of replies.filter((r) => r.status === 403)) {
      assert.ok(reply.body.type.endsWith('/session-quota-exceeded'), reply.body.type)
    }
    const stored = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        stores[0].get({ tenant: 'default', sessionId: `c${i}` })
      )
    )
    assert.equal(stored.filter((session) => session !== null).length, 5, 'exactly 5 exist')
    const list = await apps[1].call('GET', '/v1/sessions?limit=200')
    assert.equal(list.body.sessions.length, 5)
    assert.equal(await stores[0].countSessions('default'), 5)

    // at the cap an existing session still takes rounds; a deleted one frees its place
    const existing = replies.findIndex((reply) => reply.status === 200)
    assert.equal((await round(apps[0], `c${existing}`, [{ name: 'bash' }])).status, 200)
    assert.equal((await round(apps[0], 'one-more', [{ name: 'bash' }])).status, 403)
    assert.equal((await apps[1].call('DELETE', `/v1/sessions/c${existing}`)).status, 204)
    assert.equal((await round(apps[0], 'one-more', [{ name: 'bash' }])).status, 200)
    assert.equal((await round(apps[1], `c${existing}`, [{ name: 'bash' }])).status, 403)
  } finally {
    await Promise.all(stores.map((store) => store.close()))
  }
}

if (missing) {
  missingRedis('hostile 10 on Redis (session quota)', missing)
} else {
  describe('hostile 10 on Redis: the session quota is hard', () => {
    it('Should store exactly the cap among 100 concurrent creations on standalone Redis', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-todos-quota-'))
      const redis = await startRedisServer(await freeRedisPort(), dir)
      try {
        await hundredCreations({ url: redis.url })
      } finally {
        await redis.stop()
        rmSync(dir, { recursive: true, force: true })
      }
    })

    describe('on a 3-master Cluster', () => {
      let stop: (() => Promise<void>) | undefined
      after(() => stop?.())

      it('Should store exactly the cap among 100 concurrent creations', async () => {
        const cluster = await startRedisCluster()
        stop = () => cluster.stop()
        await hundredCreations({ clusterNodes: cluster.nodes })
      })
    })
  })
}
