import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createMemoryStore } from '../../src/store/memory.js'
import { makeTestApp, round, type TestApp } from '../helpers.js'

const todo = (items: unknown, id = 'toolu_1') => ({ id, name: 'todo', input: { items } })
const five = ['Create file', 'Write f1', 'Write f2', 'Write f3', 'Run it'].map((text, i) => ({
  id: String(i + 1),
  text,
  status: 'pending',
}))

async function seeded(): Promise<TestApp> {
  const t = makeTestApp()
  await round(t, 's1', [todo(five)])
  return t
}

describe('POST /v1/sessions/{id}/rounds', () => {
  it('Should apply todo calls, count other tools, and report progress', async () => {
    const t = makeTestApp()
    const res = await round(t, 's1', [
      todo(five),
      { id: 'toolu_2', name: 'bash', input: { cmd: 'ls' } },
    ])
    assert.equal(res.status, 200)
    assert.equal(res.body.session_id, 's1')
    assert.equal(res.body.dialect, 's03')
    assert.equal(res.body.round, 1)
    assert.equal(res.body.version, 1)
    assert.equal(res.body.used_todo, true)
    assert.equal(res.body.rounds_since_todo, 0)
    assert.equal(res.body.reminder, null)
    assert.equal(res.body.notice, null)
    assert.deepEqual(res.body.dropped, [])
    assert.deepEqual(res.body.results, [
      {
        tool_use_id: 'toolu_1',
        name: 'todo',
        is_error: false,
        content:
          '[ ] #1: Create file\n[ ] #2: Write f1\n[ ] #3: Write f2\n[ ] #4: Write f3\n[ ] #5: Run it\n\n(0/5 completed)',
        structured: null,
      },
    ])
    assert.deepEqual(res.body.progress, {
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
    const res = await round(t, 's1', [
      { name: 'shell' },
      { name: 'todo', arguments: JSON.stringify({ items: [{ id: '1', text: 'a' }] }) },
      { name: 'todo', args: { items: [{ id: '1', text: 'a', status: 'completed' }] } },
      { id: 'x', name: 'todo', arguments: '{not json' },
    ])
    assert.equal(res.status, 200)
    assert.deepEqual(
      res.body.results.map((r: any) => [r.tool_use_id, r.is_error, r.content]),
      [
        ['call_1', false, '[ ] #1: a\n\n(0/1 completed)'],
        ['call_2', false, '[x] #1: a\n\n(1/1 completed)'],
        ['x', true, 'Error: tool arguments are not valid JSON'],
      ]
    )
    assert.equal(res.body.progress.percent, 100)
  })

  it('Should answer an invalid call with is_error, 200, and keep the state', async () => {
    const t = await seeded()
    const res = await round(t, 's1', [
      todo([
        { id: '1', text: 'a', status: 'in_progress' },
        { id: '2', text: 'b', status: 'in_progress' },
      ]),
    ])
    assert.equal(res.status, 200)
    assert.equal(res.body.results[0].is_error, true)
    assert.equal(res.body.results[0].content, 'Error: Only one task can be in_progress at a time')
    assert.equal(res.body.progress.total, 5)
    assert.equal(res.body.rounds_since_todo, 0)
  })

  it('Should report unfinished items a whole-list write dropped', async () => {
    const t = await seeded()
    const res = await round(t, 's1', [todo(five.slice(0, 3))])
    assert.deepEqual(
      res.body.dropped.map((i: any) => i.id),
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
    const res = await round(t, 's1', [{ name: 'bash' }], { dialect: 'claude-todowrite' })
    assert.equal(res.status, 409)
    assert.equal(res.body.type, 'https://agent-todos.dev/problems/dialect-conflict')
    const put = await t.call('PUT', '/v1/sessions/s1/todos', { items: [], dialect: 'gemini-todos' })
    assert.equal(put.status, 409)
    const same = await round(t, 's1', [{ name: 'bash' }], { dialect: 's03' })
    assert.equal(same.status, 200)
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
    assert.equal((await t.call('GET', '/v1/sessions/s1')).body.round, 1)
    const other = await t.call(
      'POST',
      '/v1/sessions/s1/rounds',
      { tool_calls: [{ name: 'bash' }] },
      headers
    )
    assert.equal(other.status, 422)
    const elsewhere = await t.call('POST', '/v1/sessions/s2/rounds', body, headers)
    assert.equal(elsewhere.headers.get('idempotent-replayed'), null, 'keys are scoped per session')
  })

  it('Should answer 409 while the first request with a key is in flight', async () => {
    const t = makeTestApp()
    const body = { tool_calls: [{ name: 'bash' }] }
    const print = createHash('sha256').update(JSON.stringify(body)).digest('hex')
    await t.store.claimIdempotency('default\u0000s1\u0000busy', print, 60_000)
    const res = await t.call('POST', '/v1/sessions/s1/rounds', body, { 'Idempotency-Key': 'busy' })
    assert.equal(res.status, 409)
    assert.equal(res.body.type, 'https://agent-todos.dev/problems/idempotency-in-flight')
    assert.equal(await t.store.get({ tenant: 'default', sessionId: 's1' }), null)
  })

  it('Should answer 413 for a body over the limit', async () => {
    const t = makeTestApp({ bodyLimitBytes: 1024 })
    const res = await t.call('POST', '/v1/sessions/s1/rounds', {
      tool_calls: [{ name: 'bash', input: { x: 'y'.repeat(2000) } }],
    })
    assert.equal(res.status, 413)
    assert.equal(res.headers.get('content-type'), 'application/problem+json')
  })
})

describe('GET /v1/sessions/{id} and /render', () => {
  it('Should return the view with an ETag and honour If-None-Match', async () => {
    const t = await seeded()
    await round(t, 's1', [
      todo([{ id: '1', text: 'Create file', status: 'in_progress' }, ...five.slice(1)]),
    ])
    const res = await t.call('GET', '/v1/sessions/s1')
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('etag'), '"2"')
    assert.equal(res.body.version, 2)
    assert.equal(res.body.current.id, '1')
    assert.equal(res.body.rendered.split('\n')[0], '[>] #1: Create file')
    assert.equal(res.body.reminder_due, false)
    for (const key of [
      'session_id',
      'dialect',
      'items',
      'progress',
      'round',
      'rounds_since_todo',
      'created_at',
      'updated_at',
    ]) {
      assert.ok(key in res.body, key)
    }
    const cached = await t.call('GET', '/v1/sessions/s1', undefined, { 'If-None-Match': '"2"' })
    assert.equal(cached.status, 304)
    assert.equal(cached.text, '')
    const stale = await t.call('GET', '/v1/sessions/s1', undefined, { 'If-None-Match': '"1"' })
    assert.equal(stale.status, 200)
  })

  it('Should render text/plain', async () => {
    const t = await seeded()
    const res = await t.call('GET', '/v1/sessions/s1/render')
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/)
    assert.ok(res.text.endsWith('(0/5 completed)'))
    assert.equal(
      (await t.call('GET', '/v1/sessions/s1/render', undefined, { 'If-None-Match': '"1"' })).status,
      304
    )
  })

  it('Should answer 404 problems for unknown sessions', async () => {
    const t = makeTestApp()
    for (const path of [
      '/v1/sessions/nope',
      '/v1/sessions/nope/render',
      '/v1/sessions/nope/history',
    ]) {
      const res = await t.call('GET', path)
      assert.equal(res.status, 404, path)
      assert.equal(res.headers.get('content-type'), 'application/problem+json')
    }
  })
})

describe('PUT /v1/sessions/{id}/todos', () => {
  const items = [
    { id: '1', content: 'Plan', status: 'completed' },
    { id: '2', content: 'Build', status: 'in_progress', active_form: 'Building' },
  ]

  it('Should let an operator edit the list without counting a round, and notify the loop once', async () => {
    const t = await seeded()
    const res = await t.call('PUT', '/v1/sessions/s1/todos', { items }, { 'If-Match': '"1"' })
    assert.equal(res.status, 200)
    assert.equal(res.body.version, 2)
    assert.equal(res.body.round, 1)
    assert.equal(res.headers.get('etag'), '"2"')
    assert.equal(res.body.current.active_form, 'Building')
    const next = await round(t, 's1', [{ name: 'bash' }])
    assert.deepEqual(next.body.notice, {
      text: `The todo list was changed by a person while you were working. This is the current list; continue from it:\n\n[x] #1: Plan\n[>] #2: Build\n\n(1/2 completed)`,
      rendered: '[x] #1: Plan\n[>] #2: Build\n\n(1/2 completed)',
    })
    assert.equal((await round(t, 's1', [{ name: 'bash' }])).body.notice, null, 'exactly once')
  })

  it('Should answer 412 on a version mismatch, also for an unknown session', async () => {
    const t = await seeded()
    assert.equal(
      (await t.call('PUT', '/v1/sessions/s1/todos', { items }, { 'If-Match': '"9"' })).status,
      412
    )
    assert.equal(
      (await t.call('PUT', '/v1/sessions/new/todos', { items }, { 'If-Match': '"1"' })).status,
      412
    )
    assert.equal(
      (await t.call('PUT', '/v1/sessions/new/todos', { items }, { 'If-Match': '*' })).status,
      412
    )
    assert.equal(
      (await t.call('PUT', '/v1/sessions/s1/todos', { items }, { 'If-Match': '*' })).status,
      200
    )
    assert.equal((await t.call('GET', '/v1/sessions/s1')).body.version, 2)
  })

  it('Should create an unknown session without If-Match', async () => {
    const t = makeTestApp()
    const res = await t.call('PUT', '/v1/sessions/new/todos', { items })
    assert.equal(res.status, 200)
    assert.equal(res.body.version, 1)
    assert.equal(res.body.dialect, 's03')
  })

  it("Should answer 422 with the dialect's message for a list that breaks its rules", async () => {
    const t = await seeded()
    const two = [
      { id: '1', content: 'a', status: 'in_progress' },
      { id: '2', content: 'b', status: 'in_progress' },
    ]
    const res = await t.call('PUT', '/v1/sessions/s1/todos', { items: two })
    assert.equal(res.status, 422)
    assert.equal(res.body.detail, 'Only one task can be in_progress at a time')
    const blocked = await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', content: 'a', status: 'blocked' }],
    })
    assert.equal(blocked.status, 422)
    assert.equal(blocked.body.detail, "Item 1: invalid status 'blocked'")
    assert.equal((await t.call('GET', '/v1/sessions/s1')).body.version, 1)
  })

  it('Should answer 400 for a body that breaks the schema', async () => {
    const t = await seeded()
    const res = await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', status: 'done' }],
    })
    assert.equal(res.status, 400)
    assert.ok(res.body.errors.some((e: any) => e.pointer === '/items/0/status'))
  })
})

describe('DELETE, end, list and history', () => {
  it('Should delete a session', async () => {
    const t = await seeded()
    assert.equal((await t.call('DELETE', '/v1/sessions/s1')).status, 204)
    assert.equal((await t.call('GET', '/v1/sessions/s1')).status, 404)
    assert.equal((await t.call('DELETE', '/v1/sessions/s1')).status, 404)
  })

  it('Should end a session with its unfinished items', async () => {
    const t = await seeded()
    const res = await t.call('POST', '/v1/sessions/s1/end', {
      outcome: 'max_turns',
      detail: 'turn limit 50',
    })
    assert.equal(res.status, 200)
    assert.equal(res.body.ended.outcome, 'max_turns')
    assert.deepEqual(res.body.ended.unfinished, ['1', '2', '3', '4', '5'])
    assert.equal(
      (await t.call('POST', '/v1/sessions/none/end', { outcome: 'completed' })).status,
      404
    )
    assert.equal((await t.call('POST', '/v1/sessions/s1/end', { outcome: 'bored' })).status, 400)
  })

  it('Should list sessions newest first with a cursor and state filter', async () => {
    const t = makeTestApp()
    for (const id of ['a', 'b', 'c']) {
      await round(t, id, [
        todo([{ id: '1', text: 'x', status: id === 'b' ? 'completed' : 'pending' }]),
      ])
      t.clock.now += 1000
    }
    const all = await t.call('GET', '/v1/sessions?limit=2')
    assert.equal(all.status, 200)
    assert.deepEqual(
      all.body.sessions.map((s: any) => s.session_id),
      ['c', 'b']
    )
    assert.ok(all.body.next_cursor)
    const rest = await t.call('GET', `/v1/sessions?limit=2&cursor=${all.body.next_cursor}`)
    assert.deepEqual(
      rest.body.sessions.map((s: any) => s.session_id),
      ['a']
    )
    assert.equal(rest.body.next_cursor, null)
    const done = await t.call('GET', '/v1/sessions?state=done')
    assert.deepEqual(
      done.body.sessions.map((s: any) => s.session_id),
      ['b']
    )
    const entry = done.body.sessions[0]
    for (const key of ['session_id', 'dialect', 'version', 'progress', 'current', 'updated_at'])
      assert.ok(key in entry)
    assert.equal((await t.call('GET', '/v1/sessions?state=bogus')).status, 400)
    assert.equal((await t.call('GET', '/v1/sessions?cursor=garbage')).status, 400)
    assert.equal((await t.call('GET', '/v1/sessions?limit=0')).status, 400)
  })

  it('Should list stale and ended sessions apart', async () => {
    const t = makeTestApp()
    await round(t, 'old', [todo([{ id: '1', text: 'x', status: 'in_progress' }])])
    await round(t, 'gone', [todo([{ id: '1', text: 'x', status: 'in_progress' }])])
    await t.call('POST', '/v1/sessions/gone/end', { outcome: 'max_turns' })
    t.clock.now += 901_000
    const stale = await t.call('GET', '/v1/sessions?state=stale')
    assert.deepEqual(
      stale.body.sessions.map((s: any) => [s.session_id, s.stale]),
      [['old', true]]
    )
    const ended = await t.call('GET', '/v1/sessions?state=ended')
    assert.deepEqual(
      ended.body.sessions.map((s: any) => [s.session_id, s.ended.outcome]),
      [['gone', 'max_turns']]
    )
  })

  it('Should return the last changes, bounded', async () => {
    const t = makeTestApp({ historyLimit: 3 })
    for (let i = 0; i < 5; i++) await round(t, 's1', [todo([{ id: '1', text: `v${i}` }])])
    await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', content: 'edited', status: 'pending' }],
    })
    const res = await t.call('GET', '/v1/sessions/s1/history')
    assert.equal(res.status, 200)
    assert.deepEqual(
      res.body.entries.map((e: any) => [e.version, e.source, e.items[0].content]),
      [
        [4, 'round', 'v3'],
        [5, 'round', 'v4'],
        [6, 'put', 'edited'],
      ]
    )
  })
})

describe('Listing filters and quotas', () => {
  it('Should filter the list by dialect and updated_since', async () => {
    const t = makeTestApp()
    await round(t, 'old', [todo([{ id: '1', text: 'x' }])])
    t.clock.now += 60_000
    const since = new Date(t.clock.now).toISOString()
    await round(
      t,
      'plan',
      [{ name: 'update_plan', input: { plan: [{ step: 'a', status: 'pending' }] } }],
      {
        dialect: 'codex-plan',
      }
    )
    t.clock.now += 1000
    await round(t, 'new', [todo([{ id: '1', text: 'y' }])])
    const ids = async (query: string) =>
      (await t.call('GET', `/v1/sessions?${query}`)).body.sessions.map((s: any) => s.session_id)
    assert.deepEqual(await ids('dialect=s03'), ['new', 'old'])
    assert.deepEqual(await ids('dialect=codex-plan'), ['plan'])
    assert.deepEqual(await ids(`updated_since=${encodeURIComponent(since)}`), ['new', 'plan'])
    assert.deepEqual(await ids(`updated_since=${encodeURIComponent(since)}&dialect=s03`), ['new'])
    assert.equal((await t.call('GET', '/v1/sessions?updated_since=yesterday')).status, 400)
    assert.equal((await t.call('GET', '/v1/sessions?dialect=klingon')).status, 400)
  })

  it('Should answer 304 to a repeated list poll with If-None-Match', async () => {
    const t = makeTestApp()
    await round(t, 's1', [todo([{ id: '1', text: 'x' }])])
    const first = await t.call('GET', '/v1/sessions')
    const etag = first.headers.get('etag')
    assert.ok(etag)
    assert.equal(
      (await t.call('GET', '/v1/sessions', undefined, { 'If-None-Match': etag })).status,
      304
    )
    await round(t, 's1', [{ name: 'bash' }])
    assert.equal(
      (await t.call('GET', '/v1/sessions', undefined, { 'If-None-Match': etag })).status,
      200
    )
  })

  it('Should refuse a new session beyond MAX_SESSIONS_PER_TENANT, naming the limit', async () => {
    const t = makeTestApp({ limits: { maxSessionsPerTenant: 2 } })
    assert.equal((await round(t, 'a', [{ name: 'bash' }])).status, 200)
    assert.equal((await round(t, 'b', [{ name: 'bash' }])).status, 200)
    const third = await round(t, 'c', [{ name: 'bash' }])
    assert.equal(third.status, 403)
    assert.match(third.body.detail, /MAX_SESSIONS_PER_TENANT/)
    const put = await t.call('PUT', '/v1/sessions/c/todos', { items: [] })
    assert.equal(put.status, 403)
    assert.equal((await round(t, 'a', [{ name: 'bash' }])).status, 200, 'existing sessions go on')
    await t.call('DELETE', '/v1/sessions/b')
    assert.equal((await round(t, 'c', [{ name: 'bash' }])).status, 200)
  })

  it('Should check MAX_SESSIONS_PER_TENANT only for creations, and refuse a bad If-Match with 412 first', async () => {
    const store = createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: Date.now })
    const calls = { get: 0, countSessions: 0 }
    const counted = Object.assign(Object.create(store), {
      get: (...args: Parameters<typeof store.get>) => (calls.get++, store.get(...args)),
      countSessions: (tenant: string) => (calls.countSessions++, store.countSessions(tenant)),
    })
    const t = makeTestApp({ store: counted, limits: { maxSessionsPerTenant: 1 } })
    assert.equal((await round(t, 'only', [{ name: 'bash' }])).status, 200)
    // the store counts inside its atomic update (no separate count to race)
    assert.deepEqual(calls, { get: 0, countSessions: 0 }, 'a creation reads nothing more')
    for (let i = 0; i < 5; i++)
      assert.equal((await round(t, 'only', [{ name: 'bash' }])).status, 200)
    assert.deepEqual(
      calls,
      { get: 0, countSessions: 0 },
      'rounds of an existing session read nothing more'
    )
    const conditional = await t.call(
      'PUT',
      '/v1/sessions/other/todos',
      { items: [] },
      { 'If-Match': '"3"' }
    )
    assert.equal(conditional.status, 412, 'no session to match: 412, not the quota')
    assert.equal((await round(t, 'other', [{ name: 'bash' }])).status, 403)
    assert.equal((await t.call('GET', '/v1/sessions/other')).status, 404, 'nothing was created')
  })

  it('Should let an operator leave out blocks and blocked_by', async () => {
    const t = makeTestApp()
    const res = await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', content: 'a', status: 'pending' }],
    })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.items[0].blocks, [])
    assert.deepEqual(res.body.items[0].blocked_by, [])
  })
})

describe('Idempotency claims', () => {
  it('Should let a retry run again once an abandoned in-flight claim has lapsed (30 s)', async () => {
    const t = makeTestApp()
    const body = { tool_calls: [{ name: 'bash' }] }
    const print = createHash('sha256').update(JSON.stringify(body)).digest('hex')
    await t.store.claimIdempotency('default\u0000s1\u0000crashed', print, 30_000)
    assert.equal(
      (await t.call('POST', '/v1/sessions/s1/rounds', body, { 'Idempotency-Key': 'crashed' }))
        .status,
      409
    )
    t.clock.now += 30_001
    const retry = await t.call('POST', '/v1/sessions/s1/rounds', body, {
      'Idempotency-Key': 'crashed',
    })
    assert.equal(retry.status, 200)
    assert.equal(retry.body.round, 1)
    t.clock.now += 3600_000
    const replay = await t.call('POST', '/v1/sessions/s1/rounds', body, {
      'Idempotency-Key': 'crashed',
    })
    assert.equal(
      replay.headers.get('idempotent-replayed'),
      'true',
      'a completed reply is kept for 24 h'
    )
  })
})

describe('Session state, computed by the server', () => {
  it('Should put the state the listing filters by in views and summaries', async () => {
    const t = makeTestApp({ staleAfterMs: 60_000 })
    const put = (id: string, statuses: string[]) =>
      t.call('PUT', `/v1/sessions/${id}/todos`, {
        items: statuses.map((status, i) => ({ id: String(i + 1), content: `item ${i}`, status })),
      })
    await put('old', ['completed', 'pending'])
    t.clock.now += 120_000
    await put('working', ['in_progress', 'pending'])
    await put('empty', [])
    await put('finished', ['completed', 'completed'])
    await put('over', ['in_progress'])
    await t.call('POST', '/v1/sessions/over/end', { outcome: 'max_turns' })
    const expected: Record<string, string> = {
      old: 'stale',
      working: 'active',
      empty: 'active',
      finished: 'done',
      over: 'ended',
    }
    for (const [id, state] of Object.entries(expected)) {
      assert.equal((await t.call('GET', `/v1/sessions/${id}`)).body.state, state, id)
    }
    const all = await t.call('GET', '/v1/sessions')
    for (const s of all.body.sessions) assert.equal(s.state, expected[s.session_id], s.session_id)
    for (const filter of ['active', 'done', 'stale', 'ended']) {
      const listed = await t.call('GET', `/v1/sessions?state=${filter}`)
      const ids = listed.body.sessions.map((s: { session_id: string }) => s.session_id).sort()
      // the active filter also lists the stale sessions: active ones that stopped changing
      const want = Object.keys(expected)
        .filter(
          (id) => expected[id] === filter || (filter === 'active' && expected[id] === 'stale')
        )
        .sort()
      assert.deepEqual(ids, want, filter)
    }
  })
})
