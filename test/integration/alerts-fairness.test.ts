/**
 * Alerts under one tenant's backlog (SPEC §3 Alerts), on every store: another tenant's delivery
 * goes out at once however many due deliveries one tenant holds (claims take tenants in turns),
 * a webhook's pending deliveries are bounded (the oldest gives way as `failed`, counted), a
 * session's deliveries to a webhook keep their order (a later one waits while an earlier one is
 * retried), and `session.stale` is found for every session whose moment comes after the webhook
 * was created, also when STALE_AFTER_SECONDS is shorter than the scan's interval. Store steps
 * take their time as an argument (a clock of the test's); the HTTP tests wait on conditions.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newSession, type Session } from '../../src/core/session.js'
import {
  DELIVERY_PENDING_LIMIT,
  OVERFLOW_ERROR,
  type DeliveryRecord,
  type WebhookRecord,
} from '../../src/store/alerts/types.js'
import type { SessionStore } from '../../src/store/types.js'
import { eventually } from '../eventually.js'
import { storeKinds, storeOpener } from '../store-kinds.js'
import { startAlertApp, startReceiver } from '../webhook-support.js'

const stops: (() => Promise<void>)[] = []
after(async () => {
  for (const stop of stops.reverse()) await stop()
})

// the store steps run on a Redis Cluster too (each tenant's keys under its hash tag)
const KINDS = await storeKinds('alerts fairness', { cluster: true })
const openStore = storeOpener('fairness-it', stops)
const BACKLOG = 1000

const webhook = (tenant: string, id: string, createdAt: number): WebhookRecord => ({
  id,
  tenant,
  url: 'https://example.com/h',
  events: ['*'],
  format: 'standard',
  delay_seconds: 0,
  filter: {},
  description: null,
  secrets: [{ secret: 'whsec_AAAA', expires_at: null }],
  created_at: createdAt,
})

const delivery = (
  fields: Partial<DeliveryRecord> & Pick<DeliveryRecord, 'id' | 'tenant' | 'webhook_id'>
): DeliveryRecord => ({
  type: 'webhook.test',
  session_id: null,
  status: 'pending',
  attempts: 0,
  last_status: null,
  last_error: null,
  next_attempt_at: 0,
  created_at: 0,
  body: '{}',
  waiting_since: null,
  ...fields,
})

/** Writes a session with one unfinished item, last changed at `at`. */
const writeSession = (store: SessionStore, tenant: string, sessionId: string, at: number) =>
  store.update({ tenant, sessionId }, (current, { versionFloor }) => {
    const base = current ?? newSession({ tenant, sessionId }, 's03', {}, at, versionFloor)
    const session: Session = {
      ...base,
      items: [{ id: '1', content: 'the step', status: 'in_progress' }] as Session['items'],
      version: base.version + 1,
      updated_at: at,
    }
    return { value: session.version, write: { session, source: 'put' } }
  })

/** Adds `count` due deliveries of one webhook, a few at a time. */
async function pileUp(store: SessionStore, tenant: string, webhookId: string, count: number) {
  const at = Date.now() - 60_000
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, j) =>
        store.alerts!.addDelivery(
          delivery({
            id: `${tenant}-${i + j}`,
            tenant,
            webhook_id: webhookId,
            next_attempt_at: at + i + j,
            created_at: at + i + j,
          })
        )
      )
    )
  }
}

for (const kind of KINDS) {
  describe(`alerts fairness (${kind} store)`, () => {
    it(`Should claim another tenant's due delivery within two claims while one holds ${BACKLOG}`, async () => {
      const store = await openStore(kind)
      stops.push(() => store.close())
      const alerts = store.alerts!
      const now = Date.now()
      await alerts.createWebhook(webhook('busy', 'wh_busy', now - 120_000), 20)
      await alerts.createWebhook(webhook('quiet', 'wh_quiet', now - 120_000), 20)
      await pileUp(store, 'busy', 'wh_busy', BACKLOG)
      await alerts.addDelivery(
        delivery({ id: 'quiet-1', tenant: 'quiet', webhook_id: 'wh_quiet', next_attempt_at: now })
      )
      // a claim of 4 with room 4 for each: the older backlog takes one claim at most
      const first = await alerts.claimDeliveries('a', now, 60_000, 4, () => 4)
      const second = await alerts.claimDeliveries('a', now, 60_000, 4, () => 4)
      const claimed = [...first, ...second]
      assert.ok(
        claimed.some((d) => d.id === 'quiet-1'),
        `claimed ${claimed.map((d) => d.id).join(' ')}`
      )
    })

    it("Should claim another tenant's outbox event in the first claim while one has 300 waiting", async () => {
      const store = await openStore(kind)
      stops.push(() => store.close())
      const at = Date.now()
      const done = (tenant: string, sessionId: string) =>
        store.update({ tenant, sessionId }, (current, { versionFloor }) => {
          const base = current ?? newSession({ tenant, sessionId }, 's03', {}, at, versionFloor)
          const session: Session = {
            ...base,
            items: [{ id: '1', content: 'the step', status: 'completed' }] as Session['items'],
            version: base.version + 1,
            updated_at: at,
          }
          return { value: session.version, write: { session, source: 'put' } }
        })
      for (let i = 0; i < 300; i += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, j) => done('busy', `run-${i + j}`)))
      }
      await done('quiet', 'run-1')
      const events = await store.alerts!.claimEvents('a', Date.now(), 60_000, 100)
      assert.ok(events.length <= 101, `${events.length} claimed`)
      assert.ok(
        events.some((e) => e.tenant === 'quiet'),
        "the quiet tenant's event is in the first claim"
      )
    })

    it(`Should keep a webhook's pending deliveries within ${DELIVERY_PENDING_LIMIT}: the oldest fails, counted`, async () => {
      const store = await openStore(kind)
      stops.push(() => store.close())
      const alerts = store.alerts!
      const now = Date.now()
      await alerts.createWebhook(webhook('acme', 'wh_full', now - 120_000), 20)
      await pileUp(store, 'acme', 'wh_full', DELIVERY_PENDING_LIMIT)
      // the oldest is in flight: the next oldest gives way instead
      const [inFlight] = await alerts.claimDeliveries('a', now, 60_000, 1, () => 1)
      assert.equal(inFlight.id, 'acme-0')
      const failed = await alerts.addDelivery(
        delivery({ id: 'newest', tenant: 'acme', webhook_id: 'wh_full', next_attempt_at: now })
      )
      assert.deepEqual(failed, ['webhook.test'])
      const log = await alerts.listDeliveries('acme', 'wh_full', DELIVERY_PENDING_LIMIT + 10)
      const pending = log.filter((d) => d.status === 'pending').map((d) => d.id)
      assert.equal(pending.length, DELIVERY_PENDING_LIMIT)
      assert.ok(pending.includes('newest') && pending.includes('acme-0'))
      assert.ok(!pending.includes('acme-1'))
      // it is `failed`, saying why, until it leaves the log like any settled one (the log keeps
      // the newest 100: here, all pending)
      for (const d of log.filter((x) => x.id === 'acme-1')) {
        assert.deepEqual(
          [d.status, d.last_error, d.next_attempt_at],
          ['failed', OVERFLOW_ERROR, null]
        )
      }
    })

    it('Should hold a later delivery of a session while an earlier one to that webhook is pending', async () => {
      const store = await openStore(kind)
      stops.push(() => store.close())
      const alerts = store.alerts!
      const now = Date.now()
      await alerts.createWebhook(webhook('acme', 'wh_o', now - 120_000), 20)
      const of = (id: string, type: string, webhookId = 'wh_o') =>
        delivery({
          id,
          tenant: 'acme',
          webhook_id: webhookId,
          type,
          session_id: 'run-1',
          next_attempt_at: now,
          created_at: now,
        })
      await alerts.createWebhook(webhook('acme', 'wh_other', now - 120_000), 20)
      await alerts.addDelivery(of('done', 'session.done'))
      await alerts.addDelivery(of('ended', 'session.ended'))
      // another webhook's delivery of the session keeps its own order
      await alerts.addDelivery(of('other-ended', 'session.ended', 'wh_other'))
      const first = await alerts.claimDeliveries('a', now, 60_000, 10, () => 10)
      assert.deepEqual(first.map((d) => d.id).sort(), ['done', 'other-ended'])
      const done = first.find((d) => d.id === 'done')!
      // done is retried: ended still waits
      await alerts.finishAttempt(done, 'a', {
        status: 'pending',
        attempts: 1,
        last_status: 500,
        last_error: 'HTTP 500',
        next_attempt_at: now + 1000,
      })
      assert.deepEqual(await alerts.claimDeliveries('a', now + 500, 60_000, 10, () => 10), [])
      // listed as pending meanwhile
      const log = await alerts.listDeliveries('acme', 'wh_o', 10)
      assert.deepEqual(log.map((d) => d.status).sort(), ['pending', 'pending'])
      const retry = await alerts.claimDeliveries('a', now + 1000, 60_000, 10, () => 10)
      assert.deepEqual(
        retry.map((d) => d.id),
        ['done']
      )
      await alerts.finishAttempt(retry[0], 'a', {
        status: 'delivered',
        attempts: 2,
        last_status: 200,
        last_error: null,
        next_attempt_at: null,
      })
      const next = await alerts.claimDeliveries('a', now + 1000, 60_000, 10, () => 10)
      assert.deepEqual(
        next.map((d) => d.id),
        ['ended']
      )
    })

    it('Should find a stall whose moment follows the webhook, with STALE_AFTER below the scan interval', async () => {
      const staleAfterMs = 1000
      const store = await openStore(kind, staleAfterMs)
      stops.push(() => store.close())
      const alerts = store.alerts!
      const created = Date.now() - 60_000
      await alerts.createWebhook(webhook('acme', 'wh_s', created), 20)
      // its moment (last change + 1 s) came before the webhook: no news
      await writeSession(store, 'acme', 'old', created - 5000)
      // changed between the webhook's creation and the first scan, 5 s later
      await writeSession(store, 'acme', 'quiet', created + 1000)
      // drain the writes' own events (none is stale)
      const owner = 'scan-test'
      for (const e of await alerts.claimEvents(owner, Date.now(), 60_000, 100)) {
        await alerts.settleEvent(e, { deliveries: [], dropWaiting: false, clearMarks: [] })
      }
      const scanAt = created + 5000
      assert.equal(await alerts.scanStale(scanAt - staleAfterMs, staleAfterMs), 1)
      const events = await alerts.claimEvents(owner, Date.now(), 60_000, 100)
      assert.deepEqual(
        events.map((e) => [e.kind, e.session_id, e.at]),
        [['stale', 'quiet', created + 1000]]
      )
      // the next scan starts where this one ended: found once
      assert.equal(await alerts.scanStale(scanAt + 5000 - staleAfterMs, staleAfterMs), 0)
    })
  })

  if (kind === 'redis-cluster') continue
  describe(`alerts through the worker (${kind} store)`, () => {
    it(`Should deliver another tenant's test at once while one holds ${BACKLOG} due to a dead receiver`, async () => {
      const dead = await startReceiver(() => 'hang')
      const live = await startReceiver()
      stops.push(dead.close, live.close)
      const store = await openStore(kind)
      const t = startAlertApp({
        store,
        authKeys: 'busy:admin:busy-key,quiet:admin:quiet-key',
        timeoutMs: 5000,
      })
      stops.push(async () => {
        await t.stop()
        await store.close()
      })
      const busy = await t.call(
        'POST',
        '/v1/webhooks',
        { url: dead.url, events: ['*'] },
        'busy-key'
      )
      assert.equal(busy.status, 201, busy.text)
      await pileUp(store, 'busy', busy.body.id, BACKLOG)
      assert.ok(await eventually(() => dead.received.length >= 4), 'the busy tenant hangs 4')
      const quiet = await t.call(
        'POST',
        '/v1/webhooks',
        { url: live.url, events: ['*'] },
        'quiet-key'
      )
      const test = await t.call(
        'POST',
        `/v1/webhooks/${quiet.body.id}/test`,
        undefined,
        'quiet-key'
      )
      assert.equal(test.status, 202)
      // the dead receiver holds the busy tenant's 4 attempts for 5 s each: before this, the
      // quiet tenant's test waited behind the oldest of the busy tenant's 1,000 (SQLite)
      assert.ok(await eventually(() => live.received.length === 1), 'the test went out')
    })

    it("Should deliver a session's ended after its retried done", async () => {
      let failDone = true
      const r = await startReceiver((index) => {
        if (failDone && r.received[index].json?.type === 'session.done') {
          failDone = false
          return 500
        }
        return 200
      })
      stops.push(r.close)
      const store = await openStore(kind)
      const t = startAlertApp({ store, retrySchedule: [0.5] })
      stops.push(async () => {
        await t.stop()
        await store.close()
      })
      await t.call('POST', '/v1/webhooks', {
        url: r.url,
        events: ['session.done', 'session.ended'],
      })
      const items = [{ id: '1', content: 'the step', status: 'completed' }]
      assert.equal((await t.call('PUT', '/v1/sessions/run-1/todos', { items })).status, 200)
      assert.ok(await eventually(() => r.received.length === 1))
      const end = await t.call('POST', '/v1/sessions/run-1/end', { outcome: 'completed' })
      assert.equal(end.status, 200, end.text)
      assert.ok(await eventually(() => r.received.length === 3))
      assert.deepEqual(
        r.received.map((d) => d.json.type),
        ['session.done', 'session.done', 'session.ended']
      )
    })
  })
}
