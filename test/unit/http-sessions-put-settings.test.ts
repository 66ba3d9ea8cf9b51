/**
 * A PUT that creates a session sets its settings as a first round does (a dialect's flavour, the
 * reminder); and a person's pending edit of an observed session counts against
 * MAX_SESSION_BYTES with the list it sits beside.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, postHooks } from '../ingest-support.js'

describe('PUT …/todos settings', () => {
  it('Should create a session with the settings a PUT names, and keep them', async () => {
    const t = makeTestApp()
    const put = await t.call('PUT', '/v1/sessions/lc-put/todos', {
      dialect: 'langchain-todos',
      settings: { flavour: 'js', reminder: false },
      items: [{ id: '1', content: 'a', status: 'pending' }],
    })
    assert.equal(put.status, 200, put.text)
    assert.equal(put.body.settings.flavour, 'js')
    assert.equal(put.body.settings.reminder, false)
    const round = await t.call('POST', '/v1/sessions/lc-put/rounds', {
      tool_calls: [
        {
          id: 'c1',
          name: 'write_todos',
          arguments: JSON.stringify({ todos: [{ content: 'b', status: 'pending' }] }),
        },
      ],
    })
    // the js flavour's JSON.stringify result, not the Python repr
    assert.equal(
      round.body.results[0].content,
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
      status: 'pending',
    }))
    const fits = await t.call('PUT', `/v1/sessions/${session}/todos`, { items: big.slice(0, 1) })
    assert.equal(fits.status, 200, fits.text)
    const over = await t.call('PUT', `/v1/sessions/${session}/todos`, { items: big })
    assert.equal(over.status, 422)
    assert.match(over.body.detail, /staged calls and pending edit|MAX_SESSION_BYTES/)
  })
})
