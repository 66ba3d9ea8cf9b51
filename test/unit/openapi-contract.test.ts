/**
 * The served OpenAPI document says what the server does: responses of every documented route,
 * the problems the middleware answers included (400, 401, 304, 405, 413, 415, 429, 503), validate
 * against it; nullable fields are documented so generators see the null; operation ids are
 * unique; the event streams are documented as text/event-stream only.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { contractOf, type RecordedResponse } from '../contract.js'
import { makeTestApp, type TestApp } from '../helpers.js'
import { parseAuthKeys } from '../../src/http/auth.js'

const document = JSON.parse(
  readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')
)
const contract = contractOf(document)

/** Calls the app and checks the response against the document. */
async function checked(
  t: TestApp,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {}
) {
  const res = await t.call(method, path, body, headers)
  const response: RecordedResponse = {
    method,
    path: new URL(path, 'http://x').pathname,
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: res.text,
  }
  assert.ok(contract.documents(response.path), `${path} is documented`)
  assert.deepEqual(contract.check(response), [])
  return res
}

const todo = (items: unknown[]) => [{ id: 'toolu_1', name: 'todo', input: { items } }]

describe('The OpenAPI document against the server', () => {
  it('Should describe the responses of every route, null current and ended included', async () => {
    const t = makeTestApp()
    await checked(t, 'GET', '/v1/dialects')
    for (const format of ['anthropic', 'openai', 'openai-responses', 'gemini', 'mcp']) {
      await checked(t, 'GET', `/v1/tools?dialect=claude-tasks&format=${format}`)
    }
    await checked(t, 'GET', '/v1/tools?dialect=codex-plan&format=openai&strict=true')
    await checked(t, 'GET', '/v1/tools?format=gemini&strict=true')
    const first = await checked(t, 'POST', '/v1/sessions/c1/rounds', {
      tool_calls: todo([{ id: '1', text: 'Write tests', status: 'pending' }]),
    })
    assert.equal(first.body.notice, null)
    const view = await checked(t, 'GET', '/v1/sessions/c1')
    assert.equal(view.body.current, null)
    assert.equal(view.body.ended, null)
    await checked(t, 'GET', '/v1/sessions/c1', undefined, {
      'If-None-Match': view.headers.get('etag')!,
    })
    await checked(t, 'GET', '/v1/sessions/c1/render')
    await checked(t, 'PUT', '/v1/sessions/c1/todos', {
      items: [{ id: '1', content: 'Write tests', status: 'in_progress' }],
    })
    const round = await checked(t, 'POST', '/v1/sessions/c1/rounds', {
      tool_calls: [{ name: 'bash' }],
    })
    assert.notEqual(round.body.notice, null)
    await checked(t, 'GET', '/v1/sessions?state=all')
    await checked(t, 'GET', '/v1/sessions/c1/history')
    await checked(t, 'POST', '/v1/sessions/c1/end', { outcome: 'completed' })
    await checked(t, 'PUT', '/v1/sessions/c1/todos', { items: [] }, { 'If-Match': '"1"' })
    await checked(t, 'DELETE', '/v1/sessions/c1')
    await checked(t, 'DELETE', '/v1/sessions/c1')
    await checked(t, 'GET', '/v1/sessions/%7Bbad%7D')
    await checked(t, 'POST', '/v1/sessions/c2/rounds', '{"tool_calls": [')
    await checked(t, 'POST', '/v1/sessions/c2/rounds', 'x', { 'Content-Type': 'text/plain' })
    await checked(t, 'POST', '/v1/sessions/c2/rounds', { tool_calls: todo([]), dialect: 's03' })
    await checked(t, 'POST', '/v1/sessions/c2/rounds', {
      tool_calls: todo([]),
      dialect: 'codex-plan',
    })
    await checked(t, 'PUT', '/v1/sessions/c2/todos', {
      items: [
        { id: '1', content: 'a', status: 'in_progress' },
        { id: '2', content: 'b', status: 'in_progress' },
      ],
    })
    await checked(t, 'PATCH', '/v1/sessions/c2')
    await checked(t, 'GET', '/v1/sessions?cursor=nope')
  })

  it('Should describe the auth, rate-limit, body-limit and draining problems', async () => {
    const keys = parseAuthKeys('acme:agent:agent-key-1,acme:viewer:viewer-key-1')
    const limited = makeTestApp({
      keys,
      rateLimitPerMinute: 2,
      readRateLimitPerMinute: 2,
      bodyLimitBytes: 64,
    })
    const agent = { Authorization: 'Bearer agent-key-1' }
    await checked(limited, 'GET', '/v1/sessions')
    await checked(limited, 'GET', '/v1/sessions', undefined, { Authorization: 'Basic x' })
    await checked(
      limited,
      'POST',
      '/v1/sessions/s/rounds',
      { tool_calls: todo([]) },
      {
        Authorization: 'Bearer viewer-key-1',
      }
    )
    await checked(
      limited,
      'POST',
      '/v1/sessions/s/rounds',
      { tool_calls: todo([{ id: '1', text: 'x'.repeat(100), status: 'pending' }]) },
      agent
    )
    let spent = await checked(limited, 'GET', '/v1/dialects', undefined, agent)
    for (let i = 0; i < 3 && spent.status !== 429; i++) {
      spent = await checked(limited, 'GET', '/v1/dialects', undefined, agent)
    }
    assert.equal(spent.status, 429)
    const draining = makeTestApp({ isDraining: () => true })
    const stream = await checked(draining, 'GET', '/v1/events')
    assert.equal(stream.status, 503)
  })

  it('Should document the nullable fields so generators see the null', () => {
    const schemas = document.components.schemas
    for (const [schema, field] of [
      ['SessionView', 'current'],
      ['SessionView', 'ended'],
      ['SessionSummary', 'current'],
      ['SessionSummary', 'ended'],
      ['RoundReply', 'notice'],
    ]) {
      const property = schemas[schema].properties[field]
      assert.equal(property.allOf, undefined, `${schema}.${field}`)
      assert.ok(
        property.anyOf?.some((branch: { type?: string }) => branch.type === 'null'),
        `${schema}.${field} documents null`
      )
    }
    assert.equal(JSON.stringify(document).includes('"allOf"'), false)
  })

  it('Should give every operation a unique operationId and 405 and 429', () => {
    const ids: string[] = []
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        assert.match(operation.operationId, /^[a-z][A-Za-z]+$/, `${method} ${path}`)
        ids.push(operation.operationId)
        assert.ok(operation.responses['405'], `${method} ${path} documents 405`)
        assert.ok(operation.responses['429'].headers['Retry-After'], `${method} ${path} 429`)
      }
    }
    assert.equal(new Set(ids).size, ids.length)
  })

  it('Should document the event streams as text/event-stream only', () => {
    for (const path of ['/v1/events', '/v1/sessions/{session_id}/events']) {
      const ok = document.paths[path].get.responses['200']
      assert.deepEqual(Object.keys(ok.content), ['text/event-stream'])
    }
  })
})
