/**
 * A PUT that creates a session sets its settings as a first round does (a dialect's flavour, the
 * reminder); and a person's pending edit of an observed session counts against
 * MAX_SESSION_BYTES with the list it sits beside.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, typedRound } from '../helpers.js'
import { fixtureJson, postHooks } from '../ingest-support.js'
import { pathOf } from './http-fixtures.js'

// Requests go through the typed client (t.api); `t.call` stays where a test sends what the
// OpenAPI document forbids (an unknown flavour).
describe('PUT …/todos settings', () => {
  it('Should create a session with the settings a PUT names, and keep them', async () => {
    const t = makeTestApp()
    const put = await t.api.PUT('/v1/sessions/{session_id}/todos', {
      ...pathOf('lc-put'),
      body: {
        dialect: 'langchain-todos',
        settings: { flavour: 'js', reminder: false },
        items: [{ id: '1', content: 'a', status: 'pending' }],
      },
    })
    assert.equal(put.response.status, 200, JSON.stringify(put.error))
    assert.equal(put.data?.settings.flavour, 'js')
    assert.equal(put.data?.settings.reminder, false)
    const round = await typedRound(t, 'lc-put', [
      {
        id: 'c1',
        name: 'write_todos',
        arguments: JSON.stringify({ todos: [{ content: 'b', status: 'pending' }] }),
      },
    ])
    // the js flavour's JSON.stringify result, not the Python repr
    assert.equal(
      round.data?.results[0].content,
      'Updated todo list to [{"content":"b","status":"pending"}]'
    )
    const refused = await t.call('PUT', '/v1/sessions/lc-put-bad/todos', {
      dialect: 'langchain-todos',
      settings: { flavour: 'ruby' },
      items: [],
    })
    assert.equal(refused.status, 400)
    assert.deepEqual(
      refused.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/settings/flavour']
    )
  })
})

describe("A person's pending edit and MAX_SESSION_BYTES", () => {
  it('Should refuse (422) an edit that, pending beside the list, passes the cap', async () => {
    const t = makeTestApp({ limits: { maxSessionBytes: 8192 } })
    const [todo] = fixtureJson('claude-code/waiting.hooks.json')
    await postHooks(t, 'claude-code', [todo])
    const session = 'claude:5d2e7f10-8a3b-4c6d-9e1f-2a3b4c5d6e7f'
    const big = Array.from({ length: 4 }, (_, i) => ({
      id: String(i + 1),
      content: `${i} `.padEnd(1900, 'x'),
      status: 'pending' as const,
    }))
    const edit = (items: typeof big) =>
      t.api.PUT('/v1/sessions/{session_id}/todos', { ...pathOf(session), body: { items } })
    const fits = await edit(big.slice(0, 1))
    assert.equal(fits.response.status, 200, JSON.stringify(fits.error))
    const over = await edit(big)
    assert.equal(over.response.status, 422)
    assert.match(over.error?.detail ?? '', /staged calls and pending edit|MAX_SESSION_BYTES/)
  })
})
