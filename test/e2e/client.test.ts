/**
 * End to end: the typed client (`agent-todos/client`) against the real server process.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { AgentTodosClient } from '../../src/client/index.js'
import { startServer, type ServerProcess } from './server-process.js'

describe('The typed client against the real server', () => {
  let server: ServerProcess
  let acme: AgentTodosClient
  before(async () => {
    server = await startServer({ AUTH_KEYS: 'acme:agent:acme-key-123,other:agent:other-key-123' })
    acme = server.api('acme-key-123')
  })
  after(async () => {
    await server.stop()
  })

  const path = (session_id: string) => ({ params: { path: { session_id } } })

  it('Should report rounds and read the session, typed end to end', async () => {
    const dialects = await acme.GET('/v1/dialects')
    assert.ok(dialects.data!.dialects.some((dialect) => dialect.name === 's03'))

    const reply = await acme.POST('/v1/sessions/{session_id}/rounds', {
      ...path('typed'),
      body: {
        dialect: 's03',
        tool_calls: [
          {
            id: 'toolu_01',
            name: 'todo',
            input: { items: [{ id: '1', text: 'Write tests', status: 'pending' }] },
          },
          { id: 'toolu_02', name: 'bash' },
        ],
      },
    })
    assert.equal(reply.response.status, 200)
    assert.deepEqual(reply.data!.results, [
      {
        tool_use_id: 'toolu_01',
        name: 'todo',
        is_error: false,
        content: '[ ] #1: Write tests\n\n(0/1 completed)',
        structured: null,
      },
    ])
    assert.equal(reply.data!.progress.total, 1)

    const view = await acme.GET('/v1/sessions/{session_id}', path('typed'))
    assert.equal(view.data!.version, 1)
    const etag = view.response.headers.get('etag')!
    assert.equal(etag, '"1"')
    const unchanged = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'typed' }, header: { 'if-none-match': etag } },
    })
    assert.equal(unchanged.response.status, 304)

    const render = await acme.GET('/v1/sessions/{session_id}/render', {
      ...path('typed'),
      parseAs: 'text',
    })
    assert.equal(render.data, '[ ] #1: Write tests\n\n(0/1 completed)')
  })

  it('Should edit with If-Match, and give problems as typed errors', async () => {
    await acme.POST('/v1/sessions/{session_id}/rounds', {
      ...path('edit'),
      body: { tool_calls: [{ name: 'bash' }] },
    })
    const edited = await acme.PUT('/v1/sessions/{session_id}/todos', {
      params: { path: { session_id: 'edit' }, header: { 'if-match': '"1"' } },
      // blocks and blocked_by default to [] on the server: the document leaves them out of ItemInput
      body: { items: [{ id: '1', content: 'Ship it', status: 'in_progress' }] },
    })
    assert.equal(edited.data!.rendered, '[>] #1: Ship it\n\n(0/1 completed)')
    const stale = await acme.PUT('/v1/sessions/{session_id}/todos', {
      params: { path: { session_id: 'edit' }, header: { 'if-match': '"1"' } },
      body: { items: [] },
    })
    assert.equal(stale.response.status, 412)
    assert.equal(stale.error!.status, 412)
    assert.match(stale.error!.type, /problems\//)

    const other = server.api('other-key-123')
    const hidden = await other.GET('/v1/sessions/{session_id}', path('edit'))
    assert.equal(hidden.error!.status, 404)
    const anonymous = server.api()
    const refused = await anonymous.GET('/v1/sessions')
    assert.equal(refused.response.status, 401)

    const listed = await acme.GET('/v1/sessions', { params: { query: { state: 'active' } } })
    assert.deepEqual(listed.data!.sessions.map((session) => session.session_id).sort(), [
      'edit',
      'typed',
    ])
    const removed = await acme.DELETE('/v1/sessions/{session_id}', path('edit'))
    assert.equal(removed.response.status, 204)
  })
})
