/**
 * A receiver that is down while more events pile up than a webhook's delivery log keeps (100)
 * loses none of them (SPEC §3 Alerts: an outbox, retries on the schedule): the log's trimming
 * never drops a pending delivery, on every store. Tests wait on conditions.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { eventually } from '../eventually.js'
import { startAlertApp, startReceiver } from '../webhook-support.js'
import { DELIVERY_LOG_LIMIT } from '../../src/store/alerts/types.js'
import { storeKinds, storeOpener } from '../store-kinds.js'

const stops: (() => Promise<void>)[] = []
after(async () => {
  for (const stop of stops.reverse()) await stop()
})

const KINDS = await storeKinds('alerts backlog')
const openStore = storeOpener('backlog-it', stops)

const EVENTS = DELIVERY_LOG_LIMIT + 50

for (const kind of KINDS) {
  describe(`alerts backlog (${kind} store)`, () => {
    it(`Should deliver all ${EVENTS} events that piled up while the receiver was down`, async () => {
      let up = false
      const answered200 = new Set<number>()
      const r = await startReceiver((index) => {
        if (!up) return 503
        answered200.add(index)
        return 200
      })
      stops.push(r.close)
      const store = await openStore(kind)
      const t = startAlertApp({ store, retrySchedule: Array.from({ length: 30 }, () => 1) })
      stops.push(async () => {
        await t.stop()
        await store.close()
      })
      const hook = await t.call('POST', '/v1/webhooks', { url: r.url, events: ['session.done'] })
      assert.equal(hook.status, 201, hook.text)
      for (let i = 0; i < EVENTS; i++) {
        const items = [{ id: '1', content: 'the step', status: 'completed' }]
        const put = await t.call('PUT', `/v1/sessions/run-${i}/todos`, { items })
        assert.equal(put.status, 200, put.text)
      }
      // every event became a delivery and was tried (and refused) at least once: more pending
      // than the log keeps
      const tried = () => new Set(r.received.map((d) => String(d.headers['webhook-id']))).size
      assert.ok(await eventually(() => tried() === EVENTS, 60_000), `${tried()} tried`)
      up = true
      const delivered = () =>
        new Set([...answered200].map((i) => String(r.received[i].json.data.session.session_id)))
      assert.ok(await eventually(() => delivered().size === EVENTS, 60_000), `${delivered().size}`)
      assert.equal(tried(), EVENTS, 'one webhook-id per event, the same on every retry')
    })
  })
}
