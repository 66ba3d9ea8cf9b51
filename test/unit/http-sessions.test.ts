import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { DialectName, Item } from '../../src/client/index.js'
import { createMemoryStore } from '../../src/store/memory.js'
import { makeTestApp, round, typedRound } from '../helpers.js'
import { pathOf, seeded, todo } from './http-fixtures.js'

// Requests go through the typed client (t.api); `t.call` stays where a test sends what the
// OpenAPI document forbids (an unknown outcome, state or dialect, a malformed cursor or limit).
describe('DELETE, end, list and history', () => {
  it('Should delete a session', async () => {
    const t = await seeded()
    const remove = () => t.api.DELETE('/v1/sessions/{session_id}', pathOf('s1'))
    assert.equal((await remove()).response.status, 204)
    assert.equal((await t.api.GET('/v1/sessions/{session_id}', pathOf('s1'))).response.status, 404)
    assert.equal((await remove()).response.status, 404)
  })

  it('Should end a session with its unfinished items', async () => {
    const t = await seeded()
    const { data, response } = await t.api.POST('/v1/sessions/{session_id}/end', {
      ...pathOf('s1'),
      body: { outcome: 'max_turns', detail: 'turn limit 50' },
    })
    assert.equal(response.status, 200)
    assert.equal(data?.ended?.outcome, 'max_turns')
    assert.deepEqual(data?.ended?.unfinished, ['1', '2', '3', '4', '5'])
    assert.equal(
      (
        await t.api.POST('/v1/sessions/{session_id}/end', {
          ...pathOf('none'),
          body: { outcome: 'completed' },
        })
      ).response.status,
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
    const list = (query: { limit?: number; cursor?: string; state?: 'done' }) =>
      t.api.GET('/v1/sessions', { params: { query } })
    const all = await list({ limit: 2 })
    assert.equal(all.response.status, 200)
    assert.deepEqual(
      all.data?.sessions.map((s) => s.session_id),
      ['c', 'b']
    )
    assert.ok(all.data?.next_cursor)
    const rest = await list({ limit: 2, cursor: all.data.next_cursor })
    assert.deepEqual(
      rest.data?.sessions.map((s) => s.session_id),
      ['a']
    )
    assert.equal(rest.data?.next_cursor, null)
    const done = await list({ state: 'done' })
    assert.deepEqual(
      done.data?.sessions.map((s) => s.session_id),
      ['b']
    )
    const entry = done.data?.sessions[0]
    assert.ok(entry)
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
    await t.api.POST('/v1/sessions/{session_id}/end', {
      ...pathOf('gone'),
      body: { outcome: 'max_turns' },
    })
    t.clock.now += 901_000
    const stale = await t.api.GET('/v1/sessions', { params: { query: { state: 'stale' } } })
    assert.deepEqual(
      stale.data?.sessions.map((s) => [s.session_id, s.stale]),
      [['old', true]]
    )
    const ended = await t.api.GET('/v1/sessions', { params: { query: { state: 'ended' } } })
    assert.deepEqual(
      ended.data?.sessions.map((s) => [s.session_id, s.ended?.outcome]),
      [['gone', 'max_turns']]
    )
  })

  it('Should return the last changes, bounded', async () => {
    const t = makeTestApp({ historyLimit: 3 })
    for (let i = 0; i < 5; i++) await round(t, 's1', [todo([{ id: '1', text: `v${i}` }])])
    await t.api.PUT('/v1/sessions/{session_id}/todos', {
      ...pathOf('s1'),
      body: { items: [{ id: '1', content: 'edited', status: 'pending' }] },
    })
    const { data, response } = await t.api.GET('/v1/sessions/{session_id}/history', pathOf('s1'))
    assert.equal(response.status, 200)
    assert.deepEqual(
      data?.entries.map((e) => [e.version, e.source, e.items[0].content]),
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
    const ids = async (query: { dialect?: DialectName; updated_since?: string }) =>
      (await t.api.GET('/v1/sessions', { params: { query } })).data?.sessions.map(
        (s) => s.session_id
      )
    assert.deepEqual(await ids({ dialect: 's03' }), ['new', 'old'])
    assert.deepEqual(await ids({ dialect: 'codex-plan' }), ['plan'])
    assert.deepEqual(await ids({ updated_since: since }), ['new', 'plan'])
    assert.deepEqual(await ids({ updated_since: since, dialect: 's03' }), ['new'])
    assert.equal((await t.call('GET', '/v1/sessions?updated_since=yesterday')).status, 400)
    assert.equal((await t.call('GET', '/v1/sessions?dialect=klingon')).status, 400)
  })

  it('Should answer 304 to a repeated list poll with If-None-Match', async () => {
    const t = makeTestApp()
    await round(t, 's1', [todo([{ id: '1', text: 'x' }])])
    const first = await t.api.GET('/v1/sessions')
    const etag = first.response.headers.get('etag')
    assert.ok(etag)
    const poll = () => t.api.GET('/v1/sessions', { params: { header: { 'if-none-match': etag } } })
    assert.equal((await poll()).response.status, 304)
    await round(t, 's1', [{ name: 'bash' }])
    assert.equal((await poll()).response.status, 200)
  })

  it('Should refuse a new session beyond MAX_SESSIONS_PER_TENANT, naming the limit', async () => {
    const t = makeTestApp({ limits: { maxSessionsPerTenant: 2 } })
    assert.equal((await typedRound(t, 'a', [{ name: 'bash' }])).response.status, 200)
    assert.equal((await typedRound(t, 'b', [{ name: 'bash' }])).response.status, 200)
    const third = await typedRound(t, 'c', [{ name: 'bash' }])
    assert.equal(third.response.status, 403)
    assert.match(third.error?.detail ?? '', /MAX_SESSIONS_PER_TENANT/)
    const put = await t.api.PUT('/v1/sessions/{session_id}/todos', {
      ...pathOf('c'),
      body: { items: [] },
    })
    assert.equal(put.response.status, 403)
    assert.equal(
      (await typedRound(t, 'a', [{ name: 'bash' }])).response.status,
      200,
      'existing sessions go on'
    )
    await t.api.DELETE('/v1/sessions/{session_id}', pathOf('b'))
    assert.equal((await typedRound(t, 'c', [{ name: 'bash' }])).response.status, 200)
  })

  it('Should check MAX_SESSIONS_PER_TENANT only for creations, and refuse a bad If-Match with 412 first', async () => {
    const store = createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: Date.now })
    const calls = { get: 0, countSessions: 0 }
    const counted = Object.assign(Object.create(store), {
      get: (...args: Parameters<typeof store.get>) => (calls.get++, store.get(...args)),
      countSessions: (tenant: string) => (calls.countSessions++, store.countSessions(tenant)),
    })
    const t = makeTestApp({ store: counted, limits: { maxSessionsPerTenant: 1 } })
    assert.equal((await typedRound(t, 'only', [{ name: 'bash' }])).response.status, 200)
    // the store counts inside its atomic update (no separate count to race)
    assert.deepEqual(calls, { get: 0, countSessions: 0 }, 'a creation reads nothing more')
    for (let i = 0; i < 5; i++)
      assert.equal((await typedRound(t, 'only', [{ name: 'bash' }])).response.status, 200)
    assert.deepEqual(
      calls,
      { get: 0, countSessions: 0 },
      'rounds of an existing session read nothing more'
    )
    const conditional = await t.api.PUT('/v1/sessions/{session_id}/todos', {
      params: { path: { session_id: 'other' }, header: { 'if-match': '"3"' } },
      body: { items: [] },
    })
    assert.equal(conditional.response.status, 412, 'no session to match: 412, not the quota')
    assert.equal((await typedRound(t, 'other', [{ name: 'bash' }])).response.status, 403)
    assert.equal(
      (await t.api.GET('/v1/sessions/{session_id}', pathOf('other'))).response.status,
      404,
      'nothing was created'
    )
  })

  it('Should let an operator leave out blocks and blocked_by', async () => {
    const t = makeTestApp()
    const { data, response } = await t.api.PUT('/v1/sessions/{session_id}/todos', {
      ...pathOf('s1'),
      body: { items: [{ id: '1', content: 'a', status: 'pending' }] },
    })
    assert.equal(response.status, 200)
    assert.deepEqual(data?.items[0].blocks, [])
    assert.deepEqual(data?.items[0].blocked_by, [])
  })
})

describe('Session state, computed by the server', () => {
  it('Should put the state the listing filters by in views and summaries', async () => {
    const t = makeTestApp({ staleAfterMs: 60_000 })
    const put = (id: string, statuses: Item['status'][]) =>
      t.api.PUT('/v1/sessions/{session_id}/todos', {
        ...pathOf(id),
        body: {
          items: statuses.map((status, i) => ({ id: String(i + 1), content: `item ${i}`, status })),
        },
      })
    await put('old', ['completed', 'pending'])
    t.clock.now += 120_000
    await put('working', ['in_progress', 'pending'])
    await put('empty', [])
    await put('finished', ['completed', 'completed'])
    await put('over', ['in_progress'])
    await t.api.POST('/v1/sessions/{session_id}/end', {
      ...pathOf('over'),
      body: { outcome: 'max_turns' },
    })
    const expected: Record<string, string> = {
      old: 'stale',
      working: 'active',
      empty: 'active',
      finished: 'done',
      over: 'ended',
    }
    for (const [id, state] of Object.entries(expected)) {
      assert.equal(
        (await t.api.GET('/v1/sessions/{session_id}', pathOf(id))).data?.state,
        state,
        id
      )
    }
    const all = await t.api.GET('/v1/sessions')
    assert.ok(all.data)
    for (const s of all.data.sessions) assert.equal(s.state, expected[s.session_id], s.session_id)
    for (const filter of ['active', 'done', 'stale', 'ended'] as const) {
      const listed = await t.api.GET('/v1/sessions', { params: { query: { state: filter } } })
      const ids = listed.data?.sessions.map((s) => s.session_id).sort()
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
