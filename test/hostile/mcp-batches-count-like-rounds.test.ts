/**
 * Issue 12, finding 9: MCP counts like the rounds API. One POST of a JSON-RPC batch of 5,000
 * `tools/call` left the session at version 5000 under `RATE_LIMIT_PER_MINUTE=5` and bypassed
 * `MAX_TOOL_CALLS`; and `/mcp` answered any `Origin` (the MCP transport's MUST against DNS
 * rebinding).
 */
import { request as httpRequest } from 'node:http'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { hashKey } from '../../src/http/auth.js'
import { makeTestApp, type TestApp } from '../helpers.js'
import { startServer, type ServerProcess } from '../e2e/server-process.js'

const ACCEPT = 'application/json, text/event-stream'

/** A 2025-era initialize. */
const init = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'hostile', version: '1' },
  },
}

const todoCall = (id: number, text = `step ${id}`) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'todo', arguments: { items: [{ id: '1', text, status: 'pending' }] } },
})

const batchOf = (size: number) => Array.from({ length: size }, (_, i) => todoCall(i + 1))

function postBatch(t: TestApp, body: unknown, headers: Record<string, string> = {}) {
  return t.call('POST', '/mcp', body, { Accept: ACCEPT, 'X-Session-Id': 'b1', ...headers })
}

const versionOf = async (t: TestApp, sessionId = 'b1') =>
  (await t.store.get({ tenant: 'default', sessionId }))?.version ?? null

describe('hostile 09: MCP batches count like rounds', () => {
  it('Should not apply a batch of 5,000 tools/call under RATE_LIMIT_PER_MINUTE=5', async () => {
    const t = makeTestApp({ rateLimitPerMinute: 5 })
    const res = await postBatch(t, batchOf(5000))
    assert.equal(res.status, 400)
    assert.equal(res.body.jsonrpc, '2.0')
    assert.match(res.body.error.message, /at most 100 messages/)
    assert.equal(await versionOf(t), null)
  })

  it('Should refuse any batch when the negotiated protocol has none (2025-06-18 and later)', async () => {
    const t = makeTestApp()
    for (const version of ['2025-06-18', '2025-11-25', '2026-07-28']) {
      const res = await postBatch(t, batchOf(2), { 'MCP-Protocol-Version': version })
      assert.equal(res.status, 400, version)
      assert.equal(res.body.error.code, -32600)
      assert.match(res.body.error.message, new RegExp(`not part of MCP ${version}`))
    }
    assert.equal(await versionOf(t), null)
  })

  it('Should charge every message of a 2025-03-26 batch against the rate limit, refusing it whole', async () => {
    const t = makeTestApp({ rateLimitPerMinute: 5 })
    const first = await postBatch(t, batchOf(4), { 'MCP-Protocol-Version': '2025-03-26' })
    assert.equal(first.status, 200)
    assert.deepEqual(
      first.body.map((reply: { id: number }) => reply.id),
      [1, 2, 3, 4]
    )
    assert.equal(await versionOf(t), 4)
    // 4 spent, 3 more do not fit in 5
    const second = await postBatch(t, batchOf(3), { 'MCP-Protocol-Version': '2025-03-26' })
    assert.equal(second.status, 429)
    assert.equal(await versionOf(t), 4)
    const single = await postBatch(t, todoCall(9))
    assert.equal(single.status, 429)
  })

  it('Should treat a batch without MCP-Protocol-Version as 2025-03-26: counted, and capped by MAX_TOOL_CALLS', async () => {
    const t = makeTestApp({ rateLimitPerMinute: 10, limits: { maxToolCalls: 3 } })
    const over = await postBatch(t, batchOf(4))
    assert.equal(over.status, 400)
    assert.match(over.body.error.message, /at most 3 messages \(MAX_TOOL_CALLS/)
    assert.equal(await versionOf(t), null)
    const ok = await postBatch(t, [todoCall(1, 'a'), todoCall(2, 'b'), todoCall(3, 'c')])
    assert.equal(ok.status, 200)
    assert.equal(ok.headers.get('ratelimit')?.match(/remaining=(\d+)/)?.[1], '6')
    // the calls of a batch apply one after the other, in order, each a round
    const history = await t.call('GET', '/v1/sessions/b1/history')
    assert.equal(history.body.entries.length, 3)
    const view = await t.call('GET', '/v1/sessions/b1')
    assert.equal(view.body.version, 3)
    assert.equal(view.body.round, 3)
    assert.equal(view.body.items[0].content, 'c')
  })
})

describe('hostile 09: /mcp validates Origin', () => {
  it('Should refuse a foreign Origin with 403 (CORS_ORIGINS unset), before looking at keys', async () => {
    const keys = new Map([[hashKey('agent-key-123'), { tenant: 'acme', role: 'agent' as const }]])
    const t = makeTestApp({ keys })
    for (const origin of ['https://evil.example.com', 'null', 'http://localhost:9999']) {
      const res = await t.call('POST', '/mcp', init, { Accept: ACCEPT, Origin: origin })
      assert.equal(res.status, 403, origin)
      assert.equal(res.body.jsonrpc, '2.0')
      assert.match(res.body.error.message, /may not use this MCP endpoint/)
    }
  })

  it("Should let through no Origin (CLI hosts), the service's own origin and the CORS_ORIGINS", async () => {
    const t = makeTestApp({ corsOrigins: ['https://dashboard.example.com'] })
    const cases: Record<string, string>[] = [
      {},
      { Origin: 'http://localhost' },
      { Origin: 'http://localhost', Host: 'localhost:80' },
      { Origin: 'http://LOCALHOST' },
      { Origin: 'https://dashboard.example.com' },
    ]
    for (const headers of cases) {
      const res = await t.call('POST', '/mcp', init, { Accept: ACCEPT, ...headers })
      assert.equal(res.status, 200, JSON.stringify(headers))
      assert.equal(res.body.result.serverInfo.name, 'agent-todos')
    }
    const other = await t.call('POST', '/mcp', init, {
      Accept: ACCEPT,
      Origin: 'https://other.example.com',
    })
    assert.equal(other.status, 403)
  })
})

describe('hostile 09: DNS rebinding against the real server on loopback', () => {
  let server: ServerProcess
  before(async () => {
    server = await startServer({})
  })
  after(async () => {
    await server.stop()
  })

  /** A raw POST whose Host header we choose (fetch does not let us). */
  const post = (headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/mcp',
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: ACCEPT, ...headers },
        },
        (res) => {
          let body = ''
          res.on('data', (chunk) => (body += chunk))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        }
      )
      req.on('error', reject)
      req.end(JSON.stringify(init))
    })

  it('Should refuse a rebound name (Host and Origin evil) and serve the loopback names', async () => {
    const rebound = await post({ Host: 'evil.example.com', Origin: 'http://evil.example.com' })
    assert.equal(rebound.status, 403)
    assert.match(rebound.body, /may not use this MCP endpoint/)
    const own = `127.0.0.1:${server.port}`
    assert.equal((await post({ Host: own, Origin: `http://${own}` })).status, 200)
    const named = `localhost:${server.port}`
    assert.equal((await post({ Host: named, Origin: `http://${named}` })).status, 200)
    // no Origin is no proof: a rebound page's same-origin request may carry none, and its Host
    // names the rebound name (every route's rule now, test/hostile/web-pages-cannot-instruct-agents)
    assert.equal((await post({ Host: 'evil.example.com' })).status, 403)
  })
})
