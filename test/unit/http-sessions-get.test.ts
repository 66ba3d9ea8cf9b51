import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, round } from '../helpers.js'
import { five, pathOf, seeded, todo } from './http-fixtures.js'

// Requests go through the typed client (t.api); `t.call` stays where the test reads what the
// client hides: the empty body of a 304.
describe('GET /v1/sessions/{id} and /render', () => {
  it('Should return the view with an ETag and honour If-None-Match', async () => {
    const t = await seeded()
    await round(t, 's1', [
      todo([{ id: '1', text: 'Create file', status: 'in_progress' }, ...five.slice(1)]),
    ])
    const { data, response } = await t.api.GET('/v1/sessions/{session_id}', pathOf('s1'))
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('etag'), '"2"')
    assert.ok(data)
    assert.equal(data.version, 2)
    assert.equal(data.current?.id, '1')
    assert.equal(data.rendered.split('\n')[0], '[>] #1: Create file')
    assert.equal(data.reminder_due, false)
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
      assert.ok(key in data, key)
    }
    const cached = await t.call('GET', '/v1/sessions/s1', undefined, { 'If-None-Match': '"2"' })
    assert.equal(cached.status, 304)
    assert.equal(cached.text, '')
    const stale = await t.api.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 's1' }, header: { 'if-none-match': '"1"' } },
    })
    assert.equal(stale.response.status, 200)
  })

  it('Should render text/plain', async () => {
    const t = await seeded()
    const { data, response } = await t.api.GET('/v1/sessions/{session_id}/render', {
      ...pathOf('s1'),
      parseAs: 'text',
    })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/)
    assert.ok(data?.endsWith('(0/5 completed)'))
    const cached = await t.api.GET('/v1/sessions/{session_id}/render', {
      params: { path: { session_id: 's1' }, header: { 'if-none-match': '"1"' } },
      parseAs: 'text',
    })
    assert.equal(cached.response.status, 304)
  })

  it('Should answer 404 problems for unknown sessions', async () => {
    const t = makeTestApp()
    const replies = {
      '/v1/sessions/nope': await t.api.GET('/v1/sessions/{session_id}', pathOf('nope')),
      '/v1/sessions/nope/render': await t.api.GET(
        '/v1/sessions/{session_id}/render',
        pathOf('nope')
      ),
      '/v1/sessions/nope/history': await t.api.GET(
        '/v1/sessions/{session_id}/history',
        pathOf('nope')
      ),
    }
    for (const [path, { response, error }] of Object.entries(replies)) {
      assert.equal(response.status, 404, path)
      assert.equal(response.headers.get('content-type'), 'application/problem+json')
      assert.equal(error?.status, 404, path)
    }
  })
})
