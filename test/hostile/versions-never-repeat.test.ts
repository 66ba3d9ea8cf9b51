/**
 * Finding 7: after DELETE and re-creation a session started again at version 1, so an ETag or a
 * Last-Event-ID named two different states.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, round } from '../helpers.js'

describe('hostile 07: a session id never repeats a version', () => {
  it("Should go on from the deleted session's version, so an old ETag does not match", async () => {
    const t = makeTestApp()
    const items = (text: string) => [{ id: '1', text, status: 'pending' }]
    await round(t, 's1', [{ name: 'todo', input: { items: items('old plan') } }])
    const old = await t.call('GET', '/v1/sessions/s1')
    assert.equal(old.headers.get('etag'), '"1"')
    assert.equal((await t.call('DELETE', '/v1/sessions/s1')).status, 204)
    await round(t, 's1', [{ name: 'todo', input: { items: items('new plan') } }])
    const fresh = await t.call('GET', '/v1/sessions/s1', undefined, { 'If-None-Match': '"1"' })
    assert.equal(fresh.status, 200, 'the old ETag names the old state, not this one')
    assert.equal(fresh.body.version, 2)
    assert.equal(fresh.headers.get('etag'), '"2"')
    assert.match(fresh.body.rendered, /new plan/)
    const put = await t.call(
      'PUT',
      '/v1/sessions/s1/todos',
      { items: [{ id: '1', content: 'x', status: 'pending' }] },
      { 'If-Match': '"1"' }
    )
    assert.equal(put.status, 412)
  })

  it('Should keep growing across a PUT re-creation', async () => {
    const t = makeTestApp()
    const body = { items: [{ id: '1', content: 'x', status: 'pending' }] }
    assert.equal((await t.call('PUT', '/v1/sessions/p/todos', body)).body.version, 1)
    assert.equal((await t.call('PUT', '/v1/sessions/p/todos', body)).body.version, 2)
    await t.call('DELETE', '/v1/sessions/p')
    assert.equal((await t.call('PUT', '/v1/sessions/p/todos', body)).body.version, 3)
  })
})
