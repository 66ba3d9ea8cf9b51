/**
 * Alerts on a fleet (SPEC §3 Alerts): two server processes on one Redis (standalone, then a
 * 3-master Cluster this test starts). Every transition and
 * every stall is delivered by one instance (one webhook-id per event; a retry repeats its id),
 * stale timers fire once for the fleet, and a receiver that is down for a while loses nothing.
 * The counts are small for CI; the run (1,000 transitions, 100 stale sessions, the
 * receiver down 10 s) sets them by environment:
 *   WEBHOOKS_FLEET_TRANSITIONS  transition events, two per session (done, ended); default 48
 *   WEBHOOKS_FLEET_STALE        stale sessions; default 6
 *   WEBHOOKS_FLEET_DOWN_S       the receiver answers 503 at least this long from the first
 *                               write (and until 10 attempts failed); default 0
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { eventually } from '../eventually.js'
import {
  dropKeys,
  missingRedis,
  probeRedis,
  probeRedisBinaries,
  startRedisCluster,
  TEST_REDIS_URL,
  uniquePrefix,
} from '../redis-support.js'
import { startReceiver, verify } from '../webhook-support.js'
import { DELIVERY_LOG_LIMIT } from '../../src/store/alerts/types.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const unreachable = await probeRedis()
const noBinaries = probeRedisBinaries()

const count = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a count`)
  return value
}
/** Sessions that each make two transitions (done, then ended). */
const SESSIONS = Math.ceil(count('WEBHOOKS_FLEET_TRANSITIONS', 48) / 2)
const STALLS = count('WEBHOOKS_FLEET_STALE', 6)
const DOWN_MS = count('WEBHOOKS_FLEET_DOWN_S', 0) * 1000
/** Writes in flight at once (each session's three in order). */
const WRITERS = 16

/**
 * The scenario on two server processes sharing one Redis.
 * @param name - which Redis
 * @param redis - the variables that name it (`REDIS_URL` or `REDIS_CLUSTER_NODES`)
 * @param cleanup - drops the keys afterwards
 */
function fleetSuite(
  name: string,
  redis: () => Record<string, string>,
  cleanup: (prefix: string) => Promise<void>
) {
  describe(`webhooks: two instances on one ${name}`, () => {
    const prefix = uniquePrefix('webhooks')
    let down = true
    /** The receiver's requests answered 200: the deliveries. */
    const answered200 = new Set<number>()
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let a: ServerProcess
    let b: ServerProcess
    before(async () => {
      receiver = await startReceiver((index) => {
        if (down) return 503
        answered200.add(index)
        return 200
      })
      const env = {
        STORE: 'redis',
        ...redis(),
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_PER_MINUTE: '0',
        STALE_AFTER_SECONDS: '2',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1',
      }
      ;[a, b] = await Promise.all([startServer(env), startServer(env)])
    })
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()])
      await receiver?.close()
      await cleanup(prefix)
    })

    it('Should deliver each transition and each stall exactly once, losing nothing while the receiver is down', async () => {
      const hook = await request(a.url, 'POST', '/v1/webhooks', {
        url: receiver.url,
        events: ['session.done', 'session.ended', 'session.stale'],
      })
      assert.equal(hook.status, 201, hook.text)
      // the tenant's first stale scan sets its mark; a stall is news after that
      await new Promise((resolve) => setTimeout(resolve, 5500))
      const servers = [a, b]
      const expected = new Set<string>()
      const started = performance.now()
      let nextSession = 0
      const writer = async () => {
        for (let i = nextSession++; i < SESSIONS; i = nextSession++) {
          const server = servers[i % 2]
          const other = servers[(i + 1) % 2]
          const path = `/v1/sessions/fleet-${i}`
          const step = (status: string) => [{ id: '1', content: `step ${i}`, status }]
          assert.equal(
            (await request(server.url, 'PUT', `${path}/todos`, { items: step('in_progress') }))
              .status,
            200
          )
          assert.equal(
            (await request(other.url, 'PUT', `${path}/todos`, { items: step('completed') })).status,
            200
          )
          assert.equal(
            (await request(server.url, 'POST', `${path}/end`, { outcome: 'completed' })).status,
            200
          )
          expected.add(`session.done fleet-${i}`).add(`session.ended fleet-${i}`)
        }
      }
      await Promise.all(Array.from({ length: WRITERS }, writer))
      for (let i = 0; i < STALLS; i++) {
        const items = [{ id: '1', content: 'stuck', status: 'in_progress' }]
        const res = await request(servers[i % 2].url, 'PUT', `/v1/sessions/stuck-${i}/todos`, {
          items,
        })
        assert.equal(res.status, 200)
        expected.add(`session.stale stuck-${i}`)
      }
      // down for a while: attempts fail and are retried
      assert.ok(await eventually(() => receiver.received.length >= 10, 60_000))
      const downFor = DOWN_MS - (performance.now() - started)
      if (downFor > 0) await new Promise((resolve) => setTimeout(resolve, downFor))
      down = false
      const upAt = performance.now()
      const ids = new Map<string, Set<string>>()
      const tally = () => {
        ids.clear()
        for (const d of receiver.received) {
          if (d.json.type === 'webhook.test') continue
          const key = `${d.json.type} ${d.json.data.session.session_id}`
          if (!ids.has(key)) ids.set(key, new Set())
          ids.get(key)!.add(String(d.headers['webhook-id']))
        }
        return ids
      }
      assert.ok(
        await eventually(
          () => [...expected].every((key) => tally().has(key)),
          Math.max(120_000, expected.size * 200)
        ),
        `missing: ${[...expected].filter((key) => !tally().has(key)).join(', ')}`
      )
      const allIn = performance.now()
      // a test delivery from each instance, sent after everything above was due: a barrier
      for (const server of servers) {
        const test = await request(server.url, 'POST', `/v1/webhooks/${hook.body.id}/test`)
        assert.equal(test.status, 202)
      }
      assert.ok(
        await eventually(
          () => receiver.received.filter((d) => d.json.type === 'webhook.test').length === 2,
          60_000
        )
      )
      tally()
      assert.deepEqual([...ids.keys()].sort(), [...expected].sort())
      for (const [key, set] of ids) assert.equal(set.size, 1, `${key}: ${[...set].join(', ')}`)
      // delivered exactly once: one 200 per event (two instances never both deliver it)
      const delivered = new Map<string, number>()
      for (const index of answered200) {
        const d = receiver.received[index]
        const key = `${d.json.type} ${d.json.data.session?.session_id ?? ''}`
        delivered.set(key, (delivered.get(key) ?? 0) + 1)
      }
      for (const key of expected) assert.equal(delivered.get(key), 1, `${key} delivered`)
      console.log(
        `# ${name}: ${expected.size} events (${SESSIONS * 2} transitions, ${STALLS} stalls), ` +
          `${receiver.received.length} requests (${answered200.size} answered 200), receiver down ` +
          `${((upAt - started) / 1000).toFixed(1)} s from the first write; all delivered ` +
          `${((allIn - upAt) / 1000).toFixed(1)} s after it came back`
      )
      for (const d of receiver.received) verify(hook.body.secret, d)
      const log = await request(b.url, 'GET', `/v1/webhooks/${hook.body.id}/deliveries?limit=100`)
      const sessionDeliveries = log.body.deliveries.filter((d: any) => d.type !== 'webhook.test')
      // the log keeps the newest 100, the two tests among them
      assert.equal(sessionDeliveries.length, Math.min(expected.size, DELIVERY_LOG_LIMIT - 2))
      assert.ok(sessionDeliveries.every((d: any) => d.status === 'delivered'))
    })
  })
}

if (unreachable) {
  missingRedis(`Webhooks on a fleet on Redis at ${TEST_REDIS_URL}`, unreachable)
} else {
  fleetSuite(
    'Redis',
    () => ({ REDIS_URL: TEST_REDIS_URL }),
    (prefix) => dropKeys({ url: TEST_REDIS_URL }, prefix)
  )
}

if (noBinaries) {
  missingRedis('Webhooks on a fleet on Redis Cluster', noBinaries)
} else {
  // every key of a tenant's alerts under its hash tag: the scripts run on Cluster
  const cluster = await startRedisCluster()
  after(() => cluster.stop())
  fleetSuite(
    'Redis Cluster',
    () => ({ REDIS_CLUSTER_NODES: cluster.nodes.join(',') }),
    async () => undefined
  )
}
