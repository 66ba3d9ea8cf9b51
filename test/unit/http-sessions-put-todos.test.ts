import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, round } from '../helpers.js'
import { seeded } from './http-fixtures.js'

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

  it('Should answer malformed JSON and a body that is not JSON as the rounds route does', async () => {
    const t = await seeded()
    const malformed = await t.call('PUT', '/v1/sessions/s1/todos', '{"items": [')
    assert.equal(malformed.status, 400)
    assert.deepEqual(
      { type: malformed.body.type, title: malformed.body.title, detail: malformed.body.detail },
      {
        type: 'https://agent-todos.dev/problems/malformed-json',
        title: 'Bad Request',
        detail: 'The request body is not valid JSON.',
      }
    )
    assert.deepEqual(malformed.body.errors, [
      { pointer: '', detail: 'Malformed JSON in request body' },
    ])
    const text = await t.call('PUT', '/v1/sessions/s1/todos', 'items', {
      'Content-Type': 'text/plain',
    })
    assert.equal(text.status, 415)
    assert.equal(text.body.type, 'https://agent-todos.dev/problems/http-error')
    assert.equal((await t.call('GET', '/v1/sessions/s1')).body.version, 1)
  })
})
