import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../src/dialects/registry.js'
import { parseAuthKeys } from '../../src/http/auth.js'
import { generateOpenApi } from '../../src/http/openapi.js'
import { TOOL_FORMATS } from '../../src/tools/formats.js'
import { makeTestApp, round } from '../helpers.js'

describe('GET /v1/dialects and /v1/tools', () => {
  it('Should list every dialect with its tools', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/v1/dialects')
    assert.equal(res.status, 200)
    assert.deepEqual(
      res.body.dialects.map((d: any) => d.name),
      [...DIALECTS.keys()]
    )
    assert.deepEqual(res.body.dialects[0].tools, ['todo'])
  })

  it('Should give s03 in every format, from one schema', async () => {
    const t = makeTestApp()
    const shapes: Record<string, (tool: any) => any> = {
      anthropic: (tool) => tool.input_schema,
      openai: (tool) => (assert.equal(tool.type, 'function'), tool.function.parameters),
      'openai-responses': (tool) => (assert.equal(tool.type, 'function'), tool.parameters),
      gemini: (tool) => tool.parametersJsonSchema,
      mcp: (tool) => tool.inputSchema,
    }
    const schemas = []
    for (const format of TOOL_FORMATS) {
      const res = await t.call('GET', `/v1/tools?dialect=s03&format=${format}`)
      assert.equal(res.status, 200, format)
      assert.equal(res.body.dialect, 's03')
      assert.equal(res.body.format, format)
      assert.equal(res.body.tools.length, 1)
      schemas.push(shapes[format](res.body.tools[0]))
    }
    for (const schema of schemas) assert.deepEqual(schema, schemas[0])
  })

  it('Should default to s03 + anthropic and reject unknown values with 400', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/v1/tools')
    assert.equal(res.body.tools[0].name, 'todo')
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
    const res = await t.call('GET', '/v1/sessions/nope', undefined, { 'X-Request-Id': 'req-123' })
    assert.equal(res.body.request_id, 'req-123')
    assert.equal(res.headers.get('x-request-id'), 'req-123')
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
    const none = await t.call('GET', '/v1/sessions')
    assert.equal(none.status, 401)
    assert.equal(none.headers.get('content-type'), 'application/problem+json')
    assert.match(none.headers.get('www-authenticate') ?? '', /Bearer/)
    assert.equal((await t.call('GET', '/v1/sessions', undefined, auth('wrong-secret'))).status, 401)
    assert.equal((await t.call('GET', '/v1/sessions', undefined, auth('agent-secret'))).status, 401)
    assert.equal((await t.call('GET', '/livez')).status, 200)
  })

  it('Should keep tenants apart (404, not 403) and refuse viewer writes', async () => {
    const t = makeTestApp({ keys })
    const body = { tool_calls: [{ name: 'bash' }] }
    assert.equal(
      (await t.call('POST', '/v1/sessions/s1/rounds', body, auth('agent-secret-1'))).status,
      200
    )
    assert.equal(
      (await t.call('GET', '/v1/sessions/s1', undefined, auth('other-secret-1'))).status,
      404
    )
    assert.equal(
      (await t.call('GET', '/v1/sessions/s1', undefined, auth('viewer-secret-1'))).status,
      200
    )
    const write = await t.call('POST', '/v1/sessions/s1/rounds', body, auth('viewer-secret-1'))
    assert.equal(write.status, 403)
    assert.equal(
      (await t.call('GET', '/v1/sessions', undefined, auth('other-secret-1'))).body.sessions.length,
      0
    )
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
    const res = await round(t, 'x', [{ name: 'bash' }, { name: 'read_file', input: { path: 'a' } }])
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.results, [])
    assert.equal(res.body.used_todo, false)
    assert.equal(res.body.rounds_since_todo, 1)
  })
})

describe('Tool definitions are valid JSON Schema', () => {
  it('Should compile every dialect × format input schema, and validate a sample input', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js')
    const t = makeTestApp()
    // one instance: each new one compiles the 2020-12 meta-schema again (~50 ms a schema)
    const ajv = new Ajv2020({ strict: false })
    const pick: Record<string, (tool: any) => any> = {
      anthropic: (tool) => tool.input_schema,
      openai: (tool) => tool.function.parameters,
      'openai-responses': (tool) => tool.parameters,
      gemini: (tool) => tool.parametersJsonSchema,
      mcp: (tool) => tool.inputSchema,
    }
    let count = 0
    for (const dialect of DIALECTS.keys()) {
      for (const format of TOOL_FORMATS) {
        const res = await t.call('GET', `/v1/tools?dialect=${dialect}&format=${format}`)
        assert.equal(res.status, 200, `${dialect} ${format}`)
        assert.deepEqual(
          res.body.tools.map((tool: any) => tool.name ?? tool.function.name),
          DIALECTS.get(dialect)!.tools.map((tool) => tool.name)
        )
        for (const tool of res.body.tools) {
          const schema = pick[format](tool)
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
