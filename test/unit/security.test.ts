/**
 * Security, per resource: keys, tenants, roles, limits, headers, logs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Hono } from 'hono'
import { secureHeaders } from 'hono/secure-headers'
import pino from 'pino'
import { hashKey, loadKeysFile, parseAuthKeys } from '../../src/http/auth.js'
import { SECURE_HEADERS } from '../../src/http/response-headers.js'
import { makeTestApp, round, type TestApp } from '../helpers.js'
import { ROUND_INPUT_CASES } from '../round-input-cases.js'

const AGENT = 'acme-agent-key-0001'
const VIEWER = 'acme-viewer-key-0001'
const OTHER = 'globex-agent-key-0001'
const keys = parseAuthKeys(`acme:agent:${AGENT},acme:viewer:${VIEWER},globex:agent:${OTHER}`)
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` })

const items = [{ id: '1', text: 'Ship it', status: 'in_progress' }]
const canonical = [{ id: '1', content: 'Ship it', status: 'in_progress' }]

/** Every /v1 route with a body that would succeed for the owner of session `s1`. */
const ROUTES: { name: string; method: string; path: string; body?: unknown; write: boolean }[] = [
  { name: 'dialects', method: 'GET', path: '/v1/dialects', write: false },
  { name: 'tools', method: 'GET', path: '/v1/tools?dialect=s03', write: false },
  { name: 'list', method: 'GET', path: '/v1/sessions', write: false },
  { name: 'view', method: 'GET', path: '/v1/sessions/s1', write: false },
  { name: 'render', method: 'GET', path: '/v1/sessions/s1/render', write: false },
  { name: 'history', method: 'GET', path: '/v1/sessions/s1/history', write: false },
  {
    name: 'round',
    method: 'POST',
    path: '/v1/sessions/s1/rounds',
    body: { tool_calls: [{ name: 'bash' }] },
    write: true,
  },
  {
    name: 'put',
    method: 'PUT',
    path: '/v1/sessions/s1/todos',
    body: { items: canonical },
    write: true,
  },
  {
    name: 'end',
    method: 'POST',
    path: '/v1/sessions/s1/end',
    body: { outcome: 'completed' },
    write: true,
  },
  { name: 'delete', method: 'DELETE', path: '/v1/sessions/s1', write: true },
]

async function owned(): Promise<TestApp> {
  const t = makeTestApp({ keys })
  const res = await round(t, 's1', [{ name: 'todo', input: { items } }])
  assert.equal(
    (
      await t.call(
        'POST',
        '/v1/sessions/s1/rounds',
        { tool_calls: [{ name: 'todo', input: { items } }] },
        bearer(AGENT)
      )
    ).status,
    200
  )
  assert.equal(res.status, 401)
  return t
}

describe('Security: authentication on every /v1 route', () => {
  for (const route of ROUTES) {
    it(`Should refuse ${route.name} without a key, with a wrong key, and with a prefix of a key`, async () => {
      const t = await owned()
      for (const headers of [
        {},
        bearer('nope-nope-nope'),
        bearer(AGENT.slice(0, -1)),
        bearer(`${AGENT}x`),
        bearer(AGENT.toUpperCase()),
      ]) {
        const res = await t.call(route.method, route.path, route.body, headers)
        assert.equal(res.status, 401, `${route.name} ${JSON.stringify(headers)}`)
        assert.equal(res.headers.get('content-type'), 'application/problem+json')
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/)
      }
      // RFC 6750: a header that is not a bearer credential at all is a bad request
      for (const headers of [{ Authorization: AGENT }, { Authorization: `Basic ${AGENT}` }]) {
        const res = await t.call(route.method, route.path, route.body, headers)
        assert.equal(res.status, 400, `${route.name} ${JSON.stringify(headers)}`)
        assert.equal(res.body.type, 'https://agent-todos.dev/problems/unauthorized')
      }
      assert.equal(
        (await t.call('GET', '/v1/sessions/s1', undefined, bearer(AGENT))).body.version,
        1,
        'nothing changed'
      )
    })
  }

  it('Should leave probes and docs open', async () => {
    const t = await owned()
    for (const path of ['/livez', '/readyz', '/openapi.json', '/docs']) {
      assert.equal((await t.call('GET', path)).status, 200, path)
    }
  })
})

describe('Security: tenant isolation', () => {
  for (const route of ROUTES.filter((r) => r.path.includes('/s1'))) {
    it(`Should answer another tenant's ${route.name} on the same session id as if it did not exist`, async () => {
      const t = await owned()
      const res = await t.call(route.method, route.path, route.body, bearer(OTHER))
      if (route.name === 'round' || route.name === 'put') {
        assert.equal(res.status, 200, 'it acts on its own, new session')
        assert.equal(res.body.version, 1)
      } else {
        assert.equal(res.status, 404, route.name)
        assert.doesNotMatch(res.text, /Ship it/)
      }
      const mine = await t.call('GET', '/v1/sessions/s1', undefined, bearer(AGENT))
      assert.equal(mine.body.version, 1)
      assert.equal(mine.body.items[0].content, 'Ship it')
    })
  }

  it("Should never list another tenant's sessions", async () => {
    const t = await owned()
    const res = await t.call('GET', '/v1/sessions', undefined, bearer(OTHER))
    assert.deepEqual(res.body.sessions, [])
  })

  it("Should not stream another tenant's session", async () => {
    const t = await owned()
    assert.equal(
      (await t.call('GET', '/v1/sessions/s1/events', undefined, bearer(OTHER))).status,
      404
    )
  })
})

describe('Security: roles', () => {
  for (const route of ROUTES) {
    it(`Should ${route.write ? 'refuse' : 'allow'} ${route.name} with a viewer key`, async () => {
      const t = await owned()
      const res = await t.call(route.method, route.path, route.body, bearer(VIEWER))
      assert.equal(res.status, route.write ? 403 : 200, route.name)
      if (route.write) assert.equal(res.body.type, 'https://agent-todos.dev/problems/forbidden')
      assert.equal(
        (await t.call('GET', '/v1/sessions/s1', undefined, bearer(AGENT))).body.version,
        1
      )
    })
  }
})

describe('Security: keys file', () => {
  it('Should accept keys by their sha256 only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'))
    const file = join(dir, 'keys.json')
    writeFileSync(
      file,
      JSON.stringify({
        keys: [{ tenant: 'acme', role: 'viewer', sha256: hashKey('file-key-123456') }],
      })
    )
    const t = makeTestApp({ keys: loadKeysFile(file) })
    assert.equal(
      (await t.call('GET', '/v1/sessions', undefined, bearer('file-key-123456'))).status,
      200
    )
    assert.equal(
      (await t.call('GET', '/v1/sessions', undefined, bearer(hashKey('file-key-123456')))).status,
      401
    )
    writeFileSync(file, JSON.stringify({ keys: [{ tenant: 'acme', role: 'root', sha256: 'x' }] }))
    assert.throws(() => loadKeysFile(file), /AUTH_KEYS_FILE/)
  })
})

describe('Security: logs', () => {
  it('Should keep keys and Authorization headers out of the logs', async () => {
    let captured = ''
    const sink = new Writable({
      write(chunk, _encoding, done) {
        captured += chunk
        done()
      },
    })
    const t = makeTestApp({ keys, logger: pino({ level: 'trace' }, sink) })
    await t.call(
      'POST',
      '/v1/sessions/s1/rounds',
      { tool_calls: [{ name: 'bash' }] },
      bearer(AGENT)
    )
    await t.call('GET', '/v1/sessions/s1', undefined, bearer(VIEWER))
    await t.call('GET', '/v1/sessions/s1', undefined, bearer('wrong-key-guess-1'))
    await t.call('PUT', '/v1/sessions/s1/todos', '{bad json', bearer(AGENT))
    assert.ok(captured.includes('"route"'), 'requests were logged')
    for (const secret of [AGENT, VIEWER, 'wrong-key-guess-1', 'Bearer']) {
      assert.ok(!captured.includes(secret), `log contains ${secret}`)
    }
  })
})

describe('Security: limits', () => {
  it('Should fail a round call that breaks MAX_ITEMS or MAX_CONTENT_LENGTH, naming the limit', async () => {
    const t = makeTestApp({ limits: { maxItems: 3, maxContentLength: 10 } })
    const four = Array.from({ length: 4 }, (_, i) => ({ text: `t${i}` }))
    const res = await round(t, 's1', [
      { name: 'todo', input: { items: four } },
      { name: 'todo', input: { items: [{ text: 'x'.repeat(11) }] } },
    ])
    assert.equal(res.status, 200)
    assert.deepEqual(
      res.body.results.map((r: any) => [
        r.is_error,
        /MAX_ITEMS|MAX_CONTENT_LENGTH/.exec(r.content)?.[0],
      ]),
      [
        [true, 'MAX_ITEMS'],
        [true, 'MAX_CONTENT_LENGTH'],
      ]
    )
    assert.equal(res.body.progress.total, 0)
    const put = await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', content: 'x'.repeat(11), status: 'pending' }],
    })
    assert.equal(put.status, 422)
    assert.match(put.body.detail, /MAX_CONTENT_LENGTH/)
  })

  it('Should refuse a round over MAX_TOOL_CALLS with a 400 naming it', async () => {
    const t = makeTestApp({ limits: { maxToolCalls: 2 } })
    const res = await round(t, 's1', [{ name: 'a' }, { name: 'b' }, { name: 'c' }])
    assert.equal(res.status, 400)
    assert.match(res.body.detail, /MAX_TOOL_CALLS/)
    assert.equal(res.body.errors[0].pointer, '/tool_calls')
  })

  it('Should rate-limit per tenant with a 429 problem and RateLimit headers', async () => {
    const t = makeTestApp({ keys, readRateLimitPerMinute: 3 })
    for (let i = 0; i < 3; i++) {
      const ok = await t.call('GET', '/v1/dialects', undefined, bearer(AGENT))
      assert.equal(ok.status, 200)
      assert.match(ok.headers.get('ratelimit') ?? '', /limit=3, remaining=\d/)
    }
    const limited = await t.call('GET', '/v1/dialects', undefined, bearer(VIEWER))
    assert.equal(limited.status, 429, 'the budget is per tenant, across its keys')
    assert.equal(limited.headers.get('content-type'), 'application/problem+json')
    assert.ok(Number(limited.headers.get('retry-after')) > 0)
    assert.match(limited.body.detail, /RATE_LIMIT_PER_MINUTE/)
    assert.equal(
      (await t.call('GET', '/v1/dialects', undefined, bearer(OTHER))).status,
      200,
      'other tenants unaffected'
    )
  })
})

describe('Security: browser headers', () => {
  it('Should send secure headers', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/v1/dialects')
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
    assert.ok(res.headers.get('x-frame-options'))
  })

  it("Should send exactly hono's secureHeaders() defaults, without letting them override a route's own", async () => {
    const reference = new Hono()
    reference.use(secureHeaders())
    reference.get('/', (c) => c.text('ok'))
    const expected = [...(await reference.request('/')).headers].filter(
      ([name]) => name !== 'content-type'
    )
    assert.deepEqual(
      SECURE_HEADERS.map(([name, value]) => [name.toLowerCase(), value]).sort(),
      expected.sort()
    )
    const t = makeTestApp()
    for (const path of ['/v1/dialects', '/v1/sessions/nope', '/livez', '/nowhere']) {
      const res = await t.app.request(path)
      for (const [name, value] of SECURE_HEADERS)
        assert.equal(res.headers.get(name), value, `${path} ${name}`)
    }
    const page = await t.app.request('/')
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      /script-src/,
      "the dashboard's own CSP stays"
    )
  })

  it('Should keep a plain client X-Request-Id and replace anything else with a UUID', async () => {
    const t = makeTestApp()
    const kept = await t.app.request('/livez', { headers: { 'X-Request-Id': 'abc-123=' } })
    assert.equal(kept.headers.get('x-request-id'), 'abc-123=')
    for (const given of ['has space', 'x'.repeat(256), 'semi;colon']) {
      const res = await t.app.request('/livez', { headers: { 'X-Request-Id': given } })
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, given)
    }
  })

  it('Should answer malformed round input exactly as zod-openapi validators did, storing nothing', async () => {
    const t = makeTestApp()
    for (const c of ROUND_INPUT_CASES) {
      const res = await t.app.request(c.path, { method: 'POST', body: c.body, headers: c.headers })
      const text = await res.text()
      assert.equal(res.status, c.status, `${c.name}: ${text}`)
      if (c.problem === null) continue
      const body = JSON.parse(text)
      assert.equal(res.headers.get('content-type'), 'application/problem+json', c.name)
      assert.equal(body.type, `https://agent-todos.dev/problems/${c.problem}`, c.name)
      assert.equal(body.detail, c.detail, c.name)
      assert.deepEqual(
        (body.errors ?? []).map((e: { pointer: string }) => e.pointer),
        c.pointers,
        c.name
      )
      const sessionId = c.path.split('/')[3]
      assert.equal(
        (await t.call('GET', `/v1/sessions/${sessionId}`)).status,
        sessionId === '-bad' ? 400 : 404,
        c.name
      )
    }
  })

  it('Should refuse a malformed Idempotency-Key with a 400 problem naming the header', async () => {
    const t = makeTestApp()
    for (const key of ['', 'k'.repeat(256)]) {
      const res = await t.call(
        'POST',
        '/v1/sessions/idem-bad/rounds',
        { tool_calls: [{ name: 'bash' }] },
        {
          'Idempotency-Key': key,
        }
      )
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.equal(res.headers.get('content-type'), 'application/problem+json')
      assert.equal(res.body.title, 'Bad Request')
      assert.equal(res.body.detail, 'The request header is invalid.')
      assert.equal(res.body.errors[0].pointer, '/headers/idempotency-key')
    }
    assert.equal((await t.call('GET', '/v1/sessions/idem-bad')).status, 404, 'nothing was stored')
  })

  it('Should answer CORS only for allowed origins', async () => {
    const t = makeTestApp({ corsOrigins: ['https://ops.example.com'] })
    const allowed = await t.app.request('/v1/sessions', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://ops.example.com',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    })
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://ops.example.com')
    const get = await t.app.request('/v1/sessions', {
      headers: { Origin: 'https://evil.example.com' },
    })
    assert.equal(get.headers.get('access-control-allow-origin'), null)
    const open = makeTestApp()
    const none = await open.app.request('/v1/sessions', {
      headers: { Origin: 'https://ops.example.com' },
    })
    assert.equal(none.headers.get('access-control-allow-origin'), null)
  })
})
