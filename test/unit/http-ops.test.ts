import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../src/dialects/registry.js'
import { parseAuthKeys } from '../../src/http/auth.js'
import { generateOpenApi } from '../../src/http/openapi.js'
import { TOOL_FORMATS } from '../../src/tools/formats.js'
import type { components } from '../../src/client/index.js'
import { makeTestApp, typedRound } from '../helpers.js'
import { pathOf } from './http-fixtures.js'

type Schemas = components['schemas']

/** Each tool's name and input schema, wherever its format puts them. */
function toolShapes(reply: Schemas['ToolsReply']) {
  const shape = (name: string, schema: Schemas['ToolInputSchema']) => ({ name, schema })
  switch (reply.format) {
    case 'anthropic':
      return reply.tools.map((tool) => shape(tool.name, tool.input_schema))
    case 'openai':
      return reply.tools.map((tool) => shape(tool.function.name, tool.function.parameters))
    case 'openai-responses':
      return reply.tools.map((tool) => shape(tool.name, tool.parameters))
    case 'gemini':
      return reply.tools.map((tool) => shape(tool.name, tool.parametersJsonSchema))
    case 'mcp':
      return reply.tools.map((tool) => shape(tool.name, tool.inputSchema))
  }
}

// Requests go through the typed client (t.api); `t.call` stays where a test sends what the
// OpenAPI document forbids (unknown query values, an unknown route or method, keys the server
// does not know) or asks for a route the document leaves out (probes, /openapi.json, /docs).
describe('GET /v1/dialects and /v1/tools', () => {
  it('Should list every dialect with its tools', async () => {
    const t = makeTestApp()
    const { data, response } = await t.api.GET('/v1/dialects')
    assert.equal(response.status, 200)
    assert.ok(data)
    assert.deepEqual(
      data.dialects.map((d) => d.name),
      [...DIALECTS.keys()]
    )
    assert.deepEqual(data.dialects[0].tools, ['todo'])
  })

  it('Should give s03 in every format, from one schema', async () => {
    const t = makeTestApp()
    const schemas = []
    for (const format of TOOL_FORMATS) {
      const { data, response } = await t.api.GET('/v1/tools', {
        params: { query: { dialect: 's03', format } },
      })
      assert.equal(response.status, 200, format)
      assert.ok(data)
      assert.equal(data.dialect, 's03')
      assert.equal(data.format, format)
      assert.equal(data.tools.length, 1)
      if (data.format === 'openai' || data.format === 'openai-responses')
        assert.equal(data.tools[0].type, 'function')
      schemas.push(toolShapes(data)[0].schema)
    }
    for (const schema of schemas) assert.deepEqual(schema, schemas[0])
  })

  it('Should default to s03 + anthropic and reject unknown values with 400', async () => {
    const t = makeTestApp()
    const { data } = await t.api.GET('/v1/tools')
    assert.equal(data?.format, 'anthropic')
    assert.equal(data.tools[0].name, 'todo')
    assert.equal((await t.call('GET', '/v1/tools?dialect=nope')).status, 400)
    assert.equal((await t.call('GET', '/v1/tools?format=xml')).status, 400)
  })
})

describe('Operations', () => {
  it('Should answer liveness and readiness', async () => {
    const t = makeTestApp()
    assert.equal((await t.call('GET', '/livez')).status, 200)
    const ready = await t.call('GET', '/readyz')
    assert.equal(ready.status, 200)
    assert.equal(ready.body.store, 'memory')
  })

  it('Should answer readiness 503 while draining', async () => {
    const t = makeTestApp({ isDraining: () => true })
    const res = await t.call('GET', '/readyz')
    assert.equal(res.status, 503)
    assert.equal(res.headers.get('content-type'), 'application/problem+json')
    assert.equal((await t.call('GET', '/livez')).status, 200)
  })

  it('Should answer readiness 503 when the store is unreachable', async () => {
    const base = makeTestApp()
    const t = makeTestApp({
      store: { ...base.store, ping: () => Promise.reject(new Error('down')) },
    })
    assert.equal((await t.call('GET', '/readyz')).status, 503)
  })

  it('Should answer 404 and 405 as problems', async () => {
    const t = makeTestApp()
    const missing = await t.call('GET', '/v2/nothing')
    assert.equal(missing.status, 404)
    assert.equal(missing.headers.get('content-type'), 'application/problem+json')
    const wrong = await t.call('PATCH', '/v1/sessions/s1')
    assert.equal(wrong.status, 405)
    assert.equal(wrong.headers.get('allow'), 'GET, HEAD, DELETE')
    assert.equal(wrong.headers.get('content-type'), 'application/problem+json')
    const wrongRounds = await t.call('GET', '/v1/sessions/s1/rounds')
    assert.equal(wrongRounds.status, 405)
    assert.equal(wrongRounds.headers.get('allow'), 'POST')
  })

  it('Should put the request id in every problem', async () => {
    const t = makeTestApp()
    const { error, response } = await t.api.GET('/v1/sessions/{session_id}', {
      ...pathOf('nope'),
      headers: { 'X-Request-Id': 'req-123' },
    })
    assert.equal(error?.request_id, 'req-123')
    assert.equal(response.headers.get('x-request-id'), 'req-123')
  })
})

describe('OpenAPI and docs', () => {
  it('Should have a committed openapi/openapi.json that matches the routes (run npm run openapi)', async () => {
    const committed = readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')
    assert.equal(committed, await generateOpenApi())
  })

  it('Should serve an OpenAPI 3.1 document covering every v1 route', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/openapi.json')
    assert.equal(res.status, 200)
    assert.equal(res.body.openapi, '3.1.0')
    for (const path of [
      '/v1/dialects',
      '/v1/tools',
      '/v1/sessions',
      '/v1/sessions/{session_id}',
      '/v1/sessions/{session_id}/rounds',
      '/v1/sessions/{session_id}/render',
      '/v1/sessions/{session_id}/todos',
      '/v1/sessions/{session_id}/end',
      '/v1/sessions/{session_id}/history',
    ]) {
      assert.ok(res.body.paths[path], path)
    }
  })

  it('Should serve the API reference page with its own assets (no CDN)', async () => {
    const t = makeTestApp()
    const page = await t.call('GET', '/docs')
    assert.equal(page.status, 200)
    assert.doesNotMatch(page.text, /https?:\/\//)
    const srcs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    assert.ok(srcs.length >= 3)
    for (const src of srcs) {
      const asset = await t.app.request(src)
      assert.equal(asset.status, 200, src)
      assert.ok((await asset.arrayBuffer()).byteLength > 10, src)
    }
  })
})

describe('Bearer keys', () => {
  const keys = parseAuthKeys(
    'acme:agent:agent-secret-1,acme:viewer:viewer-secret-1,other:agent:other-secret-1'
  )
  const auth = (key: string) => ({ Authorization: `Bearer ${key}` })

  it('Should require a key on /v1 when keys are configured, but not on probes', async () => {
    const t = makeTestApp({ keys })
    const none = await t.api.GET('/v1/sessions')
    assert.equal(none.response.status, 401)
    assert.equal(none.response.headers.get('content-type'), 'application/problem+json')
    assert.match(none.response.headers.get('www-authenticate') ?? '', /Bearer/)
    assert.equal((await t.call('GET', '/v1/sessions', undefined, auth('wrong-secret'))).status, 401)
    assert.equal((await t.call('GET', '/v1/sessions', undefined, auth('agent-secret'))).status, 401)
    assert.equal((await t.call('GET', '/livez')).status, 200)
  })

  it('Should keep tenants apart (404, not 403) and refuse viewer writes', async () => {
    const t = makeTestApp({ keys })
    const [agent, viewer, other] = ['agent-secret-1', 'viewer-secret-1', 'other-secret-1'].map(
      (key) => t.apiAs(key)
    )
    const post = { ...pathOf('s1'), body: { tool_calls: [{ name: 'bash' }] } }
    const s1 = '/v1/sessions/{session_id}/rounds'
    assert.equal((await agent.POST(s1, post)).response.status, 200)
    assert.equal((await other.GET('/v1/sessions/{session_id}', pathOf('s1'))).response.status, 404)
    assert.equal((await viewer.GET('/v1/sessions/{session_id}', pathOf('s1'))).response.status, 200)
    const write = await viewer.POST(s1, post)
    assert.equal(write.response.status, 403)
    assert.equal((await other.GET('/v1/sessions')).data?.sessions.length, 0)
  })

  it('Should reject malformed AUTH_KEYS without echoing secrets', () => {
    assert.throws(
      () => parseAuthKeys('acme:owner:supersecret'),
      (e: Error) => !e.message.includes('supersecret')
    )
    assert.throws(() => parseAuthKeys('acme:agent:short'))
  })
})

describe('Unknown tools only', () => {
  it('Should count a round with only other tools and return no results', async () => {
    const t = makeTestApp()
    const res = await typedRound(t, 'x', [
      { name: 'bash' },
      { name: 'read_file', input: { path: 'a' } },
    ])
    assert.equal(res.response.status, 200)
    assert.ok(res.data)
    assert.deepEqual(res.data.results, [])
    assert.equal(res.data.used_todo, false)
    assert.equal(res.data.rounds_since_todo, 1)
  })
})

describe('Tool definitions are valid JSON Schema', () => {
  it('Should compile every dialect × format input schema, and validate a sample input', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js')
    const t = makeTestApp()
    // one instance: each new one compiles the 2020-12 meta-schema again (~50 ms a schema)
    const ajv = new Ajv2020({ strict: false })
    // every dialect of the registry, named as the document types them
    const listed = (await t.api.GET('/v1/dialects')).data?.dialects.map((d) => d.name) ?? []
    assert.deepEqual(listed, [...DIALECTS.keys()])
    let count = 0
    for (const dialect of listed) {
      for (const format of TOOL_FORMATS) {
        const { data, response } = await t.api.GET('/v1/tools', {
          params: { query: { dialect, format } },
        })
        assert.equal(response.status, 200, `${dialect} ${format}`)
        assert.ok(data)
        const tools = toolShapes(data)
        assert.deepEqual(
          tools.map((tool) => tool.name),
          DIALECTS.get(dialect)!.tools.map((tool) => tool.name)
        )
        for (const { schema } of tools) {
          assert.equal(schema.type, 'object', `${dialect} ${format}`)
          const validate = ajv.compile(schema)
          assert.equal(typeof validate, 'function')
          count++
        }
      }
    }
    assert.ok(count >= 7 * 5)
  })
})
