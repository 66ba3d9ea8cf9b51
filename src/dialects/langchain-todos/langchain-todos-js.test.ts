/**
 * The `js` flavour of langchain-todos in sessions: the flavour a first round fixes, zod's rules on
 * an operator's list, the Python default, an unknown flavour refused, each flavour's tool. Its
 * texts byte for byte against the npm package `langchain` itself (a test-only package of
 * test/agents/) are test/integration/langchain-todos-js-native.test.ts's.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { langchainTodos, langchainTodosJs } from './index.js'
import { makeTestApp } from '../../../test/helpers.js'

const todo = (content: unknown, status: unknown) => ({ content, status })

describe('langchain-todos flavours in sessions', () => {
  const call = (todos: unknown) => ({
    id: 'c1',
    name: 'write_todos',
    arguments: JSON.stringify({ todos }),
  })

  it('Should answer in JSON when the first round sets flavour js, and keep the flavour', async () => {
    const t = makeTestApp()
    const first = await t.call('POST', '/v1/sessions/lc-js/rounds', {
      dialect: 'langchain-todos',
      settings: { flavour: 'js' },
      tool_calls: [call([todo("it's", 'pending')])],
    })
    assert.equal(first.status, 200)
    assert.equal(
      first.body.results[0].content,
      `Updated todo list to [{"content":"it's","status":"pending"}]`
    )
    // settings are fixed by the first write: a later round's do not switch the flavour
    const later = await t.call('POST', '/v1/sessions/lc-js/rounds', {
      settings: { flavour: 'python' },
      tool_calls: [call([todo('b', 'done')])],
    })
    assert.match(
      later.body.results[0].content,
      /^Error invoking tool 'write_todos' with kwargs \{"/
    )
    assert.match(later.body.results[0].content, /received 'done'\n {2}→ at todos\[0\]\.status\n/)
    const view = await t.call('GET', '/v1/sessions/lc-js')
    assert.equal(view.body.settings.flavour, 'js')
  })

  it("Should check an operator's list of a js session by zod's rules", async () => {
    const t = makeTestApp()
    await t.call('POST', '/v1/sessions/lc-js-put/rounds', {
      dialect: 'langchain-todos',
      settings: { flavour: 'js' },
      tool_calls: [call([todo('a', 'pending')])],
    })
    const res = await t.call('PUT', '/v1/sessions/lc-js-put/todos', {
      items: [{ id: '1', content: 'a', status: 'cancelled' }],
    })
    assert.equal(res.status, 422)
    assert.equal(
      res.body.detail,
      "✖ Invalid enum value. Expected 'pending' | 'in_progress' | 'completed', received 'cancelled'\n  → at todos[0].status"
    )
  })

  it('Should speak Python without a flavour or with flavour python', async () => {
    const t = makeTestApp()
    for (const [id, settings] of [
      ['lc-default', undefined],
      ['lc-py', { flavour: 'python' }],
    ] as const) {
      const res = await t.call('POST', `/v1/sessions/${id}/rounds`, {
        dialect: 'langchain-todos',
        ...(settings ? { settings } : {}),
        tool_calls: [call([todo("it's", 'pending')])],
      })
      assert.equal(
        res.body.results[0].content,
        `Updated todo list to [{'content': "it's", 'status': 'pending'}]`
      )
    }
  })

  it('Should refuse an unknown flavour with a 400 naming the field', async () => {
    const t = makeTestApp()
    const round = await t.call('POST', '/v1/sessions/lc-bad/rounds', {
      dialect: 'langchain-todos',
      settings: { flavour: 'ruby' },
      tool_calls: [call([])],
    })
    assert.equal(round.status, 400)
    assert.deepEqual(
      round.body.errors.map((e: { pointer: string }) => e.pointer),
      ['/settings/flavour']
    )
    for (const url of [
      '/v1/tools?dialect=langchain-todos&flavour=ruby',
      '/v1/dialects/langchain-todos?flavour=ruby',
    ]) {
      const res = await t.call('GET', url)
      assert.equal(res.status, 400, url)
      assert.equal(res.headers.get('content-type'), 'application/problem+json')
      assert.deepEqual(
        res.body.errors.map((e: { pointer: string }) => e.pointer),
        ['/query/flavour']
      )
    }
  })

  it('Should serve each flavour’s tool and keep the Python one the default', async () => {
    const t = makeTestApp()
    const tools = async (query: string) =>
      (await t.call('GET', `/v1/tools?dialect=langchain-todos&format=mcp${query}`)).body.tools[0]
    const [byDefault, python, js] = await Promise.all([
      tools(''),
      tools('&flavour=python'),
      tools('&flavour=js'),
    ])
    assert.deepEqual(byDefault, python)
    assert.equal(python.description, langchainTodos.tools[0].description)
    assert.equal(js.description, langchainTodosJs.tools[0].description)
    assert.equal(js.inputSchema.additionalProperties, false)
    assert.equal(js.inputSchema.properties.todos.items.additionalProperties, false)
    assert.ok(js.description.includes('## Examples of When to Use the Todo List'))
  })
})
