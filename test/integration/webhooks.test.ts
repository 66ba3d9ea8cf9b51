/**
 * Alerts through the real HTTP path (SPEC §3 Alerts): webhooks managed by an admin key, each
 * event type once per transition delivered to a real local receiver and verified with the
 * `standardwebhooks` package, delays, retries with the same webhook-id, `failed` after the
 * schedule, SSRF refusals, tenant isolation and rotation. Tests wait on conditions.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { eventually } from '../eventually.js'
import { startAlertApp, startReceiver, verify } from '../webhook-support.js'
import { storeKinds, storeOpener, type StoreKind } from '../store-kinds.js'

const KEYS =
  'acme:admin:acme-admin-key,acme:agent:acme-agent-key,acme:viewer:acme-viewer-key,other:admin:other-admin-key'
const ADMIN = 'acme-admin-key'
const OTHER = 'other-admin-key'

const WAITING_HOOKS = JSON.parse(
  readFileSync(
    new URL('../fixtures/ingest/claude-code/waiting.hooks.json', import.meta.url),
    'utf8'
  )
) as Record<string, unknown>[]

const item = (id: string, status: string) => ({ id, content: `step ${id}`, status })

const stops: (() => Promise<void>)[] = []
after(async () => {
  for (const stop of stops) await stop()
})

/** The stores the deliveries run on: all three (Redis when reachable). */
const KINDS = await storeKinds('webhooks: deliveries')
/** A store of a kind with alerts on (the outbox written with each change). */
const openStore = storeOpener('webhooks-it', stops)

async function setup(options: Parameters<typeof startAlertApp>[0] & { kind?: StoreKind } = {}) {
  const { kind = 'memory', ...rest } = options
  const store = await openStore(kind, rest.staleAfterMs ?? 900_000)
  // no DNS here: every name resolves to a public address unless a test says otherwise
  const t = startAlertApp({
    authKeys: KEYS,
    resolver: async () => [{ address: '93.184.215.14', family: 4 }],
    ...rest,
    store,
  })
  stops.push(async () => {
    await t.stop()
    await store.close()
  })
  return t
}

async function receiver(reply?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(reply)
  stops.push(r.close)
  return r
}

describe('webhooks: management', () => {
  it('Should take the admin role, hide secrets after create, and keep tenants apart', async () => {
    const t = await setup()
    const body = { url: 'https://hooks.example.com/in', events: ['*'] }
    for (const key of ['acme-agent-key', 'acme-viewer-key']) {
      assert.equal((await t.call('POST', '/v1/webhooks', body, key)).status, 403)
      assert.equal((await t.call('GET', '/v1/webhooks', undefined, key)).status, 403)
    }
    // a public name: the injected resolver answers with a public address
    const created = await t.call('POST', '/v1/webhooks', body, ADMIN)
    assert.equal(created.status, 201, created.text)
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/)
    assert.equal(Buffer.from(created.body.secret.slice(6), 'base64').length, 24)
    assert.deepEqual(
      { ...created.body, id: 'x', secret: 'x', created_at: 'x' },
      {
        id: 'x',
        url: body.url,
        events: ['*'],
        format: 'standard',
        delay_seconds: 0,
        filter: {},
        description: null,
        secret: 'x',
        created_at: 'x',
      }
    )
    const id = created.body.id
    const listed = await t.call('GET', '/v1/webhooks', undefined, ADMIN)
    assert.equal(listed.body.webhooks.length, 1)
    assert.equal(listed.body.webhooks[0].secret, undefined)
    assert.ok(!listed.text.includes(created.body.secret))
    const one = await t.call('GET', `/v1/webhooks/${id}`, undefined, ADMIN)
    assert.equal(one.status, 200)
    assert.ok(!one.text.includes('whsec_'))
    // another tenant's admin: not found, whatever the operation
    assert.equal((await t.call('GET', `/v1/webhooks/${id}`, undefined, OTHER)).status, 404)
    assert.equal((await t.call('POST', `/v1/webhooks/${id}/test`, undefined, OTHER)).status, 404)
    assert.equal((await t.call('POST', `/v1/webhooks/${id}/rotate`, undefined, OTHER)).status, 404)
    assert.equal(
      (await t.call('GET', `/v1/webhooks/${id}/deliveries`, undefined, OTHER)).status,
      404
    )
    assert.equal((await t.call('DELETE', `/v1/webhooks/${id}`, undefined, OTHER)).status, 404)
    assert.deepEqual((await t.call('GET', '/v1/webhooks', undefined, OTHER)).body, { webhooks: [] })
    assert.equal((await t.call('DELETE', `/v1/webhooks/${id}`, undefined, ADMIN)).status, 204)
    assert.equal((await t.call('GET', `/v1/webhooks/${id}`, undefined, ADMIN)).status, 404)
    const metrics = await t.metrics.registry.metrics()
    assert.ok(!metrics.includes('whsec_'))
  })

  it('Should let open access manage webhooks', async () => {
    const t = startAlertApp()
    stops.push(t.stop)
    const res = await t.call('POST', '/v1/webhooks', {
      url: 'https://93.184.215.14/x',
      events: ['*'],
    })
    assert.equal(res.status, 201, res.text)
  })

  it('Should refuse a bad url, event type, filter or delay with a 400 naming the field', async () => {
    const t = await setup()
    const cases: [unknown, string, string][] = [
      [{ url: 'ftp://example.com/x', events: ['*'] }, 'invalid-webhook', '/url'],
      [{ url: 'not a url', events: ['*'] }, 'invalid-webhook', '/url'],
      [{ url: 'https://u:p@example.com/x', events: ['*'] }, 'invalid-webhook', '/url'],
      [{ url: 'https://example.com/x', events: ['session.bogus'] }, 'invalid-request', '/events/0'],
      [{ url: 'https://example.com/x', events: [] }, 'invalid-request', '/events'],
      [
        { url: 'https://example.com/x', events: ['*'], delay_seconds: 3601 },
        'invalid-request',
        '/delay_seconds',
      ],
      [
        { url: 'https://example.com/x', events: ['*'], filter: { colour: 'red' } },
        'invalid-request',
        '/filter',
      ],
      [
        { url: 'https://example.com/x', events: ['*'], filter: { state: 'sleeping' } },
        'invalid-request',
        '/filter/state',
      ],
    ]
    for (const [body, code, pointer] of cases) {
      const res = await t.call('POST', '/v1/webhooks', body, ADMIN)
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`)
      assert.equal(res.body.type, `https://agent-todos.dev/problems/${code}`)
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer.startsWith(pointer)),
        `${JSON.stringify(body)}: ${res.text}`
      )
    }
  })

  it('Should refuse private targets with a 422, also a name that resolves to 127.0.0.1', async () => {
    const t = await setup({
      allowPrivate: false,
      resolver: async (host) =>
        host === 'sneaky.example.com'
          ? [{ address: '127.0.0.1', family: 4 }]
          : host === 'split.example.com'
            ? [
                { address: '93.184.215.14', family: 4 },
                { address: '10.0.0.7', family: 4 },
              ]
            : [{ address: '93.184.215.14', family: 4 }],
    })
    for (const url of [
      'http://127.0.0.1:8080/x',
      'http://[::1]/x',
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/x',
      'http://[::ffff:127.0.0.1]/x',
      'https://sneaky.example.com/hook',
      'https://split.example.com/hook',
    ]) {
      const res = await t.call('POST', '/v1/webhooks', { url, events: ['*'] }, ADMIN)
      assert.equal(res.status, 422, `${url}: ${res.text}`)
      assert.equal(res.body.type, 'https://agent-todos.dev/problems/webhook-target-refused')
      assert.equal(res.body.errors[0].pointer, '/url')
    }
    const fine = await t.call(
      'POST',
      '/v1/webhooks',
      { url: 'https://fine.example.com/h', events: ['*'] },
      ADMIN
    )
    assert.equal(fine.status, 201)
  })

  it('Should cap webhooks per tenant', async () => {
    const t = await setup({ maxPerTenant: 2 })
    const body = { url: 'https://93.184.215.14/x', events: ['*'] }
    assert.equal((await t.call('POST', '/v1/webhooks', body, ADMIN)).status, 201)
    assert.equal((await t.call('POST', '/v1/webhooks', body, ADMIN)).status, 201)
    const third = await t.call('POST', '/v1/webhooks', body, ADMIN)
    assert.equal(third.status, 403)
    assert.equal(third.body.type, 'https://agent-todos.dev/problems/webhook-quota-exceeded')
    assert.equal((await t.call('POST', '/v1/webhooks', body, OTHER)).status, 201)
  })
})

for (const kind of KINDS)
  describe(`webhooks: deliveries (${kind} store)`, () => {
    it('Should send done and ended once per transition, signed, with the session summary', async () => {
      const t = await setup({ kind })
      const r = await receiver()
      const created = await t.call('POST', '/v1/webhooks', { url: r.url, events: ['*'] }, ADMIN)
      const secret = created.body.secret
      const put = (items: unknown[]) => t.call('PUT', '/v1/sessions/run-1/todos', { items }, ADMIN)
      assert.equal((await put([item('1', 'in_progress'), item('2', 'pending')])).status, 200)
      assert.equal((await put([item('1', 'completed'), item('2', 'completed')])).status, 200)
      assert.ok(await eventually(() => r.of('session.done').length === 1))
      // the same list again and an operator's no-op: no new transition
      await put([item('1', 'completed'), item('2', 'completed')])
      const end = await t.call('POST', '/v1/sessions/run-1/end', { outcome: 'completed' }, ADMIN)
      assert.equal(end.status, 200)
      assert.ok(await eventually(() => r.of('session.ended').length === 1))
      // a test delivery as a barrier: everything queued before it went out
      const test = await t.call('POST', `/v1/webhooks/${created.body.id}/test`, undefined, ADMIN)
      assert.equal(test.status, 202)
      assert.ok(await eventually(() => r.of('webhook.test').length === 1))
      assert.equal(r.of('session.done').length, 1)
      assert.equal(r.received.length, 3)
      for (const delivery of r.received) {
        assert.doesNotThrow(() => verify(secret, delivery))
        assert.equal(delivery.headers['content-type'], 'application/json')
      }
      const done = r.of('session.done')[0].json
      assert.equal(done.data.session.session_id, 'run-1')
      assert.equal(done.data.session.state, 'done')
      assert.deepEqual(done.data.session.progress.completed, 2)
      assert.equal(done.data.url, 'https://todos.example.com/#session=run-1')
      assert.ok(!Number.isNaN(Date.parse(done.timestamp)))
      const ended = r.of('session.ended')[0].json
      assert.equal(ended.data.ended.outcome, 'completed')
      assert.equal(r.of('webhook.test')[0].headers['webhook-id'], test.body.delivery_id)
      let log: any
      // the receiver answered; the log records the answer right after
      assert.ok(
        await eventuallyAsync(
          async () =>
            (log = await t.call(
              'GET',
              `/v1/webhooks/${created.body.id}/deliveries`,
              undefined,
              ADMIN
            )).body.deliveries[0].status === 'delivered'
        )
      )
      assert.deepEqual(
        log.body.deliveries.map((d: any) => [d.type, d.status, d.attempts, d.last_status]),
        [
          ['webhook.test', 'delivered', 1, 200],
          ['session.ended', 'delivered', 1, 200],
          ['session.done', 'delivered', 1, 200],
        ]
      )
      assert.ok(!log.text.includes(secret))
      const metrics = await t.metrics.registry.metrics()
      assert.match(
        metrics,
        /agent_todos_webhook_deliveries_total\{type="session.done",result="delivered"\} 1/
      )
      assert.match(metrics, /agent_todos_sessions\{state="ended"\} 1/)
    })

    it('Should send waiting, then resumed when the wait ends, and slack bodies', async () => {
      const t = await setup({ kind })
      const r = await receiver()
      const standard = await t.call('POST', '/v1/webhooks', { url: r.url, events: ['*'] }, ADMIN)
      const slack = await t.call(
        'POST',
        '/v1/webhooks',
        { url: r.url + '?slack', events: ['session.waiting'], format: 'slack' },
        ADMIN
      )
      assert.equal(slack.status, 201)
      const [todo, permission, bash] = WAITING_HOOKS
      for (const hook of [todo, permission]) {
        assert.equal((await t.call('POST', '/v1/ingest/claude-code', hook, ADMIN)).status, 200)
      }
      assert.ok(await eventually(() => r.of('session.waiting').length === 1))
      assert.ok(await eventually(() => r.received.some((d) => d.json?.text)))
      const waiting = r.of('session.waiting')[0]
      verify(standard.body.secret, waiting)
      assert.equal(waiting.json.data.waiting.reason, 'permission_prompt')
      // the first scrape counts the store's sessions by state
      assert.match(await t.metrics.registry.metrics(), /agent_todos_sessions\{state="waiting"\} 1/)
      assert.equal(waiting.json.data.session.state, 'waiting')
      const line = r.received.find((d) => d.json?.text)!
      verify(slack.body.secret, line)
      assert.match(line.json.text, /waits for you \(permission_prompt\)/)
      assert.match(line.json.text, /<https:\/\/todos\.example\.com\/#session=claude%3A/)
      // the tool ran: the wait ended, and the webhook that was told of it hears it resumed
      await t.call('POST', '/v1/ingest/claude-code', bash, ADMIN)
      assert.ok(await eventually(() => r.of('session.resumed').length === 1))
      verify(standard.body.secret, r.of('session.resumed')[0])
      // the same permission prompt again is a new transition
      await t.call('POST', '/v1/ingest/claude-code', { ...permission, tool_use_id: 'again' }, ADMIN)
      assert.ok(await eventually(() => r.of('session.waiting').length === 2))
    })

    it('Should send nothing for a wait shorter than delay_seconds, and a long one once', async () => {
      const t = await setup({ kind })
      const r = await receiver()
      const hook = await t.call(
        'POST',
        '/v1/webhooks',
        { url: r.url, events: ['session.waiting'], delay_seconds: 1 },
        ADMIN
      )
      const [todo, permission, bash] = WAITING_HOOKS
      const as = (session: string) => (h: Record<string, unknown>) => ({
        ...h,
        session_id: session,
      })
      // short: the wait ends well within the delay
      for (const h of [todo, permission, bash].map(as('short-wait'))) {
        await t.call('POST', '/v1/ingest/claude-code', h, ADMIN)
      }
      // long: began after the short one, so its delivery is due after the short one's would be
      for (const h of [todo, permission].map(as('long-wait'))) {
        await t.call('POST', '/v1/ingest/claude-code', h, ADMIN)
      }
      assert.ok(await eventually(() => r.of('session.waiting').length === 1))
      const test = await t.call('POST', `/v1/webhooks/${hook.body.id}/test`, undefined, ADMIN)
      assert.equal(test.status, 202)
      assert.ok(await eventually(() => r.of('webhook.test').length === 1))
      assert.deepEqual(
        r.of('session.waiting').map((d) => d.json.data.session.session_id),
        ['claude:long-wait']
      )
      verify(hook.body.secret, r.of('session.waiting')[0])
    })

    it('Should send stale once, within the window, then resumed on a change', async () => {
      const t = await setup({ kind, staleAfterMs: 1200 })
      const r = await receiver()
      const hook = await t.call('POST', '/v1/webhooks', { url: r.url, events: ['*'] }, ADMIN)
      // the first scan sets the tenant's mark: wait for it before the session is written
      await new Promise((resolve) => setTimeout(resolve, 150))
      const put = (items: unknown[]) => t.call('PUT', '/v1/sessions/quiet/todos', { items }, ADMIN)
      await put([item('1', 'in_progress')])
      const wrote = Date.now()
      assert.ok(await eventually(() => r.of('session.stale').length === 1))
      const stale = r.of('session.stale')[0]
      verify(hook.body.secret, stale)
      assert.equal(stale.json.data.session.state, 'stale')
      // told within 15 s of the moment it turned stale
      assert.ok(Date.now() - wrote < 1200 + 15_000)
      await put([item('1', 'in_progress'), item('2', 'pending')])
      assert.ok(await eventually(() => r.of('session.resumed').length === 1))
      // and it can stall again: a second transition, a second alert
      assert.ok(await eventually(() => r.of('session.stale').length === 2))
    })

    it('Should retry with the same webhook-id, then deliver', async () => {
      const t = await setup({ kind, retrySchedule: [0.2, 0.2, 0.2] })
      const r = await receiver((index) => (index < 2 ? 500 : 200))
      const hook = await t.call('POST', '/v1/webhooks', { url: r.url, events: ['*'] }, ADMIN)
      const test = await t.call('POST', `/v1/webhooks/${hook.body.id}/test`, undefined, ADMIN)
      assert.ok(await eventually(() => r.received.length === 3))
      assert.deepEqual(
        r.received.map((d) => d.headers['webhook-id']),
        Array(3).fill(test.body.delivery_id)
      )
      for (const d of r.received) verify(hook.body.secret, d)
      const logged = async () =>
        (await t.call('GET', `/v1/webhooks/${hook.body.id}/deliveries`, undefined, ADMIN)).body
          .deliveries[0]
      let last: any
      assert.ok(await eventuallyAsync(async () => (last = await logged()).status === 'delivered'))
      assert.equal(last.attempts, 3)
      assert.equal(last.last_status, 200)
    })

    it('Should mark a delivery failed when the schedule is used up', async () => {
      const t = await setup({ kind, retrySchedule: [0.1, 0.1] })
      const r = await receiver(() => 503)
      const hook = await t.call('POST', '/v1/webhooks', { url: r.url, events: ['*'] }, ADMIN)
      await t.call('POST', `/v1/webhooks/${hook.body.id}/test`, undefined, ADMIN)
      let last: any
      assert.ok(
        await eventuallyAsync(
          async () =>
            (last = (
              await t.call('GET', `/v1/webhooks/${hook.body.id}/deliveries`, undefined, ADMIN)
            ).body.deliveries[0]).status === 'failed'
        )
      )
      assert.equal(last.attempts, 3)
      assert.equal(last.last_status, 503)
      assert.match(last.last_error, /HTTP 503/)
      assert.equal(last.next_attempt_at, null)
      assert.equal(r.received.length, 3)
      assert.match(
        await t.metrics.registry.metrics(),
        /agent_todos_webhook_deliveries_total\{type="webhook.test",result="failed"\} 1/
      )
    })

    it('Should fail a delivery whose name now resolves to a private address', async () => {
      let address = '93.184.215.14'
      const t = await setup({
        kind,
        allowPrivate: false,
        retrySchedule: [0.1],
        resolver: async () => [{ address, family: 4 }],
      })
      const hook = await t.call(
        'POST',
        '/v1/webhooks',
        { url: 'http://rebind.example.com/h', events: ['*'] },
        ADMIN
      )
      assert.equal(hook.status, 201)
      address = '127.0.0.1'
      await t.call('POST', `/v1/webhooks/${hook.body.id}/test`, undefined, ADMIN)
      let last: any
      assert.ok(
        await eventuallyAsync(
          async () =>
            (last = (
              await t.call('GET', `/v1/webhooks/${hook.body.id}/deliveries`, undefined, ADMIN)
            ).body.deliveries[0]).status === 'failed'
        )
      )
      assert.equal(last.attempts, 1)
      assert.match(last.last_error, /refused: .*127\.0\.0\.1/)
    })

    it('Should sign with both secrets for a day after a rotation', async () => {
      const t = await setup({ kind })
      const r = await receiver()
      const hook = await t.call('POST', '/v1/webhooks', { url: r.url, events: ['*'] }, ADMIN)
      const rotated = await t.call('POST', `/v1/webhooks/${hook.body.id}/rotate`, undefined, ADMIN)
      assert.equal(rotated.status, 200)
      assert.notEqual(rotated.body.secret, hook.body.secret)
      await t.call('POST', `/v1/webhooks/${hook.body.id}/test`, undefined, ADMIN)
      assert.ok(await eventually(() => r.received.length === 1))
      const signatures = String(r.received[0].headers['webhook-signature']).split(' ')
      assert.equal(signatures.length, 2)
      assert.ok(signatures.every((s) => s.startsWith('v1,')))
      assert.doesNotThrow(() => verify(rotated.body.secret, r.received[0]))
      assert.doesNotThrow(() => verify(hook.body.secret, r.received[0]))
      // each signature on its own verifies with its own secret
      for (const [secret, signature] of [
        [rotated.body.secret, signatures[0]],
        [hook.body.secret, signatures[1]],
      ]) {
        const alone = {
          ...r.received[0],
          headers: { ...r.received[0].headers, 'webhook-signature': signature },
        }
        assert.doesNotThrow(() => verify(secret, alone))
      }
    })

    it('Should not send the pending deliveries of a deleted webhook', async () => {
      const t = await setup({ kind, retrySchedule: [0.3, 0.3, 0.3, 0.3] })
      const r = await receiver(() => 500)
      const hook = await t.call('POST', '/v1/webhooks', { url: r.url, events: ['*'] }, ADMIN)
      await t.call('POST', `/v1/webhooks/${hook.body.id}/test`, undefined, ADMIN)
      assert.ok(await eventually(() => r.received.length >= 1))
      assert.equal(
        (await t.call('DELETE', `/v1/webhooks/${hook.body.id}`, undefined, ADMIN)).status,
        204
      )
      const seen = r.received.length
      // a second webhook's delivery, due after the deleted one's next retry, is the barrier
      const r2 = await receiver()
      const other = await t.call('POST', '/v1/webhooks', { url: r2.url, events: ['*'] }, ADMIN)
      await new Promise((resolve) => setTimeout(resolve, 400))
      await t.call('POST', `/v1/webhooks/${other.body.id}/test`, undefined, ADMIN)
      assert.ok(await eventually(() => r2.received.length === 1))
      // at most an attempt that was already in flight at the delete
      assert.ok(r.received.length <= seen + 1)
    })
  })

/** `eventually` for an async condition. */
async function eventuallyAsync(check: () => Promise<boolean>, ms = 30_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return check()
}
