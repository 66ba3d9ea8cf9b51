import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseAuthKeys } from '../../src/http/auth.js'
import { makeTestApp, round, type TestApp } from '../helpers.js'
import { fixtureJson, postHooks } from '../ingest-support.js'
import { sseReader } from '../sse.js'

const todo = (text: string, status = 'pending') => ({
  name: 'todo',
  input: { items: [{ id: '1', text, status }] },
})

async function open(t: TestApp, path: string, headers: Record<string, string> = {}) {
  const res = await t.app.request(path, { headers })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
  return sseReader(res.body!)
}

describe('GET /v1/sessions/{id}/events', () => {
  it('Should send a snapshot, then one update per version, in order', async () => {
    const t = makeTestApp()
    await round(t, 's1', [todo('a')])
    const sse = await open(t, '/v1/sessions/s1/events')
    const snapshot = await sse.nextEvent()
    assert.equal(snapshot?.event, 'snapshot')
    assert.equal(snapshot?.id, '1')
    assert.equal(JSON.parse(snapshot.data!).rendered, '[ ] #1: a\n\n(0/1 completed)')
    await round(t, 's1', [todo('a', 'in_progress')])
    await round(t, 's1', [{ name: 'bash' }])
    await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', content: 'a', status: 'completed' }],
    })
    const updates = [await sse.nextEvent(), await sse.nextEvent(), await sse.nextEvent()]
    assert.deepEqual(
      updates.map((m) => [m?.event, m?.id, JSON.parse(m!.data!).version]),
      [
        ['update', '2', 2],
        ['update', '3', 3],
        ['update', '4', 4],
      ]
    )
    assert.equal(JSON.parse(updates[2]!.data!).progress.percent, 100)
    await sse.cancel()
  })

  it('Should resume after Last-Event-ID from history', async () => {
    const t = makeTestApp()
    for (const text of ['v1', 'v2', 'v3', 'v4']) await round(t, 's1', [todo(text)])
    const sse = await open(t, '/v1/sessions/s1/events', { 'Last-Event-ID': '2' })
    const replayed = [await sse.nextEvent(), await sse.nextEvent()]
    assert.deepEqual(
      replayed.map((m) => [m?.event, m?.id, JSON.parse(m!.data!).items[0].content]),
      [
        ['update', '3', 'v3'],
        ['update', '4', 'v4'],
      ]
    )
    await round(t, 's1', [todo('v5')])
    const live = await sse.nextEvent()
    assert.deepEqual([live?.event, live?.id], ['update', '5'])
    await sse.cancel()
  })

  it('Should send heartbeat comments', async () => {
    const t = makeTestApp({ sseHeartbeatMs: 30 })
    await round(t, 's1', [todo('a')])
    const sse = await open(t, '/v1/sessions/s1/events')
    await sse.next()
    const beat = await sse.next(1000)
    assert.equal(beat?.comment, 'heartbeat')
    await sse.cancel()
  })

  it('Should send delete and end the stream when the session is deleted', async () => {
    const t = makeTestApp()
    await round(t, 's1', [todo('a')])
    const sse = await open(t, '/v1/sessions/s1/events')
    await sse.next()
    await t.call('DELETE', '/v1/sessions/s1')
    assert.equal((await sse.nextEvent())?.event, 'delete')
    assert.equal(await sse.nextEvent(), null)
  })

  it('Should close streams cleanly on shutdown', async () => {
    const controller = new AbortController()
    const t = makeTestApp({ shutdownSignal: controller.signal })
    await round(t, 's1', [todo('a')])
    const sse = await open(t, '/v1/sessions/s1/events')
    await sse.next()
    controller.abort()
    assert.equal(await sse.nextEvent(), null)
  })

  it('Should answer 404 for an unknown session', async () => {
    const t = makeTestApp()
    assert.equal((await t.call('GET', '/v1/sessions/none/events')).status, 404)
  })
})

describe('GET /v1/events', () => {
  it("Should send the tenant's sessions, then updates of any session", async () => {
    const t = makeTestApp()
    await round(t, 'a', [todo('x')])
    const sse = await open(t, '/v1/events')
    const snapshot = await sse.nextEvent()
    assert.equal(snapshot?.event, 'snapshot')
    assert.deepEqual(
      JSON.parse(snapshot.data!).sessions.map((s: any) => s.session_id),
      ['a']
    )
    await round(t, 'b', [todo('y')])
    const update = await sse.nextEvent()
    assert.equal(update?.event, 'update')
    assert.equal(JSON.parse(update.data!).session_id, 'b')
    await sse.cancel()
  })
})

describe('GET /metrics', () => {
  it('Should count a known sequence of rounds exactly, labelled by route pattern', async () => {
    const t = makeTestApp()
    await round(t, 's1', [todo('a')])
    await round(t, 's1', [{ name: 'bash' }])
    await round(t, 's1', [{ name: 'bash' }])
    await round(t, 's1', [{ name: 'bash' }])
    await round(t, 's1', [{ name: 'todo', input: { items: [{ text: '' }] } }])
    await round(t, 's1', [todo('b'), { name: 'todo', input: { items: [{ id: '2', text: 'c' }] } }])
    const res = await t.call('GET', '/metrics')
    assert.equal(res.status, 200)
    const metrics = new Map<string, number>()
    for (const line of res.text.split('\n')) {
      if (!line || line.startsWith('#')) continue
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line)
      assert.ok(match, `not Prometheus text: ${line}`)
      metrics.set(match[1], Number(match[2]))
    }
    assert.equal(metrics.get('agent_todos_rounds_total{dialect="s03"}'), 6)
    assert.equal(metrics.get('agent_todos_todo_calls_total{dialect="s03"}'), 4)
    assert.equal(metrics.get('agent_todos_validation_errors_total{dialect="s03"}'), 1)
    assert.equal(metrics.get('agent_todos_reminders_total{dialect="s03"}'), 1)
    assert.equal(metrics.get('agent_todos_dropped_items_total{dialect="s03"}'), 1)
    assert.ok(
      [...metrics.keys()].some((k) => k.includes('route="/v1/sessions/:session_id/rounds"')),
      'request metrics use the route pattern'
    )
    assert.ok(![...metrics.keys()].some((k) => k.includes('s1')), 'no session id in any label')
  })
})

describe('Draining', () => {
  it('Should refuse new streams with 503 and close connections after each reply', async () => {
    let draining = false
    const t = makeTestApp({ isDraining: () => draining })
    await round(t, 's1', [todo('a')])
    draining = true
    const stream = await t.call('GET', '/v1/sessions/s1/events')
    assert.equal(stream.status, 503)
    assert.equal(stream.headers.get('retry-after'), '1')
    assert.equal((await t.call('GET', '/v1/events')).status, 503)
    const view = await t.call('GET', '/v1/sessions/s1')
    assert.equal(view.status, 200)
    assert.equal(view.headers.get('connection'), 'close')
  })
})

describe('State changes without a write', () => {
  it('Should push a session that turns stale, on the tenant and the session stream', async () => {
    const t = makeTestApp({ staleAfterMs: 1000 })
    await round(t, 'a', [todo('x')])
    const tenant = await open(t, '/v1/events')
    const session = await open(t, '/v1/sessions/a/events')
    const snapshot = JSON.parse((await tenant.nextEvent())!.data!)
    assert.equal(snapshot.sessions[0].state, 'active')
    assert.equal(JSON.parse((await session.nextEvent())!.data!).state, 'active')
    t.clock.now += 5000
    const summary = await tenant.nextEvent()
    assert.equal(summary?.event, 'update')
    assert.equal(summary?.id, '1', 'the same version')
    assert.equal(JSON.parse(summary.data!).state, 'stale')
    assert.equal(JSON.parse(summary.data!).stale, true)
    const view = await session.nextEvent()
    assert.deepEqual([view?.event, view?.id], ['update', '1'])
    assert.equal(JSON.parse(view!.data!).state, 'stale')
    // a write makes it active again
    await round(t, 'a', [todo('x', 'in_progress')])
    assert.equal(JSON.parse((await tenant.nextEvent())!.data!).state, 'active')
    assert.equal(JSON.parse((await session.nextEvent())!.data!).state, 'active')
    await Promise.all([tenant.cancel(), session.cancel()])
  })
})

describe('Quiet writes of an observed session', () => {
  it('Should push a view that changed under the same version: a busy agent is active again', async () => {
    const t = makeTestApp({ staleAfterMs: 1000 })
    const [todo, , bash] = fixtureJson('claude-code/waiting.hooks.json')
    const id = `claude:${todo.session_id}`
    await postHooks(t, 'claude-code', [todo])
    const tenant = await open(t, '/v1/events')
    const session = await open(t, `/v1/sessions/${id}/events`)
    await tenant.nextEvent()
    await session.nextEvent()
    t.clock.now += 5000
    assert.equal(JSON.parse((await tenant.nextEvent())!.data!).state, 'stale')
    assert.equal(JSON.parse((await session.nextEvent())!.data!).state, 'stale')
    // another tool's hook: activity only, no version (SPEC), but the session is alive again
    await postHooks(t, 'claude-code', [bash])
    const summary = await tenant.nextEvent()
    assert.deepEqual([summary?.event, summary?.id], ['update', '1'])
    assert.equal(JSON.parse(summary!.data!).state, 'active')
    const view = await session.nextEvent()
    assert.deepEqual([view?.event, view?.id], ['update', '1'])
    assert.equal(JSON.parse(view!.data!).state, 'active')
    assert.equal(JSON.parse(view!.data!).updated_at, new Date(t.clock.now).toISOString())
    await Promise.all([tenant.cancel(), session.cancel()])
  })
})

describe('GET /v1/whoami', () => {
  it("Should name the key's tenant and role, for viewer keys too", async () => {
    const t = makeTestApp({
      keys: parseAuthKeys('acme:agent:agent-key-1,acme:viewer:viewer-key-1'),
    })
    const agent = await t.call('GET', '/v1/whoami', undefined, {
      Authorization: 'Bearer agent-key-1',
    })
    assert.deepEqual(agent.body, { tenant: 'acme', role: 'agent', user: null, via: 'key' })
    const viewer = await t.call('GET', '/v1/whoami', undefined, {
      Authorization: 'Bearer viewer-key-1',
    })
    assert.deepEqual(viewer.body, { tenant: 'acme', role: 'viewer', user: null, via: 'key' })
    assert.equal((await t.call('GET', '/v1/whoami')).status, 401)
    const open = makeTestApp()
    assert.deepEqual((await open.call('GET', '/v1/whoami')).body, {
      tenant: 'default',
      role: 'agent',
      user: null,
      via: 'open',
    })
  })
})
