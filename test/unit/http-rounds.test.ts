import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, typedRound } from '../helpers.js'
import { five, pathOf, seeded, todo } from './http-fixtures.js'

// Requests go through the typed client (t.api); `t.call` stays where a test sends what the
// OpenAPI document forbids (bodies and session ids off the schema, malformed JSON) or compares
// replies byte for byte (an idempotent replay).
describe('POST /v1/sessions/{id}/rounds', () => {
  it('Should apply todo calls, count other tools, and report progress', async () => {
    const t = makeTestApp()
    const { data, response } = await typedRound(t, 's1', [
      todo(five),
      { id: 'toolu_2', name: 'bash', input: { cmd: 'ls' } },
    ])
    assert.equal(response.status, 200)
    assert.ok(data)
    assert.equal(data.session_id, 's1')
    assert.equal(data.dialect, 's03')
    assert.equal(data.round, 1)
    assert.equal(data.version, 1)
    assert.equal(data.used_todo, true)
    assert.equal(data.rounds_since_todo, 0)
    assert.equal(data.reminder, null)
    assert.equal(data.notice, null)
    assert.deepEqual(data.dropped, [])
    assert.deepEqual(data.results, [
      {
        tool_use_id: 'toolu_1',
        name: 'todo',
        is_error: false,
        content:
          '[ ] #1: Create file\n[ ] #2: Write f1\n[ ] #3: Write f2\n[ ] #4: Write f3\n[ ] #5: Run it\n\n(0/5 completed)',
        structured: null,
      },
    ])
    assert.deepEqual(data.progress, {
      total: 5,
      completed: 0,
      in_progress: 0,
      pending: 5,
      cancelled: 0,
      blocked: 0,
      percent: 0,
    })
  })

  it('Should accept OpenAI arguments strings and Gemini args, and name missing ids call_{index}', async () => {
    const t = makeTestApp()
    const res = await typedRound(t, 's1', [
      { name: 'shell' },
      { name: 'todo', arguments: JSON.stringify({ items: [{ id: '1', text: 'a' }] }) },
      { name: 'todo', args: { items: [{ id: '1', text: 'a', status: 'completed' }] } },
      { id: 'x', name: 'todo', arguments: '{not json' },
    ])
    assert.equal(res.response.status, 200)
    assert.deepEqual(
      res.data?.results.map((r) => [r.tool_use_id, r.is_error, r.content]),
      [
        ['call_1', false, '[ ] #1: a\n\n(0/1 completed)'],
        ['call_2', false, '[x] #1: a\n\n(1/1 completed)'],
        ['x', true, 'Error: tool arguments are not valid JSON'],
      ]
    )
    assert.equal(res.data?.progress.percent, 100)
  })

  it('Should answer an invalid call with is_error, 200, and keep the state', async () => {
    const t = await seeded()
    const res = await typedRound(t, 's1', [
      todo([
        { id: '1', text: 'a', status: 'in_progress' },
        { id: '2', text: 'b', status: 'in_progress' },
      ]),
    ])
    assert.equal(res.response.status, 200)
    assert.ok(res.data)
    assert.equal(res.data.results[0].is_error, true)
    assert.equal(res.data.results[0].content, 'Error: Only one task can be in_progress at a time')
    assert.equal(res.data.progress.total, 5)
    assert.equal(res.data.rounds_since_todo, 0)
  })

  it('Should report unfinished items a whole-list write dropped', async () => {
    const t = await seeded()
    const res = await typedRound(t, 's1', [todo(five.slice(0, 3))])
    assert.deepEqual(
      res.data?.dropped.map((i) => i.id),
      ['4', '5']
    )
  })

  it('Should reject bad bodies with 400 problems', async () => {
    const t = makeTestApp()
    for (const body of [
      {},
      { tool_calls: [] },
      { tool_calls: Array.from({ length: 129 }, () => ({ name: 'bash' })) },
      { tool_calls: [{ id: 'x' }] },
      { tool_calls: 'nope' },
      { dialect: 'klingon', tool_calls: [{ name: 'bash' }] },
      [],
      'null',
    ]) {
      const res = await t.call('POST', '/v1/sessions/s1/rounds', body)
      assert.equal(res.status, 400, JSON.stringify(body))
      assert.equal(res.headers.get('content-type'), 'application/problem+json')
      assert.equal(res.body.status, 400)
      assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0)
    }
    const malformed = await t.call('POST', '/v1/sessions/s1/rounds', '{"tool_calls": [')
    assert.equal(malformed.status, 400)
    assert.equal(malformed.body.type, 'https://agent-todos.dev/problems/malformed-json')
    assert.equal(await t.store.get({ tenant: 'default', sessionId: 's1' }), null)
  })

  it('Should reject an invalid session id with 400', async () => {
    const t = makeTestApp()
    for (const id of ['-x', 'a%20b', 'a{b}', 'x'.repeat(129)]) {
      const res = await t.call('POST', `/v1/sessions/${id}/rounds`, {
        tool_calls: [{ name: 'bash' }],
      })
      assert.equal(res.status, 400, id)
      assert.equal(res.body.errors[0].pointer, '/path/session_id')
    }
  })

  it('Should refuse another dialect on an existing session with 409', async () => {
    const t = await seeded()
    const res = await typedRound(t, 's1', [{ name: 'bash' }], { dialect: 'claude-todowrite' })
    assert.equal(res.response.status, 409)
    assert.equal(res.error?.type, 'https://agent-todos.dev/problems/dialect-conflict')
    const put = await t.api.PUT('/v1/sessions/{session_id}/todos', {
      ...pathOf('s1'),
      body: { items: [], dialect: 'gemini-todos' },
    })
    assert.equal(put.response.status, 409)
    const same = await typedRound(t, 's1', [{ name: 'bash' }], { dialect: 's03' })
    assert.equal(same.response.status, 200)
  })

  it('Should replay an idempotent retry and change nothing', async () => {
    const t = makeTestApp()
    const body = { tool_calls: [todo(five)] }
    const headers = { 'Idempotency-Key': 'k1' }
    const first = await t.call('POST', '/v1/sessions/s1/rounds', body, headers)
    const second = await t.call('POST', '/v1/sessions/s1/rounds', body, headers)
    assert.equal(second.status, 200)
    assert.equal(second.headers.get('idempotent-replayed'), 'true')
    assert.equal(second.text, first.text)
    assert.equal(first.headers.get('idempotent-replayed'), null)
    assert.equal((await t.api.GET('/v1/sessions/{session_id}', pathOf('s1'))).data?.round, 1)
    const keyed = (session_id: string) => ({
      params: { path: { session_id }, header: { 'idempotency-key': 'k1' } },
    })
    const other = await t.api.POST('/v1/sessions/{session_id}/rounds', {
      ...keyed('s1'),
      body: { tool_calls: [{ name: 'bash' }] },
    })
    assert.equal(other.response.status, 422)
    const elsewhere = await t.api.POST('/v1/sessions/{session_id}/rounds', { ...keyed('s2'), body })
    assert.equal(
      elsewhere.response.headers.get('idempotent-replayed'),
      null,
      'keys are scoped per session'
    )
  })

  it('Should answer 409 while the first request with a key is in flight', async () => {
    const t = makeTestApp()
    const body = { tool_calls: [{ name: 'bash' }] }
    const print = createHash('sha256').update(JSON.stringify(body)).digest('hex')
    await t.store.claimIdempotency('default\u0000s1\u0000busy', print, 60_000)
    const res = await t.api.POST('/v1/sessions/{session_id}/rounds', {
      params: { path: { session_id: 's1' }, header: { 'idempotency-key': 'busy' } },
      body,
    })
    assert.equal(res.response.status, 409)
    assert.equal(res.error?.type, 'https://agent-todos.dev/problems/idempotency-in-flight')
    assert.equal(await t.store.get({ tenant: 'default', sessionId: 's1' }), null)
  })

  it('Should answer 413 for a body over the limit', async () => {
    const t = makeTestApp({ bodyLimitBytes: 1024 })
    const res = await typedRound(t, 's1', [{ name: 'bash', input: { x: 'y'.repeat(2000) } }])
    assert.equal(res.response.status, 413)
    assert.equal(res.response.headers.get('content-type'), 'application/problem+json')
  })
})

describe('Idempotency claims', () => {
  it('Should let a retry run again once an abandoned in-flight claim has lapsed (30 s)', async () => {
    const t = makeTestApp()
    const body = { tool_calls: [{ name: 'bash' }] }
    const print = createHash('sha256').update(JSON.stringify(body)).digest('hex')
    await t.store.claimIdempotency('default\u0000s1\u0000crashed', print, 30_000)
    const post = () =>
      t.api.POST('/v1/sessions/{session_id}/rounds', {
        params: { path: { session_id: 's1' }, header: { 'idempotency-key': 'crashed' } },
        body,
      })
    assert.equal((await post()).response.status, 409)
    t.clock.now += 30_001
    const retry = await post()
    assert.equal(retry.response.status, 200)
    assert.equal(retry.data?.round, 1)
    t.clock.now += 3600_000
    const replay = await post()
    assert.equal(
      replay.response.headers.get('idempotent-replayed'),
      'true',
      'a completed reply is kept for 24 h'
    )
  })
})
