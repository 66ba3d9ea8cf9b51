import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { components } from '../../src/client/index.js'
import { makeTestApp, typedRound, type TestApp } from '../helpers.js'
import { pathOf, seeded } from './http-fixtures.js'

type PutTodosRequest = components['schemas']['PutTodosRequest']

// Requests go through the typed client (t.api); `t.call` stays where a test sends what the
// OpenAPI document forbids (a body off the schema, malformed JSON, a text body).
describe('PUT /v1/sessions/{id}/todos', () => {
  const items: PutTodosRequest['items'] = [
    { id: '1', content: 'Plan', status: 'completed' },
    { id: '2', content: 'Build', status: 'in_progress', active_form: 'Building' },
  ]
  const put = (session_id: string, body: PutTodosRequest, ifMatch?: string) =>
    ifMatch === undefined
      ? { params: { path: { session_id } }, body }
      : { params: { path: { session_id }, header: { 'if-match': ifMatch } }, body }
  const version = async (t: TestApp) =>
    (await t.api.GET('/v1/sessions/{session_id}', pathOf('s1'))).data?.version

  it('Should let an operator edit the list without counting a round, and notify the loop once', async () => {
    const t = await seeded()
    const { data, response } = await t.api.PUT(
      '/v1/sessions/{session_id}/todos',
      put('s1', { items }, '"1"')
    )
    assert.equal(response.status, 200)
    assert.equal(data?.version, 2)
    assert.equal(data?.round, 1)
    assert.equal(response.headers.get('etag'), '"2"')
    assert.equal(data?.current?.active_form, 'Building')
    const next = await typedRound(t, 's1', [{ name: 'bash' }])
    assert.deepEqual(next.data?.notice, {
      text: `The todo list was changed by a person while you were working. This is the current list; continue from it:\n\n[x] #1: Plan\n[>] #2: Build\n\n(1/2 completed)`,
      rendered: '[x] #1: Plan\n[>] #2: Build\n\n(1/2 completed)',
    })
    assert.equal((await typedRound(t, 's1', [{ name: 'bash' }])).data?.notice, null, 'exactly once')
  })

  it('Should answer 412 on a version mismatch, also for an unknown session', async () => {
    const t = await seeded()
    const status = async (session_id: string, ifMatch: string) =>
      (await t.api.PUT('/v1/sessions/{session_id}/todos', put(session_id, { items }, ifMatch)))
        .response.status
    assert.equal(await status('s1', '"9"'), 412)
    assert.equal(await status('new', '"1"'), 412)
    assert.equal(await status('new', '*'), 412)
    assert.equal(await status('s1', '*'), 200)
    assert.equal(await version(t), 2)
  })

  it('Should create an unknown session without If-Match', async () => {
    const t = makeTestApp()
    const { data, response } = await t.api.PUT(
      '/v1/sessions/{session_id}/todos',
      put('new', { items })
    )
    assert.equal(response.status, 200)
    assert.equal(data?.version, 1)
    assert.equal(data?.dialect, 's03')
  })

  it("Should answer 422 with the dialect's message for a list that breaks its rules", async () => {
    const t = await seeded()
    const two: PutTodosRequest['items'] = [
      { id: '1', content: 'a', status: 'in_progress' },
      { id: '2', content: 'b', status: 'in_progress' },
    ]
    const res = await t.api.PUT('/v1/sessions/{session_id}/todos', put('s1', { items: two }))
    assert.equal(res.response.status, 422)
    assert.equal(res.error?.detail, 'Only one task can be in_progress at a time')
    const blocked = await t.api.PUT(
      '/v1/sessions/{session_id}/todos',
      put('s1', { items: [{ id: '1', content: 'a', status: 'blocked' }] })
    )
    assert.equal(blocked.response.status, 422)
    assert.equal(blocked.error?.detail, "Item 1: invalid status 'blocked'")
    assert.equal(await version(t), 1)
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
    assert.equal(await version(t), 1)
  })
})
