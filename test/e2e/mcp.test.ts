/**
 * End to end: `/mcp` through the MCP SDK's own clients over real HTTP, against the real server
 * process, sharing state with the rounds API (driven through the typed client): the v1 client
 * (`@modelcontextprotocol/sdk`, 2025 revisions) and the v2 client (`@modelcontextprotocol/client`)
 * pinned to 2026-07-28, in auto mode, and in its default 2025 mode; and, without any custom
 * header, the v1 client at every 2025 revision, the v2 client in auto mode and the AI SDK's MCP
 * client (`@ai-sdk/mcp`, resolved from test/agents/node_modules; skipped when absent, except
 * under CI=true where it must be there).
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  Client as ClientV2,
  ProtocolError,
  SdkHttpError,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { createAgentTodosClient, type AgentTodosClient } from '../../src/client/index.js'
import { startServer, type ServerProcess } from './server-process.js'

const ACME_KEY = 'acme-key-123'
const OTHER_KEY = 'other-key-123'
const VIEWER_KEY = 'viewer-key-123'

const STEPS = [
  'Create hello.py',
  'Write the greet function',
  'Write the add function',
  'Write the main function',
  'Run the script',
]
const p = 'pending'
const w = 'in_progress'
const d = 'completed'
const itemsOf = (statuses: string[]) => ({
  items: STEPS.map((text, i) => ({ id: String(i + 1), text, status: statuses[i] })),
})

/** The todo calls of the s03 walkthrough (the learn-claude-code s03 TodoManager), with the exact texts they get. */
const WALKTHROUGH: { input: ReturnType<typeof itemsOf>; text: string }[] = [
  {
    input: itemsOf([p, p, p, p, p]),
    text: '[ ] #1: Create hello.py\n[ ] #2: Write the greet function\n[ ] #3: Write the add function\n[ ] #4: Write the main function\n[ ] #5: Run the script\n\n(0/5 completed)',
  },
  {
    input: itemsOf([w, p, p, p, p]),
    text: '[>] #1: Create hello.py\n[ ] #2: Write the greet function\n[ ] #3: Write the add function\n[ ] #4: Write the main function\n[ ] #5: Run the script\n\n(0/5 completed)',
  },
  {
    input: itemsOf([d, w, p, p, p]),
    text: '[x] #1: Create hello.py\n[>] #2: Write the greet function\n[ ] #3: Write the add function\n[ ] #4: Write the main function\n[ ] #5: Run the script\n\n(1/5 completed)',
  },
  {
    input: itemsOf([d, d, d, d, d]),
    text: '[x] #1: Create hello.py\n[x] #2: Write the greet function\n[x] #3: Write the add function\n[x] #4: Write the main function\n[x] #5: Run the script\n\n(5/5 completed)',
  },
]

describe('MCP over Streamable HTTP against the real server', () => {
  let server: ServerProcess
  let acme: AgentTodosClient
  let other: AgentTodosClient
  const clients: { close(): Promise<void> }[] = []

  before(async () => {
    server = await startServer({
      AUTH_KEYS: `acme:agent:${ACME_KEY},other:agent:${OTHER_KEY},acme:viewer:${VIEWER_KEY}`,
    })
    acme = createAgentTodosClient({ baseUrl: server.url, apiKey: ACME_KEY })
    other = createAgentTodosClient({ baseUrl: server.url, apiKey: OTHER_KEY })
  })
  after(async () => {
    await Promise.all(clients.map((client) => client.close()))
    await server.stop()
  })

  /** An SDK client connected to /mcp with these headers. */
  const connect = async (headers: Record<string, string>, query = '') => {
    const client = new Client({ name: 'agent-todos-e2e', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), {
      requestInit: { headers },
    })
    await client.connect(transport)
    clients.push(client)
    return { client, transport }
  }
  const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
    (result.content as { type: string; text: string }[]).map((block) => block.text).join('\n---\n')

  it('Should initialize, list the s03 tool, play the walkthrough with the texts of the rounds API, and serve the list as a resource', async () => {
    const { client } = await connect({
      Authorization: `Bearer ${ACME_KEY}`,
      'X-Session-Id': 'mcp-walk',
    })
    assert.deepEqual(client.getServerVersion(), { name: 'agent-todos', version: '1.0.0' })
    assert.ok(client.getServerCapabilities()?.tools)
    assert.ok(client.getServerCapabilities()?.resources)

    const { tools } = await client.listTools()
    const advertised = await acme.GET('/v1/tools', {
      params: { query: { dialect: 's03', format: 'mcp' } },
    })
    assert.deepEqual(tools, advertised.data!.tools)
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['todo']
    )

    for (const [index, step] of WALKTHROUGH.entries()) {
      const overMcp = await client.callTool({ name: 'todo', arguments: step.input })
      assert.equal(overMcp.isError, false)
      assert.equal(textOf(overMcp), step.text)
      const overRest = await acme.POST('/v1/sessions/{session_id}/rounds', {
        params: { path: { session_id: 'rest-walk' } },
        body: { tool_calls: [{ id: `toolu_${index}`, name: 'todo', input: step.input }] },
      })
      assert.equal(overRest.data!.results[0].content, textOf(overMcp))
    }

    const invalid = await client.callTool({ name: 'todo', arguments: itemsOf([w, w, p, p, p]) })
    assert.equal(invalid.isError, true)
    assert.equal(textOf(invalid), 'Error: Only one task can be in_progress at a time')

    const { resources } = await client.listResources()
    assert.deepEqual(
      resources.map((resource) => [resource.uri, resource.mimeType]),
      [['agent-todos://sessions/mcp-walk/todos', 'text/plain']]
    )
    const read = await client.readResource({ uri: 'agent-todos://sessions/mcp-walk/todos' })
    assert.deepEqual(read.contents, [
      {
        uri: 'agent-todos://sessions/mcp-walk/todos',
        mimeType: 'text/plain',
        text: WALKTHROUGH[3].text,
      },
    ])

    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'mcp-walk' } },
    })
    assert.equal(view.response.status, 200)
    assert.equal(view.data!.dialect, 's03')
    assert.equal(view.data!.rendered, WALKTHROUGH[3].text)
    assert.equal(view.data!.round, WALKTHROUGH.length + 1)
    assert.equal(view.data!.version, WALKTHROUGH.length + 1)
    assert.equal(view.data!.progress.percent, 100)
  })

  it('Should share one session with the rounds API both ways', async () => {
    const { client } = await connect({
      Authorization: `Bearer ${ACME_KEY}`,
      'X-Session-Id': 'mcp-mixed',
    })
    await client.callTool({ name: 'todo', arguments: WALKTHROUGH[1].input })
    let reminder: string | null = null
    for (let i = 0; i < 3; i++) {
      const res = await acme.POST('/v1/sessions/{session_id}/rounds', {
        params: { path: { session_id: 'mcp-mixed' } },
        body: {
          tool_calls: [{ id: `toolu_b${i}`, name: 'bash', input: { cmd: 'python hello.py' } }],
        },
      })
      reminder = res.data!.reminder?.text ?? null
    }
    assert.equal(reminder, '<reminder>Update your todos.</reminder>')
    const update = await client.callTool({ name: 'todo', arguments: WALKTHROUGH[2].input })
    assert.equal(textOf(update), WALKTHROUGH[2].text)
    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'mcp-mixed' } },
    })
    assert.equal(view.data!.rounds_since_todo, 0)
    assert.equal(view.data!.reminder_due, false)
    assert.equal(view.data!.round, 5)
  })

  it("Should keep tenants apart: another tenant's key on the same session id sees a different, empty session", async () => {
    const { client } = await connect({
      Authorization: `Bearer ${OTHER_KEY}`,
      'X-Session-Id': 'mcp-walk',
    })
    const read = await client.readResource({ uri: 'agent-todos://sessions/mcp-walk/todos' })
    assert.equal((read.contents[0] as { text: string }).text, 'No todos.')
    const own = await client.callTool({
      name: 'todo',
      arguments: { items: [{ id: '1', text: 'Not acme', status: 'pending' }] },
    })
    assert.equal(textOf(own), '[ ] #1: Not acme\n\n(0/1 completed)')

    const acmeView = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'mcp-walk' } },
    })
    assert.equal(acmeView.data!.rendered, WALKTHROUGH[3].text)
    const otherView = await other.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'mcp-walk' } },
    })
    assert.equal(otherView.data!.rendered, '[ ] #1: Not acme\n\n(0/1 completed)')
    assert.equal(otherView.data!.version, 1)
  })

  it('Should answer 401 without a key, to a raw request and to the SDK client', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    assert.equal(res.status, 401)
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/)
    await res.body?.cancel()
    const client = new Client({ name: 'no-key', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`))
    await assert.rejects(client.connect(transport), /401/)
  })

  it('Should key the todo session by the issued Mcp-Session-Id when no X-Session-Id is sent', async () => {
    const { client, transport } = await connect({ Authorization: `Bearer ${ACME_KEY}` })
    const sessionId = transport.sessionId
    assert.match(sessionId ?? '', /^mcp-[0-9a-f-]{36}$/)
    const result = await client.callTool({ name: 'todo', arguments: WALKTHROUGH[0].input })
    assert.equal(textOf(result), WALKTHROUGH[0].text)
    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: sessionId! } },
    })
    assert.equal(view.data!.rendered, WALKTHROUGH[0].text)
  })

  it('Should choose the dialect by query or header, and refuse a dialect that conflicts with the session', async () => {
    const { client } = await connect(
      { Authorization: `Bearer ${ACME_KEY}`, 'X-Session-Id': 'mcp-claude' },
      '?dialect=claude-todowrite'
    )
    const { tools } = await client.listTools()
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['TodoWrite']
    )
    const write = await client.callTool({
      name: 'TodoWrite',
      arguments: {
        todos: [{ content: 'Run tests', status: 'in_progress', activeForm: 'Running tests' }],
      },
    })
    assert.equal(write.isError, false)
    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'mcp-claude' } },
    })
    assert.equal(view.data!.dialect, 'claude-todowrite')

    // the conflict fails the handshake: a host shows the error, not a server without tools
    await assert.rejects(
      connect({
        Authorization: `Bearer ${ACME_KEY}`,
        'X-Session-Id': 'mcp-walk',
        'X-Dialect': 'claude-todowrite',
      }),
      (error: unknown) =>
        error instanceof McpError && error.code === -32600 && /speaks 's03'/.test(error.message)
    )
  })

  it('Should answer protocol faults with JSON-RPC errors', async () => {
    const { client } = await connect({
      Authorization: `Bearer ${ACME_KEY}`,
      'X-Session-Id': 'mcp-faults',
    })
    await assert.rejects(
      client.callTool({ name: 'bash', arguments: {} }),
      (error: unknown) =>
        error instanceof McpError &&
        error.code === -32602 &&
        /Tool bash not found/.test(error.message)
    )
    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'mcp-faults' } },
    })
    assert.equal(view.response.status, 404)
    assert.equal(view.error!.status, 404)

    const malformed = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${ACME_KEY}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: '{"jsonrpc":',
    })
    assert.equal(malformed.status, 400)
    const body = (await malformed.json()) as { jsonrpc: string; error: { code: number } }
    assert.equal(body.jsonrpc, '2.0')
    assert.equal(body.error.code, -32700)
  })
  /** A v2 SDK client connected to /mcp, negotiating the era as `mode` says. */
  const connectV2 = async (
    headers: Record<string, string>,
    mode: 'legacy' | 'auto' | { pin: '2026-07-28' }
  ) => {
    const client = new ClientV2(
      { name: 'agent-todos-e2e-v2', version: '1.0.0' },
      { versionNegotiation: { mode } }
    )
    const transport = new TransportV2(new URL(`${server.url}/mcp`), { requestInit: { headers } })
    await client.connect(transport)
    clients.push(client)
    return { client, transport }
  }
  const textOfV2 = (result: Awaited<ReturnType<ClientV2['callTool']>>) =>
    (result.content as { type: string; text: string }[]).map((block) => block.text).join('\n---\n')

  it('Should serve the v2 client pinned to 2026-07-28: discover, the walkthrough, the resource, shared state', async () => {
    const { client } = await connectV2(
      { Authorization: `Bearer ${ACME_KEY}`, 'X-Session-Id': 'mcp-2026' },
      { pin: '2026-07-28' }
    )
    assert.equal(client.getProtocolEra(), 'modern')
    assert.deepEqual(client.getServerVersion(), { name: 'agent-todos', version: '1.0.0' })
    const { tools } = await client.listTools()
    const advertised = await acme.GET('/v1/tools', {
      params: { query: { dialect: 's03', format: 'mcp' } },
    })
    assert.deepEqual(
      tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
      advertised.data!.tools
    )
    for (const step of WALKTHROUGH) {
      const result = await client.callTool({ name: 'todo', arguments: step.input })
      assert.equal(result.isError, false)
      assert.equal(textOfV2(result), step.text)
    }
    const read = await client.readResource({ uri: 'agent-todos://sessions/mcp-2026/todos' })
    assert.equal((read.contents[0] as { text: string }).text, WALKTHROUGH[3].text)
    await assert.rejects(
      client.readResource({ uri: 'agent-todos://elsewhere' }),
      (error: unknown) => error instanceof ProtocolError && error.code === -32602
    )
    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'mcp-2026' } },
    })
    assert.equal(view.data!.version, WALKTHROUGH.length)
    assert.equal(view.data!.rendered, WALKTHROUGH[3].text)
  })

  it('Should land the v2 client in auto mode on 2026-07-28, and in its default mode on the 2025 handshake', async () => {
    const auto = await connectV2(
      { Authorization: `Bearer ${ACME_KEY}`, 'X-Session-Id': 'mcp-auto' },
      'auto'
    )
    assert.equal(auto.client.getProtocolEra(), 'modern')
    const write = await auto.client.callTool({ name: 'todo', arguments: WALKTHROUGH[0].input })
    assert.equal(textOfV2(write), WALKTHROUGH[0].text)

    const legacy = await connectV2({ Authorization: `Bearer ${ACME_KEY}` }, 'legacy')
    assert.equal(legacy.client.getProtocolEra(), 'legacy')
    const sessionId = legacy.transport.sessionId
    assert.match(sessionId ?? '', /^mcp-[0-9a-f-]{36}$/)
    const result = await legacy.client.callTool({ name: 'todo', arguments: WALKTHROUGH[1].input })
    assert.equal(textOfV2(result), WALKTHROUGH[1].text)
    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: sessionId! } },
    })
    assert.equal(view.data!.rendered, WALKTHROUGH[1].text)
  })

  it('Should refuse a dialect conflict at connect (2025) or at the first request (2026-07-28), with the reason', async () => {
    const headers = {
      Authorization: `Bearer ${ACME_KEY}`,
      'X-Session-Id': 'mcp-walk',
      'X-Dialect': 'claude-todowrite',
    }
    const speaksS03 = (error: unknown) =>
      error instanceof ProtocolError && error.code === -32600 && /speaks 's03'/.test(error.message)
    await assert.rejects(connectV2(headers, 'legacy'), speaksS03)
    const { client } = await connectV2(headers, { pin: '2026-07-28' })
    await assert.rejects(client.listTools(), speaksS03)
  })

  it("Should answer a viewer key's tools/call with HTTP 403 to both SDK clients, and let it list and read", async () => {
    const headers = { Authorization: `Bearer ${VIEWER_KEY}`, 'X-Session-Id': 'mcp-walk' }
    const { client } = await connect(headers)
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['todo']
    )
    const read = await client.readResource({ uri: 'agent-todos://sessions/mcp-walk/todos' })
    assert.equal((read.contents[0] as { text: string }).text, WALKTHROUGH[3].text)
    await assert.rejects(
      client.callTool({ name: 'todo', arguments: WALKTHROUGH[0].input }),
      (error: unknown) =>
        error instanceof StreamableHTTPError &&
        error.code === 403 &&
        /read-only/.test(error.message)
    )
    for (const mode of ['legacy', { pin: '2026-07-28' }] as const) {
      const v2 = await connectV2(headers, mode)
      await assert.rejects(
        v2.client.callTool({ name: 'todo', arguments: WALKTHROUGH[0].input }),
        (error: unknown) =>
          error instanceof SdkHttpError &&
          error.data?.status === 403 &&
          /read-only/.test(error.message)
      )
    }
    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'mcp-walk' } },
    })
    assert.equal(view.data!.rendered, WALKTHROUGH[3].text)
  })
})

/** The session a result says was minted for its call (2026-07-28 without `X-Session-Id`). */
function mintedSession(content: unknown): string {
  const texts = (content as { type: string; text: string }[]).map((block) => block.text)
  const match = /^session_id: (mcp-[0-9a-f-]{36})\. /.exec(texts.at(-1) ?? '')
  assert.ok(match, `no minted session_id in ${JSON.stringify(texts)}`)
  return match[1]
}

/**
 * The official v1 client's fetch, made to speak an older revision: `initialize` asks for it (the
 * server answers with it, the client accepts any revision it knows), and before 2025-06-18 no
 * `MCP-Protocol-Version` header is sent, as clients of those revisions send none.
 */
const atRevision =
  (revision: string): FetchLike =>
  (url, init) => {
    const headers = new Headers(init?.headers)
    if (revision < '2025-06-18') headers.delete('mcp-protocol-version')
    let body = init?.body
    if (typeof body === 'string') {
      const message = JSON.parse(body) as { method?: string; params?: Record<string, unknown> }
      if (message.method === 'initialize') {
        body = JSON.stringify({
          ...message,
          params: { ...message.params, protocolVersion: revision },
        })
      }
    }
    return fetch(url, { ...init, headers, body })
  }

/** The minimal surface of the AI SDK's MCP client this test drives. */
interface AiSdkMcpClient {
  listTools(): Promise<{ tools: { name: string; inputSchema: { properties?: object } }[] }>
  tools(): Promise<
    Record<
      string,
      {
        execute?: (
          input: Record<string, unknown>,
          options: { toolCallId: string; messages: unknown[] }
        ) => Promise<unknown>
      }
    >
  >
  close(): Promise<void>
}
type CreateAiSdkMcpClient = (config: {
  transport: { type: 'http'; url: string; headers?: Record<string, string> }
}) => Promise<AiSdkMcpClient>

/** `@ai-sdk/mcp` from the test-only agents package, if it is installed there. */
function agentsPackage(name: string): string | null {
  const manifest = new URL('../agents/package.json', import.meta.url)
  if (!existsSync(manifest)) return null
  try {
    return createRequire(manifest).resolve(name)
  } catch {
    return null
  }
}
const AI_SDK_MCP = agentsPackage('@ai-sdk/mcp')
const AI_SDK_SKIP =
  AI_SDK_MCP === null && process.env.CI !== 'true'
    ? '@ai-sdk/mcp is not installed in test/agents/node_modules (run npm ci in test/agents)'
    : false

describe('MCP hosts that send no custom header, against the real server', () => {
  let server: ServerProcess
  let acme: AgentTodosClient
  const clients: { close(): Promise<void> }[] = []
  const auth = { Authorization: `Bearer ${ACME_KEY}` }

  before(async () => {
    server = await startServer({ AUTH_KEYS: `acme:agent:${ACME_KEY}` })
    acme = createAgentTodosClient({ baseUrl: server.url, apiKey: ACME_KEY })
  })
  after(async () => {
    await Promise.all(clients.map((client) => client.close()))
    await server.stop()
  })

  const renderedOf = async (sessionId: string) =>
    (
      await acme.GET('/v1/sessions/{session_id}', {
        params: { path: { session_id: sessionId } },
      })
    ).data?.rendered

  for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`Should give each v1 client at ${revision} its own session, the issued Mcp-Session-Id, from the first tools/call after initialize`, async () => {
      const sessions: string[] = []
      for (const step of [WALKTHROUGH[0], WALKTHROUGH[1]]) {
        const client = new Client({ name: `no-header-${revision}`, version: '1.0.0' })
        const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: auth },
          fetch: atRevision(revision),
        })
        await client.connect(transport)
        clients.push(client)
        assert.equal(transport.protocolVersion, revision)
        const result = await client.callTool({ name: 'todo', arguments: step.input })
        assert.equal(result.isError, false)
        assert.deepEqual(result.content, [{ type: 'text', text: step.text }])
        const sessionId = transport.sessionId!
        assert.match(sessionId, /^mcp-[0-9a-f-]{36}$/)
        const { tools } = await client.listTools()
        assert.equal(tools[0].inputSchema.properties?.session_id, undefined)
        const { resources } = await client.listResources()
        assert.deepEqual(
          resources.map((resource) => resource.uri),
          [`agent-todos://sessions/${sessionId}/todos`]
        )
        sessions.push(sessionId)
      }
      assert.notEqual(sessions[0], sessions[1])
      assert.equal(await renderedOf(sessions[0]), WALKTHROUGH[0].text)
      assert.equal(await renderedOf(sessions[1]), WALKTHROUGH[1].text)
    })
  }

  it('Should let the v2 client in auto mode (2026-07-28) call tools with no custom header: a minted session it passes back as session_id, never shared with another client', async () => {
    const connectAuto = async () => {
      const client = new ClientV2(
        { name: 'no-header-auto', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } }
      )
      await client.connect(
        new TransportV2(new URL(`${server.url}/mcp`), { requestInit: { headers: auth } })
      )
      clients.push(client)
      assert.equal(client.getProtocolEra(), 'modern')
      return client
    }
    const first = await connectAuto()
    const second = await connectAuto()
    const { tools } = await first.listTools()
    const property = (tools[0].inputSchema.properties as Record<string, { type: string }>)
      .session_id
    assert.equal(property.type, 'string')
    assert.ok(!(tools[0].inputSchema.required ?? []).includes('session_id'))

    const opened = await first.callTool({ name: 'todo', arguments: WALKTHROUGH[0].input })
    assert.equal(opened.isError, false)
    assert.equal((opened.content[0] as { text: string }).text, WALKTHROUGH[0].text)
    const firstSession = mintedSession(opened.content)
    const theirs = await second.callTool({ name: 'todo', arguments: WALKTHROUGH[3].input })
    const secondSession = mintedSession(theirs.content)
    assert.notEqual(firstSession, secondSession)

    for (const step of WALKTHROUGH.slice(1, 3)) {
      const result = await first.callTool({
        name: 'todo',
        arguments: { ...step.input, session_id: firstSession },
      })
      assert.deepEqual(result.content, [{ type: 'text', text: step.text }])
    }
    const read = await first.readResource({ uri: `agent-todos://sessions/${firstSession}/todos` })
    assert.equal((read.contents[0] as { text: string }).text, WALKTHROUGH[2].text)
    const view = await acme.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: firstSession } },
    })
    assert.equal(view.data!.version, 3)
    assert.equal(view.data!.rendered, WALKTHROUGH[2].text)
    assert.equal(await renderedOf(secondSession), WALKTHROUGH[3].text)
  })

  it(
    "Should let the AI SDK's MCP client (2026-07-28) call tools with no custom header, each client on its own session",
    { skip: AI_SDK_SKIP },
    async () => {
      assert.ok(AI_SDK_MCP, 'CI=true: @ai-sdk/mcp must be installed in test/agents/node_modules')
      const { createMCPClient } = (await import(pathToFileURL(AI_SDK_MCP).href)) as {
        createMCPClient: CreateAiSdkMcpClient
      }
      const connectAiSdk = async () => {
        const client = await createMCPClient({
          transport: { type: 'http', url: `${server.url}/mcp`, headers: auth },
        })
        clients.push(client)
        return client
      }
      const first = await connectAiSdk()
      const second = await connectAiSdk()
      const { tools } = await first.listTools()
      assert.ok('session_id' in (tools[0].inputSchema.properties ?? {}))
      // the tools as generateText runs them: execute with the model's input
      const run = async (client: AiSdkMcpClient, input: Record<string, unknown>) => {
        const { todo } = await client.tools()
        const result = (await todo.execute!(input, { toolCallId: 'call_1', messages: [] })) as {
          content: { type: string; text: string }[]
          isError?: boolean
        }
        assert.equal(result.isError, false)
        return result
      }
      const opened = await run(first, WALKTHROUGH[0].input)
      assert.equal(opened.content[0].text, WALKTHROUGH[0].text)
      const firstSession = mintedSession(opened.content)
      const secondSession = mintedSession((await run(second, WALKTHROUGH[3].input)).content)
      assert.notEqual(firstSession, secondSession)
      const next = await run(first, { ...WALKTHROUGH[1].input, session_id: firstSession })
      assert.deepEqual(next.content, [{ type: 'text', text: WALKTHROUGH[1].text }])
      assert.equal(await renderedOf(firstSession), WALKTHROUGH[1].text)
      assert.equal(await renderedOf(secondSession), WALKTHROUGH[3].text)
    }
  )
})
