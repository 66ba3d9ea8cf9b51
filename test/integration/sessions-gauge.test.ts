/**
 * `agent_todos_sessions{state}` (SPEC §3 Alerts, /metrics) counts every tenant's sessions, not
 * only those of tenants with webhooks: two tenants, neither with a webhook, on each store
 * (memory, SQLite, Redis standalone and Cluster when redis-server can run here).
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { startAlertApp } from '../webhook-support.js'
import { storeKinds, storeOpener } from '../store-kinds.js'

const KEYS = 'acme:agent:acme-key,other:agent:other-key'

const WAITING_HOOKS = JSON.parse(
  readFileSync(
    new URL('../fixtures/ingest/claude-code/waiting.hooks.json', import.meta.url),
    'utf8'
  )
) as Record<string, unknown>[]

const item = (id: string, status: string) => ({ id, content: `step ${id}`, status })

const stops: (() => Promise<void>)[] = []
after(async () => {
  for (const stop of stops.reverse()) await stop()
})

const KINDS = await storeKinds('sessions gauge', { cluster: true })
const openStore = storeOpener('gauge-it', stops)

for (const kind of KINDS) {
  describe(`sessions gauge (${kind} store)`, () => {
    it("Should count every tenant's sessions by state, with no webhook anywhere", async () => {
      const store = await openStore(kind)
      const t = startAlertApp({ authKeys: KEYS, store })
      stops.push(async () => {
        await t.stop()
        await store.close()
      })
      const put = async (key: string, session: string, statuses: string[]) => {
        const items = statuses.map((status, i) => item(String(i + 1), status))
        const res = await t.call('PUT', `/v1/sessions/${session}/todos`, { items }, key)
        assert.equal(res.status, 200, res.text)
      }
      // acme: two active (more than one page of nothing special), one done
      await put('acme-key', 'a-active-1', ['in_progress', 'pending'])
      await put('acme-key', 'a-active-2', ['pending'])
      await put('acme-key', 'a-done', ['completed', 'completed'])
      // other: one active, one ended, one waiting (an observed agent at a permission prompt)
      await put('other-key', 'o-active', ['completed', 'in_progress'])
      await put('other-key', 'o-ended', ['pending'])
      const end = await t.call(
        'POST',
        '/v1/sessions/o-ended/end',
        { outcome: 'error' },
        'other-key'
      )
      assert.equal(end.status, 200, end.text)
      for (const hook of WAITING_HOOKS.slice(0, 2)) {
        const res = await t.call('POST', '/v1/ingest/claude-code', hook, 'other-key')
        assert.equal(res.status, 200, res.text)
      }
      for (const key of ['acme-key', 'other-key']) {
        const hooks = await t.call('GET', '/v1/webhooks', undefined, key)
        assert.equal(hooks.status, 403, 'agent keys cannot even list webhooks: none was made')
      }

      const metrics = await t.metrics.registry.metrics()
      const gauge = (state: string) =>
        Number(new RegExp(`agent_todos_sessions\\{state="${state}"\\} (\\d+)`).exec(metrics)?.[1])
      assert.deepEqual(
        Object.fromEntries(
          ['active', 'waiting', 'done', 'stale', 'ended'].map((state) => [state, gauge(state)])
        ),
        { active: 3, waiting: 1, done: 1, stale: 0, ended: 1 },
        metrics
      )
    })
  })
}
