/**
 * The alert records of each store (store/alerts): a transition's outbox row is written by the
 * session write itself (it is there after the store is closed and opened again, and a write that
 * does not happen leaves none), and claims are leases (a second owner gets nothing until the
 * lease runs out; only the owner settles).
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newSession, type Session } from '../../src/core/session.js'
import { createMemoryStore } from '../../src/store/memory.js'
import { createSqliteStore } from '../../src/store/sqlite.js'
import { createRedisStore } from '../../src/store/redis/index.js'
import type { DeliveryRecord } from '../../src/store/alerts/types.js'
import type { SessionStore, StoreOptions } from '../../src/store/types.js'
import { dropKeys, probeRedis, TEST_REDIS_URL, uniquePrefix } from '../redis-support.js'

const dir = mkdtempSync(join(tmpdir(), 'agent-todos-outbox-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const redisDown = await probeRedis()

const clock = Date.parse('2026-12-02T10:00:00Z')
const options: StoreOptions = {
  ttlMs: 24 * 3600 * 1000,
  historyLimit: 10,
  now: () => clock,
  staleAfterMs: 60_000,
}

interface Kind {
  name: string
  /** Opens the store; a second call opens the same data again (not for memory). */
  open(): Promise<SessionStore>
  reopens: boolean
}

const kinds: Kind[] = [
  { name: 'memory', open: async () => createMemoryStore(options), reopens: false },
  (() => {
    const path = join(dir, 'outbox.db')
    return {
      name: 'sqlite',
      open: async () => createSqliteStore({ ...options, path, synchronous: 'normal' }),
      reopens: true,
    }
  })(),
]
if (!redisDown) {
  const prefix = uniquePrefix('outbox')
  after(() => dropKeys({ url: TEST_REDIS_URL }, prefix))
  kinds.push({
    name: 'redis',
    open: () => createRedisStore({ ...options, url: TEST_REDIS_URL, keyPrefix: prefix }),
    reopens: true,
  })
}

const key = { tenant: 'acme', sessionId: 'outbox-1' }
const items = (status: string) =>
  [{ id: '1', content: 'the step', status }] as unknown as Session['items']

/** Writes the session's next version with a list of that status. */
const write = (store: SessionStore, status: string) =>
  store.update(key, (current, { versionFloor }) => {
    const base = current ?? newSession(key, 's03', {}, clock, versionFloor)
    const session: Session = {
      ...base,
      items: items(status),
      version: base.version + 1,
      updated_at: clock,
    }
    return { value: session.version, write: { session, source: 'put' } }
  })

const delivery = (id: string, dueAt: number): DeliveryRecord => ({
  id,
  tenant: key.tenant,
  webhook_id: 'wh_x',
  type: 'webhook.test',
  session_id: null,
  status: 'pending',
  attempts: 0,
  last_status: null,
  last_error: null,
  next_attempt_at: dueAt,
  created_at: dueAt,
  body: '{}',
  waiting_since: null,
})

for (const kind of kinds) {
  describe(`alert records (${kind.name} store)`, () => {
    it('Should keep a transition in the outbox with the write that made it', async () => {
      let store = await kind.open()
      await write(store, 'in_progress')
      // an updater that refuses writes nothing, outbox included
      await assert.rejects(
        store.update(key, () => {
          throw new Error('refused')
        })
      )
      await write(store, 'completed')
      if (kind.reopens) {
        await store.close()
        store = await kind.open()
      }
      const alerts = store.alerts!
      const events = await alerts.claimEvents('a', clock, 10_000, 10)
      assert.deepEqual(
        events.map((e) => [e.kind, e.session_id, e.at]),
        [['done', key.sessionId, clock]]
      )
      // leased: another owner gets nothing now
      assert.deepEqual(await alerts.claimEvents('b', clock, 10_000, 10), [])
      if (kind.name !== 'redis') {
        // only the owner settles: another's settle leaves the row, claimed again after the lease
        await alerts.settleEvent(
          { ...events[0], owner: 'b' },
          { deliveries: [], dropWaiting: false, clearMarks: [] }
        )
        assert.equal((await alerts.claimEvents('b', clock + 20_000, 10_000, 10)).length, 1)
        const again = await alerts.claimEvents('c', clock + 40_000, 10_000, 10)
        await alerts.settleEvent(again[0], { deliveries: [], dropWaiting: false, clearMarks: [] })
      } else {
        // Redis: a dispatch is idempotent (derived delivery ids), so a settle needs no owner
        await alerts.settleEvent(events[0], { deliveries: [], dropWaiting: false, clearMarks: [] })
      }
      assert.deepEqual(await alerts.claimEvents('d', clock + 60_000, 10_000, 10), [])
      await store.close()
    })

    it('Should lease due deliveries, a tenant at most its room, each once', async () => {
      const store = await kind.open()
      const alerts = store.alerts!
      await alerts.createWebhook(
        {
          id: 'wh_x',
          tenant: key.tenant,
          url: 'https://example.com/h',
          events: ['*'],
          format: 'standard',
          delay_seconds: 0,
          filter: {},
          description: null,
          secrets: [{ secret: 'whsec_AAAA', expires_at: null }],
          created_at: clock,
        },
        20
      )
      for (const id of ['d1', 'd2', 'd3']) await alerts.addDelivery(delivery(id, clock))
      // the same id again: kept once
      await alerts.addDelivery(delivery('d1', clock))
      await alerts.addDelivery(delivery('later', clock + 60_000))
      const first = await alerts.claimDeliveries('a', clock, 5000, 10, () => 2)
      assert.equal(first.length, 2)
      const second = await alerts.claimDeliveries('b', clock, 5000, 10, () => 10)
      assert.deepEqual(
        second.map((d) => d.id),
        ['d1', 'd2', 'd3'].filter((id) => !first.some((d) => d.id === id))
      )
      assert.deepEqual(await alerts.claimDeliveries('c', clock, 5000, 10, () => 10), [])
      // an attempt recorded by someone who no longer holds the lease changes nothing
      await alerts.finishAttempt(first[0], 'b', {
        status: 'delivered',
        attempts: 1,
        last_status: 200,
        last_error: null,
        next_attempt_at: null,
      })
      await alerts.finishAttempt(first[1], 'a', {
        status: 'delivered',
        attempts: 1,
        last_status: 200,
        last_error: null,
        next_attempt_at: null,
      })
      // the lease of first[0] runs out: it is due again; first[1] is delivered
      const retaken = await alerts.claimDeliveries('c', clock + 6000, 5000, 10, () => 10)
      assert.deepEqual(retaken.map((d) => d.id).sort(), [first[0].id, second[0].id].sort())
      const log = await alerts.listDeliveries(key.tenant, 'wh_x', 10)
      assert.equal(log.length, 4)
      assert.equal(log.find((d) => d.id === first[1].id)!.status, 'delivered')
      assert.ok(await alerts.deleteWebhook(key.tenant, 'wh_x'))
      assert.deepEqual(await alerts.claimDeliveries('e', clock + 120_000, 5000, 10, () => 10), [])
      await store.close()
    })
  })
}
