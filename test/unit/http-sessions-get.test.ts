import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, round } from '../helpers.js'
import { five, seeded, todo } from './http-fixtures.js'

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
