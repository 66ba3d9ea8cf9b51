/**
 * `/mcp` through app.request(): JSON-RPC envelopes, headers, faults, and the round it maps to.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { DIALECTS } from '../../src/dialects/registry.js'
import { hashKey } from '../../src/http/auth.js'
import { makeTestApp, round, type TestApp } from '../helpers.js'

const ACCEPT = 'application/json, text/event-stream'

/** One JSON-RPC request to /mcp. */
async function rpc(
  t: TestApp,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
  path = '/mcp'
) {
  const res = await t.call(
    'POST',
    path,
    { jsonrpc: '2.0', id: 7, method, params },
    { Accept: ACCEPT, ...headers }
  )
  return res
}

const callTodo = (
  t: TestApp,
  args: unknown,
  headers: Record<string, string> = { 'X-Session-Id': 's1' }
) => rpc(t, 'tools/call', { name: 'todo', arguments: args }, headers)

/** Every tool of every dialect. */
const EVERY_TOOL = [...DIALECTS.values()].flatMap((dialect) =>
  dialect.tools.map((tool) => ({ dialect: dialect.name, tool: tool.name }))
)

/** A tools/call reply that is a result or a JSON-RPC error, never an internal error. */
function assertAnswered(res: Awaited<ReturnType<typeof rpc>>) {
  assert.ok(res.status === 200 || res.status === 400, `${res.status} ${res.text}`)
  assert.equal(res.body.jsonrpc, '2.0')
  if (res.body.error) assert.notEqual(res.body.error.code, -32603, res.text)
  else assert.equal(typeof res.body.result.content[0].text, 'string')
}

const INITIALIZE = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'unit', version: '1.0.0' },
}

describe('/mcp (Streamable HTTP, stateless)', () => {
  it('Should initialize with a JSON reply and issue an Mcp-Session-Id', async () => {
    const t = makeTestApp()
    const res = await rpc(t, 'initialize', INITIALIZE)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /application\/json/)
    assert.match(res.headers.get('mcp-session-id') ?? '', /^mcp-[0-9a-f-]{36}$/)
    assert.equal(res.body.id, 7)
    assert.equal(res.body.result.protocolVersion, '2025-06-18')
    assert.deepEqual(res.body.result.serverInfo, { name: 'agent-todos', version: '1.0.0' })
    assert.deepEqual(Object.keys(res.body.result.capabilities).sort(), ['resources', 'tools'])
  })

  it('Should accept notifications with 202', async () => {
    const t = makeTestApp()
    const res = await t.call(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { Accept: ACCEPT, 'Mcp-Session-Id': 'mcp-x' }
    )
    assert.equal(res.status, 202)
  })

  it('Should apply a call as a round of that one call, with the result text of the rounds API', async () => {
    const t = makeTestApp()
    const res = await callTodo(t, { items: [{ id: '1', text: 'Write tests', status: 'pending' }] })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.result, {
      content: [{ type: 'text', text: '[ ] #1: Write tests\n\n(0/1 completed)' }],
      isError: false,
    })
    const rest = await round(t, 's2', [
      {
        id: 'a',
        name: 'todo',
        input: { items: [{ id: '1', text: 'Write tests', status: 'pending' }] },
      },
    ])
    assert.equal(rest.body.results[0].content, res.body.result.content[0].text)
    const view = await t.call('GET', '/v1/sessions/s1')
    assert.equal(view.body.round, 1)
    assert.equal(view.body.version, 1)
    assert.equal(view.body.rounds_since_todo, 0)
    const history = await t.call('GET', '/v1/sessions/s1/history')
    assert.deepEqual(
      history.body.entries.map((entry: { source: string }) => entry.source),
      ['round']
    )
  })

  it('Should parse a list sent as a JSON string, as the rounds API does', async () => {
    const t = makeTestApp()
    const res = await callTodo(t, {
      items: JSON.stringify([{ id: '1', text: 'A', status: 'in_progress' }]),
    })
    assert.equal(res.body.result.content[0].text, '[>] #1: A\n\n(0/1 completed)')
  })

  it("Should answer a dialect's validation failure as an isError result, leaving the list unchanged", async () => {
    const t = makeTestApp()
    await callTodo(t, { items: [{ id: '1', text: 'A', status: 'pending' }] })
    const res = await callTodo(t, {
      items: Array.from({ length: 21 }, (_, i) => ({ id: String(i), text: 'x' })),
    })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.result, {
      content: [{ type: 'text', text: 'Error: Max 20 todos allowed' }],
      isError: true,
    })
    const missing = await rpc(t, 'tools/call', { name: 'todo' }, { 'X-Session-Id': 's1' })
    assert.deepEqual(missing.body.result.content, [
      { type: 'text', text: 'Error: items must be a list' },
    ])
    const view = await t.call('GET', '/v1/sessions/s1')
    assert.equal(view.body.rendered, '[ ] #1: A\n\n(0/1 completed)')
  })

  it("Should append the notice after a person's edit, once", async () => {
    const t = makeTestApp()
    await callTodo(t, { items: [{ id: '1', text: 'A', status: 'pending' }] })
    const put = await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', content: 'A', status: 'completed' }],
    })
    assert.equal(put.status, 200)
    const res = await callTodo(t, {
      items: [
        { id: '1', text: 'A', status: 'completed' },
        { id: '2', text: 'B' },
      ],
    })
    assert.equal(res.body.result.content.length, 2)
    assert.match(res.body.result.content[1].text, /changed by a person/)
    const again = await callTodo(t, { items: [{ id: '1', text: 'A', status: 'completed' }] })
    assert.equal(again.body.result.content.length, 1)
  })

  it("Should give a dialect's structured output as structuredContent", async () => {
    const t = makeTestApp()
    const headers = { 'X-Session-Id': 'tasks', 'X-Dialect': 'claude-tasks' }
    const res = await rpc(
      t,
      'tools/call',
      { name: 'TaskCreate', arguments: { subject: 'Ship it', description: 'All of it' } },
      headers
    )
    assert.equal(res.body.result.isError, false)
    assert.deepEqual(res.body.result.structuredContent, {
      task: { id: '1', subject: 'Ship it', description: 'All of it' },
    })
  })

  it('Should list no resource without a session, and read an unknown session as the empty list', async () => {
    const t = makeTestApp()
    const list = await rpc(t, 'resources/list', {})
    assert.deepEqual(list.body.result, { resources: [] })
    const templates = await rpc(t, 'resources/templates/list', {})
    assert.equal(
      templates.body.result.resourceTemplates[0].uriTemplate,
      'agent-todos://sessions/{session_id}/todos'
    )
    const read = await rpc(t, 'resources/read', { uri: 'agent-todos://sessions/nobody/todos' })
    assert.deepEqual(read.body.result.contents, [
      { uri: 'agent-todos://sessions/nobody/todos', mimeType: 'text/plain', text: 'No todos.' },
    ])
    // the 2025 revisions' Resource not found (2026-07-28 answers -32602; see the 2026 tests)
    const bad = await rpc(t, 'resources/read', { uri: 'file:///etc/passwd' })
    assert.equal(bad.body.error.code, -32002)
    assert.deepEqual(bad.body.error.data, { uri: 'file:///etc/passwd' })
  })

  it('Should answer protocol faults with JSON-RPC errors', async () => {
    const t = makeTestApp()
    const noSession = await callTodo(t, { items: [] }, {})
    assert.equal(noSession.status, 200)
    assert.equal(noSession.body.error.code, -32600)
    assert.match(noSession.body.error.message, /X-Session-Id/)

    const notAnObject = await rpc(
      t,
      'tools/call',
      { name: 'todo', arguments: ['a'] },
      { 'X-Session-Id': 's1' }
    )
    assert.equal(notAnObject.body.error.code, -32602)
    const noUri = await rpc(t, 'resources/read', {})
    assert.equal(noUri.body.error.code, -32602)
    assert.match(noUri.body.error.message, /^Invalid params: /)

    const unknownMethod = await rpc(t, 'prompts/list', {})
    assert.equal(unknownMethod.body.error.code, -32601)

    const badSession = await callTodo(t, { items: [] }, { 'X-Session-Id': 'a/b' })
    assert.equal(badSession.status, 400)
    assert.deepEqual(Object.keys(badSession.body).sort(), ['error', 'id', 'jsonrpc'])
    assert.equal(badSession.body.error.code, -32600)

    const badDialect = await rpc(t, 'tools/list', {}, {}, '/mcp?dialect=klingon')
    assert.equal(badDialect.status, 400)
    assert.match(badDialect.body.error.message, /Unknown dialect 'klingon'/)

    const notJson = await t.call('POST', '/mcp', '{"jsonrpc":', {
      Accept: ACCEPT,
      'Content-Type': 'application/json',
    })
    assert.equal(notJson.status, 400)
    assert.equal(notJson.body.error.code, -32700)

    const notRpc = await t.call('POST', '/mcp', { hello: 'world' }, { Accept: ACCEPT })
    assert.equal(notRpc.status, 400)
    assert.equal(notRpc.body.jsonrpc, '2.0')

    const wrongType = await t.call('POST', '/mcp', '{}', {
      Accept: ACCEPT,
      'Content-Type': 'text/plain',
    })
    assert.equal(wrongType.status, 415)
    assert.equal(wrongType.body.jsonrpc, '2.0')

    for (const method of ['GET', 'DELETE', 'PUT']) {
      const res = await t.call(method, '/mcp')
      assert.equal(res.status, 405, method)
      assert.equal(res.headers.get('allow'), 'POST')
      assert.equal(res.body.jsonrpc, '2.0')
    }
  })

  it("Should list and run langchain-todos in the flavour asked for a new session, then the session's", async () => {
    const t = makeTestApp()
    const rest = async (flavour: string) =>
      (await t.call('GET', `/v1/tools?dialect=langchain-todos&format=mcp&flavour=${flavour}`)).body
        .tools
    const js = await rest('js')
    assert.notDeepEqual(js, await rest('python'), 'the flavours differ')

    const headers = { 'X-Session-Id': 'lc-js', 'X-Dialect': 'langchain-todos', 'X-Flavour': 'js' }
    const listed = await rpc(t, 'tools/list', {}, headers)
    assert.deepEqual(listed.body.result.tools, js)
    const byQuery = await rpc(t, 'tools/list', {}, {}, '/mcp?dialect=langchain-todos&flavour=js')
    assert.deepEqual(byQuery.body.result.tools, js)

    const todos = [{ content: 'Plan', status: 'pending' }]
    const called = await rpc(
      t,
      'tools/call',
      { name: 'write_todos', arguments: { todos } },
      headers
    )
    assert.equal(
      called.body.result.content[0].text,
      'Updated todo list to [{"content":"Plan","status":"pending"}]'
    )
    const view = await t.call('GET', '/v1/sessions/lc-js')
    assert.equal(view.body.dialect, 'langchain-todos')

    // the session keeps its flavour: listed without the header, or with the other one
    const session = { 'X-Session-Id': 'lc-js' }
    assert.deepEqual((await rpc(t, 'tools/list', {}, session)).body.result.tools, js)
    const other = await rpc(t, 'tools/list', {}, { ...session, 'X-Flavour': 'python' })
    assert.deepEqual(other.body.result.tools, js)

    const bad = await rpc(t, 'tools/list', {}, {}, '/mcp?flavour=rust')
    assert.equal(bad.status, 400)
    assert.match(bad.body.error.message, /Unknown flavour 'rust' \(python, js\)/)
  })

  it('Should refuse a dialect that conflicts with the session, as a JSON-RPC error', async () => {
    const t = makeTestApp()
    await callTodo(t, { items: [] })
    const res = await rpc(
      t,
      'tools/list',
      {},
      { 'X-Session-Id': 's1', 'X-Dialect': 'claude-todowrite' }
    )
    assert.equal(res.body.error.code, -32600)
    assert.match(res.body.error.message, /speaks 's03'/)
    const tools = await rpc(t, 'tools/list', {}, { 'X-Session-Id': 's1' })
    assert.deepEqual(
      tools.body.result.tools.map((tool: { name: string }) => tool.name),
      ['todo']
    )
  })

  it('Should need a key when keys are configured; viewers may read but not call tools', async () => {
    const keys = new Map([
      [hashKey('agent-key-123'), { tenant: 'acme', role: 'agent' as const }],
      [hashKey('viewer-key-123'), { tenant: 'acme', role: 'viewer' as const }],
    ])
    const t = makeTestApp({ keys })
    const anonymous = await rpc(t, 'tools/list', {})
    assert.equal(anonymous.status, 401)
    const viewer = await rpc(t, 'tools/list', {}, { Authorization: 'Bearer viewer-key-123' })
    assert.equal(viewer.status, 200)
    assert.deepEqual(
      viewer.body.result.tools.map((tool: { name: string }) => tool.name),
      ['todo']
    )
    const viewerCall = await callTodo(
      t,
      { items: [{ id: '1', text: 'x' }] },
      { Authorization: 'Bearer viewer-key-123', 'X-Session-Id': 's1' }
    )
    assert.equal(viewerCall.body.error.code, -32600)
    assert.match(viewerCall.body.error.message, /read-only/)
    assert.equal(await t.store.get({ tenant: 'acme', sessionId: 's1' }), null)
    const agent = await callTodo(
      t,
      { items: [] },
      { Authorization: 'Bearer agent-key-123', 'X-Session-Id': 's1' }
    )
    assert.equal(agent.body.result.content[0].text, 'No todos.')
  })

  it('Should answer an oversized body with 413', async () => {
    const t = makeTestApp({ bodyLimitBytes: 1024 })
    const res = await callTodo(t, { items: [{ id: '1', text: 'x'.repeat(2000) }] })
    assert.equal(res.status, 413)
  })

  it('Should answer random calls of every dialect with a result or a JSON-RPC error, never an internal error', async () => {
    const t = makeTestApp()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...EVERY_TOOL),
        fc.oneof(
          fc.anything(),
          fc.dictionary(
            fc.constantFrom('items', 'todos', 'plan', 'subject', 'taskId'),
            fc.anything()
          )
        ),
        fc.constantFrom('f1', 'f2'),
        async ({ dialect, tool }, args, session) => {
          const res = await rpc(
            t,
            'tools/call',
            { name: tool, arguments: args },
            { 'X-Session-Id': `${dialect}-${session}`, 'X-Dialect': dialect }
          )
          assertAnswered(res)
        }
      ),
      { numRuns: 150, seed: 42 }
    )
  })
})

/** The per-request `_meta` envelope of protocol revision 2026-07-28. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'unit', version: '1.0.0' },
}

/** One 2026-07-28 request: the envelope in `_meta` and the standard headers (SEP-2243). */
function modern(
  t: TestApp,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {}
) {
  const name = typeof params.name === 'string' ? params.name : (params.uri as string | undefined)
  return t.call(
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: 11, method, params: { ...params, _meta: ENVELOPE } },
    {
      Accept: ACCEPT,
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': method,
      ...(name === undefined ? {} : { 'Mcp-Name': name }),
      ...headers,
    }
  )
}

describe('/mcp as hosts speak it in 2026', () => {
  it('Should answer an unsupported MCP-Protocol-Version with 400, not 404', async () => {
    const t = makeTestApp()
    const res = await rpc(t, 'tools/list', {}, { 'MCP-Protocol-Version': '1999-01-01' })
    assert.equal(res.status, 400)
    assert.equal(res.body.jsonrpc, '2.0')
    assert.match(res.body.error.message, /Unsupported protocol version: 1999-01-01/)
    const known = await rpc(t, 'tools/list', {}, { 'MCP-Protocol-Version': '2025-11-25' })
    assert.equal(known.status, 200)
    assert.equal(known.body.result.tools[0].name, 'todo')
  })

  it('Should answer a notification with 202 and no body', async () => {
    const t = makeTestApp()
    const res = await t.call(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { Accept: ACCEPT }
    )
    assert.equal(res.status, 202)
    assert.equal(res.text, '')
  })

  it("Should answer a viewer key's tools/call with HTTP 403, in a batch too, and store nothing", async () => {
    const keys = new Map([[hashKey('viewer-key-123'), { tenant: 'acme', role: 'viewer' as const }]])
    const t = makeTestApp({ keys })
    const headers = { Authorization: 'Bearer viewer-key-123', 'X-Session-Id': 's1' }
    const single = await callTodo(t, { items: [{ id: '1', text: 'x' }] }, headers)
    assert.equal(single.status, 403)
    assert.equal(single.body.id, 7)
    assert.match(single.body.error.message, /read-only/)
    const batch = await t.call(
      'POST',
      '/mcp',
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'todo', arguments: {} } },
      ],
      { Accept: ACCEPT, ...headers }
    )
    assert.equal(batch.status, 403)
    assert.equal(await t.store.get({ tenant: 'acme', sessionId: 's1' }), null)
  })

  it('Should fail initialize on a dialect conflict, naming both dialects (2026-07-28: at tools/list)', async () => {
    const t = makeTestApp()
    await callTodo(t, { items: [] })
    const headers = { 'X-Session-Id': 's1', 'X-Dialect': 'claude-todowrite' }
    const init = await rpc(t, 'initialize', INITIALIZE, headers)
    assert.equal(init.status, 200)
    assert.equal(init.body.id, 7)
    assert.equal(init.body.error.code, -32600)
    assert.match(init.body.error.message, /speaks 's03'; the request named 'claude-todowrite'/)
    // server/discover only says what the server speaks: clients read an error there as "no
    // 2026-07-28" and fall back, so the conflict answers the first request on the session
    const discover = await modern(t, 'server/discover', {}, headers)
    assert.deepEqual(discover.body.result.supportedVersions, ['2026-07-28'])
    const tools = await modern(t, 'tools/list', {}, headers)
    assert.equal(tools.body.error.code, -32600)
    assert.match(tools.body.error.message, /speaks 's03'/)
    const fine = await rpc(t, 'initialize', INITIALIZE, { 'X-Session-Id': 's1' })
    assert.equal(fine.body.result.protocolVersion, '2025-06-18')
  })

  it('Should never send an error message that already carries an "MCP error <code>:" prefix', async () => {
    const t = makeTestApp()
    const faults = [
      await rpc(t, 'tools/call', { name: 'todo', arguments: ['a'] }, { 'X-Session-Id': 's1' }),
      await rpc(t, 'tools/call', {}, { 'X-Session-Id': 's1' }),
      await rpc(t, 'tools/call', { name: 'nope', arguments: {} }, { 'X-Session-Id': 's1' }),
      await rpc(t, 'resources/read', {}),
      await rpc(t, 'resources/read', { uri: 'x://y' }),
      await rpc(t, 'prompts/list', {}),
      await callTodo(t, { items: [] }, {}),
      await modern(t, 'tools/call', { name: 'nope', arguments: {} }, { 'X-Session-Id': 's1' }),
      await modern(t, 'resources/read', { uri: 'x://y' }),
      await modern(t, 'initialize', {}),
    ]
    for (const res of faults) {
      assert.equal(typeof res.body.error?.message, 'string', res.text)
      assert.doesNotMatch(res.body.error.message, /MCP error/, res.text)
    }
    assert.match(faults[2].body.error.message, /^Tool nope not found$/)
    assert.equal(faults[0].body.error.code, -32602)
    assert.match(faults[3].body.error.message, /^Invalid params: /)
  })

  it('Should serve 2026-07-28: server/discover, tools/list and tools/call as a round, with resultType', async () => {
    const t = makeTestApp()
    const discover = await modern(t, 'server/discover')
    assert.equal(discover.status, 200)
    assert.deepEqual(discover.body.result.supportedVersions, ['2026-07-28'])
    assert.deepEqual(Object.keys(discover.body.result.capabilities).sort(), ['resources', 'tools'])
    assert.deepEqual(discover.body.result._meta['io.modelcontextprotocol/serverInfo'], {
      name: 'agent-todos',
      version: '1.0.0',
    })
    const tools = await modern(t, 'tools/list', {}, { 'X-Dialect': 'claude-todowrite' })
    assert.deepEqual(
      tools.body.result.tools.map((tool: { name: string }) => tool.name),
      ['TodoWrite']
    )
    assert.equal(tools.body.result.resultType, 'complete')

    const items = [{ id: '1', text: 'Write tests', status: 'pending' }]
    const call = await modern(
      t,
      'tools/call',
      { name: 'todo', arguments: { items } },
      { 'X-Session-Id': 'modern' }
    )
    assert.equal(call.status, 200)
    assert.equal(call.body.result.resultType, 'complete')
    assert.deepEqual(call.body.result.content, [
      { type: 'text', text: '[ ] #1: Write tests\n\n(0/1 completed)' },
    ])
    const view = await t.call('GET', '/v1/sessions/modern')
    assert.equal(view.body.version, 1)
    assert.equal(view.body.rendered, '[ ] #1: Write tests\n\n(0/1 completed)')

    const read = await modern(
      t,
      'resources/read',
      { uri: 'agent-todos://sessions/modern/todos' },
      { 'X-Session-Id': 'modern' }
    )
    assert.equal(read.body.result.contents[0].text, '[ ] #1: Write tests\n\n(0/1 completed)')
  })

  it('Should answer an unknown resource with -32002 on 2025 revisions and -32602 on 2026-07-28, data {uri}', async () => {
    const t = makeTestApp()
    const uri = 'test://nonexistent'
    const legacy = await rpc(t, 'resources/read', { uri })
    assert.equal(legacy.body.error.code, -32002)
    assert.deepEqual(legacy.body.error.data, { uri })
    const current = await modern(t, 'resources/read', { uri })
    assert.equal(current.body.error.code, -32602)
    assert.deepEqual(current.body.error.data, { uri })
    // an ordinary Invalid params keeps its code on every revision
    const noUri = await rpc(t, 'resources/read', {})
    assert.equal(noUri.body.error.code, -32602)
  })

  it('Should refuse the removed handshake and an envelope-less request on 2026-07-28 with the SDK errors', async () => {
    const t = makeTestApp()
    const init = await modern(t, 'initialize', {})
    assert.equal(init.status, 404)
    assert.equal(init.body.error.code, -32601)
    const bare = await rpc(t, 'tools/list', {}, { 'MCP-Protocol-Version': '2026-07-28' })
    assert.equal(bare.status, 400)
    assert.equal(bare.body.error.code, -32602)
    const future = await t.call(
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/list',
        params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      { Accept: ACCEPT, 'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list' }
    )
    assert.equal(future.status, 400)
    assert.equal(future.body.error.code, -32022)
    assert.deepEqual(future.body.error.data.supported, ['2026-07-28'])
  })
})

const MINTED =
  /^session_id: (mcp-[0-9a-f-]{36})\. This call started a new todo list; pass "session_id": "\1" in every later call/

/** The session a 2026-07-28 result says was minted for its call. */
function mintedSession(res: { body: { result: { content: { text: string }[] } } }): string {
  const note = res.body.result.content.at(-1)!.text
  const match = MINTED.exec(note)
  assert.ok(match, note)
  return match[1]
}

describe('/mcp without X-Session-Id (SPEC §3: the MCP session, else session_id, else its own)', () => {
  const items = (text: string) => ({ items: [{ id: '1', text, status: 'pending' }] })

  it("Should list the tools with an optional session_id on 2026-07-28 only, leaving every REST listing the natives'", async () => {
    const t = makeTestApp()
    for (const dialect of DIALECTS.values()) {
      const headers = { 'X-Dialect': dialect.name }
      const rest = await t.call('GET', `/v1/tools?dialect=${dialect.name}&format=mcp`)
      for (const tool of rest.body.tools) {
        assert.equal(tool.inputSchema.properties?.session_id, undefined, tool.name)
      }
      const listed = await modern(t, 'tools/list', {}, headers)
      assert.equal(listed.body.result.tools.length, rest.body.tools.length)
      for (const [i, tool] of listed.body.result.tools.entries()) {
        const native = rest.body.tools[i]
        const { session_id: argument, ...properties } = tool.inputSchema.properties
        assert.equal(argument.type, 'string', tool.name)
        assert.match(argument.description, /Leave it out on your first call/)
        assert.ok(!(tool.inputSchema.required ?? []).includes('session_id'), tool.name)
        assert.deepEqual(
          { ...tool.inputSchema, properties },
          { ...native.inputSchema, properties: native.inputSchema.properties ?? {} },
          tool.name
        )
      }
      const named = await modern(t, 'tools/list', {}, { ...headers, 'X-Session-Id': 'n1' })
      const legacy = await rpc(t, 'tools/list', {}, headers)
      assert.deepEqual(named.body.result.tools, rest.body.tools, dialect.name)
      assert.deepEqual(legacy.body.result.tools, rest.body.tools, dialect.name)
    }
  })

  it('Should run a call without session_id on a session minted for it, named in the result, and a call with it on that session', async () => {
    const t = makeTestApp()
    const first = await modern(t, 'tools/call', { name: 'todo', arguments: items('A') })
    assert.equal(first.status, 200)
    assert.equal(first.body.result.isError, false)
    assert.equal(first.body.result.content[0].text, '[ ] #1: A\n\n(0/1 completed)')
    assert.equal(first.body.result.content.length, 2)
    const sessionId = mintedSession(first)

    const again = await modern(t, 'tools/call', {
      name: 'todo',
      arguments: { ...items('B'), session_id: sessionId },
    })
    assert.deepEqual(again.body.result.content, [
      { type: 'text', text: '[ ] #1: B\n\n(0/1 completed)' },
    ])
    const view = await t.call('GET', `/v1/sessions/${sessionId}`)
    assert.equal(view.body.version, 2)
    assert.equal(view.body.rendered, '[ ] #1: B\n\n(0/1 completed)')

    // another client (or a call that left session_id out) never lands on that session
    const other = await modern(t, 'tools/call', { name: 'todo', arguments: items('C') })
    const otherId = mintedSession(other)
    assert.notEqual(otherId, sessionId)
    assert.equal((await t.call('GET', `/v1/sessions/${sessionId}`)).body.version, 2)
    assert.equal(
      (await t.call('GET', `/v1/sessions/${otherId}`)).body.rendered,
      '[ ] #1: C\n\n(0/1 completed)'
    )
  })

  it("Should strip session_id before the dialect sees the input, so a strict dialect's own validation passes", async () => {
    const t = makeTestApp()
    const headers = { 'X-Dialect': 'claude-tasks' }
    const create = await modern(
      t,
      'tools/call',
      { name: 'TaskCreate', arguments: { subject: 'Plan', description: 'Plan it' } },
      headers
    )
    assert.equal(create.body.result.isError, false, create.text)
    const sessionId = mintedSession(create)
    const list = await modern(
      t,
      'tools/call',
      { name: 'TaskList', arguments: { session_id: sessionId } },
      headers
    )
    assert.equal(list.body.result.isError, false, list.text)
    assert.match(list.body.result.content[0].text, /Plan/)
    const view = await t.call('GET', `/v1/sessions/${sessionId}`)
    assert.equal(view.body.dialect, 'claude-tasks')
  })

  it('Should answer a malformed session_id with an isError result naming the argument, storing nothing', async () => {
    const t = makeTestApp()
    for (const bad of ['a/b', 42, '', null]) {
      const res = await modern(t, 'tools/call', {
        name: 'todo',
        arguments: { ...items('A'), session_id: bad },
      })
      assert.equal(res.status, 200)
      assert.equal(res.body.result.isError, true)
      assert.match(res.body.result.content[0].text, /^Error: session_id must be a string matching/)
    }
    const sessions = await t.call('GET', '/v1/sessions')
    assert.deepEqual(sessions.body.sessions, [])
  })

  it('Should ignore Mcp-Session-Id on 2026-07-28 (the revision removed it), and keep a call named by X-Session-Id on that session', async () => {
    const t = makeTestApp()
    const stale = await modern(
      t,
      'tools/call',
      { name: 'todo', arguments: items('A') },
      { 'Mcp-Session-Id': 'mcp-stale' }
    )
    assert.notEqual(mintedSession(stale), 'mcp-stale')
    assert.equal((await t.call('GET', '/v1/sessions/mcp-stale')).status, 404)
    // with X-Session-Id the tools are the natives': the header names the session
    const named = await modern(
      t,
      'tools/call',
      { name: 'todo', arguments: items('B') },
      { 'X-Session-Id': 'pinned' }
    )
    assert.equal(named.body.result.content.length, 1)
    assert.equal((await t.call('GET', '/v1/sessions/pinned')).body.version, 1)
  })

  it('Should key a 2025 call after initialize by the issued Mcp-Session-Id, a distinct session per connection', async () => {
    const t = makeTestApp()
    const ids: string[] = []
    for (const text of ['A', 'B']) {
      const init = await rpc(t, 'initialize', INITIALIZE)
      const sessionId = init.headers.get('mcp-session-id')!
      const call = await callTodo(t, items(text), { 'Mcp-Session-Id': sessionId })
      assert.deepEqual(call.body.result.content, [
        { type: 'text', text: `[ ] #1: ${text}\n\n(0/1 completed)` },
      ])
      ids.push(sessionId)
    }
    assert.notEqual(ids[0], ids[1])
    assert.equal(
      (await t.call('GET', `/v1/sessions/${ids[0]}`)).body.rendered,
      '[ ] #1: A\n\n(0/1 completed)'
    )
    assert.equal(
      (await t.call('GET', `/v1/sessions/${ids[1]}`)).body.rendered,
      '[ ] #1: B\n\n(0/1 completed)'
    )
  })

  it('Should read X-Session-Id and Mcp-Session-Id without the whitespace around them (RFC 9110 §5.5)', async () => {
    const t = makeTestApp()
    await callTodo(t, items('A'), { 'X-Session-Id': '  padded\t' })
    await callTodo(t, items('B'), { 'Mcp-Session-Id': ' mcp-padded ' })
    await modern(
      t,
      'tools/call',
      { name: 'todo', arguments: items('C') },
      { 'X-Session-Id': ' p26 ' }
    )
    assert.equal(
      (await t.call('GET', '/v1/sessions/padded')).body.rendered,
      '[ ] #1: A\n\n(0/1 completed)'
    )
    assert.equal(
      (await t.call('GET', '/v1/sessions/mcp-padded')).body.rendered,
      '[ ] #1: B\n\n(0/1 completed)'
    )
    assert.equal(
      (await t.call('GET', '/v1/sessions/p26')).body.rendered,
      '[ ] #1: C\n\n(0/1 completed)'
    )
  })

  it("Should refuse a viewer key's header-less 2026-07-28 call with 403 before minting anything", async () => {
    const keys = new Map([[hashKey('viewer-key-123'), { tenant: 'acme', role: 'viewer' as const }]])
    const t = makeTestApp({ keys })
    const auth = { Authorization: 'Bearer viewer-key-123' }
    const listed = await modern(t, 'tools/list', {}, auth)
    assert.ok(listed.body.result.tools[0].inputSchema.properties.session_id)
    const res = await modern(t, 'tools/call', { name: 'todo', arguments: items('A') }, auth)
    assert.equal(res.status, 403)
    assert.match(res.body.error.message, /read-only/)
  })

  it('Should answer random header-less 2026-07-28 calls of every dialect, any session_id, with a result or a JSON-RPC error, never an internal error', async () => {
    const t = makeTestApp()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...EVERY_TOOL),
        fc.dictionary(
          fc.constantFrom('items', 'todos', 'plan', 'subject', 'taskId', 'session_id'),
          fc.oneof(fc.anything(), fc.constantFrom('f1', 'f2'))
        ),
        async ({ dialect, tool }, args) => {
          const res = await modern(
            t,
            'tools/call',
            { name: tool, arguments: args },
            {
              'X-Dialect': dialect,
            }
          )
          assertAnswered(res)
        }
      ),
      { numRuns: 100, seed: 7 }
    )
  })
})
