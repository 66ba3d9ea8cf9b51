import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createMemoryStore } from '../../src/store/memory.js'
import { makeTestApp, round } from '../helpers.js'
import { seeded, todo } from './http-fixtures.js'

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
