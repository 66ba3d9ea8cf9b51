/**
 * One source of truth for configuration and limits (issue 15.5): the environment is parsed in
 * `config.ts` (lists, key specs, units), the caps' defaults are `core/limits.ts`'s, and the
 * request schemas never refuse what the configured limits allow: beyond a limit, the 422 names it.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig, serviceLimits } from '../../src/config.js'
import { SESSION_ID_PATTERN } from '../../src/core/ids.js'
import {
  DEFAULT_LIST_LIMITS,
  jsonTextDepth,
  jsonTooDeep,
  LIMIT_CEILINGS,
} from '../../src/core/limits.js'
import { hashKey } from '../../src/http/auth.js'
import { DEFAULT_LIMITS } from '../../src/http/deps.js'
import { decodeCursor, encodeCursor } from '../../src/store/cursor.js'
import { makeTestApp, round } from '../helpers.js'

const appWith = (env: Record<string, string>) =>
  makeTestApp({ limits: serviceLimits(loadConfig(env)) })

const tasks = (n: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({
    id: String(i + 1),
    content: `t${i}`,
    status: 'pending',
    ...extra,
  }))

describe('config', () => {
  it('Should take the limits’ defaults from core/limits', () => {
    const config = loadConfig({})
    assert.deepEqual(serviceLimits(config), DEFAULT_LIMITS)
    assert.equal(config.MAX_JSON_DEPTH, DEFAULT_LIST_LIMITS.maxJsonDepth)
    assert.equal(config.MAX_JSON_DEPTH, 32)
    assert.equal(config.MAX_SESSION_BYTES, 1_048_576)
  })

  it('Should parse the new limits and refuse values past their ceilings', () => {
    const config = loadConfig({ MAX_JSON_DEPTH: '8', MAX_SESSION_BYTES: '65536' })
    assert.equal(serviceLimits(config).maxJsonDepth, 8)
    assert.equal(serviceLimits(config).maxSessionBytes, 65_536)
    for (const [name, value] of [
      ['MAX_ITEMS', LIMIT_CEILINGS.maxItems + 1],
      ['MAX_CONTENT_LENGTH', LIMIT_CEILINGS.maxContentLength + 1],
      ['MAX_JSON_DEPTH', LIMIT_CEILINGS.maxJsonDepth + 1],
      ['MAX_JSON_DEPTH', 1],
      ['MAX_SESSION_BYTES', LIMIT_CEILINGS.maxSessionBytes + 1],
      ['MAX_TOOL_CALLS', LIMIT_CEILINGS.maxToolCalls + 1],
    ] as const) {
      assert.throws(() => loadConfig({ [name]: String(value) }), new RegExp(name))
    }
  })

  it('Should parse lists, key specs and units', () => {
    const config = loadConfig({
      CORS_ORIGINS: ' https://a.example , ,https://b.example',
      REDIS_CLUSTER_NODES: 'r1:6379, r2:6379',
      AUTH_KEYS: 'acme:agent:agent-key-123, acme:viewer:viewer-key-123',
      SESSION_TTL_SECONDS: '60',
      STALE_AFTER_SECONDS: '5',
    })
    assert.deepEqual(config.CORS_ORIGINS, ['https://a.example', 'https://b.example'])
    assert.deepEqual(config.REDIS_CLUSTER_NODES, ['r1:6379', 'r2:6379'])
    assert.deepEqual(config.AUTH_KEYS.get(hashKey('viewer-key-123')), {
      tenant: 'acme',
      role: 'viewer',
    })
    assert.equal(config.AUTH_KEYS.size, 2)
    assert.equal(config.SESSION_TTL_MS, 60_000)
    assert.equal(config.STALE_AFTER_MS, 5000)
    const empty = loadConfig({})
    assert.deepEqual([empty.CORS_ORIGINS, empty.REDIS_CLUSTER_NODES], [[], []])
    assert.equal(empty.AUTH_KEYS.size, 0)
    assert.throws(
      () => loadConfig({ AUTH_KEYS: 'acme:owner:some-key-123' }),
      /AUTH_KEYS: .*entry 1/
    )
    // admin is a role (SPEC §4): all an agent may, and the tenant's webhooks
    const admin = loadConfig({ AUTH_KEYS: 'acme:admin:admin-key-123' })
    assert.deepEqual(admin.AUTH_KEYS.get(hashKey('admin-key-123')), {
      tenant: 'acme',
      role: 'admin',
    })
  })
})

describe('Request schemas and configured limits', () => {
  it('Should take a 15,000-character item on PUT and in a round with MAX_CONTENT_LENGTH=20000', async () => {
    const t = appWith({ MAX_CONTENT_LENGTH: '20000' })
    const long = 'x'.repeat(15_000)
    const put = await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', content: long, status: 'pending', notes: long }],
    })
    assert.equal(put.status, 200)
    const res = await round(t, 's2', [
      { name: 'todo', input: { items: [{ id: '1', text: long, status: 'pending' }] } },
    ])
    assert.equal(res.body.results[0].is_error, false)
    const over = await t.call('PUT', '/v1/sessions/s1/todos', {
      items: [{ id: '1', content: 'x'.repeat(20_001), status: 'pending' }],
    })
    assert.equal(over.status, 422)
    assert.equal(over.body.type, 'https://agent-todos.dev/problems/limit-exceeded')
    assert.match(over.body.detail, /MAX_CONTENT_LENGTH/)
  })

  it('Should take 1,200 items (and 1,200 blocks on one) on PUT with MAX_ITEMS=1500, and 422 past it', async () => {
    const t = appWith({ MAX_ITEMS: '1500' })
    const items = tasks(1200)
    items[0] = { ...items[0], blocks: items.map((item) => item.id).slice(1) } as never
    const put = await t.call('PUT', '/v1/sessions/s1/todos', { dialect: 'claude-tasks', items })
    assert.equal(put.status, 200)
    assert.equal(put.body.items.length, 1200)
    assert.equal(put.body.items[0].blocks.length, 1199)
    const over = await t.call('PUT', '/v1/sessions/s1/todos', { items: tasks(1501) })
    assert.equal(over.status, 422)
    assert.match(over.body.detail, /MAX_ITEMS/)
  })

  it('Should answer a list over the default MAX_ITEMS with a 422 naming it, not a schema 400', async () => {
    const t = makeTestApp()
    const over = await t.call('PUT', '/v1/sessions/s1/todos', {
      dialect: 'claude-tasks',
      items: tasks(1001),
    })
    assert.equal(over.status, 422)
    assert.match(over.body.detail, /MAX_ITEMS/)
  })

  it('Should let a round carry MAX_TOOL_CALLS calls at its ceiling, and name it past a lower one', async () => {
    const t = appWith({ MAX_TOOL_CALLS: String(LIMIT_CEILINGS.maxToolCalls) })
    const calls = Array.from({ length: LIMIT_CEILINGS.maxToolCalls }, () => ({ name: 'bash' }))
    assert.equal((await round(t, 's1', calls)).status, 200)
    const low = appWith({ MAX_TOOL_CALLS: '4' })
    const res = await round(low, 's1', calls.slice(0, 5))
    assert.equal(res.status, 400)
    assert.match(res.body.detail, /MAX_TOOL_CALLS/)
  })
})

describe('Id formats', () => {
  it('Should accept in a listing cursor exactly the session ids the routes accept', () => {
    for (const id of ['a', 'run-42', 'A.b_c:d-e', 'x'.repeat(128), 'x'.repeat(129), '-a', 'a/b']) {
      const cursor = decodeCursor(encodeCursor({ updatedAt: 1, sessionId: id }))
      assert.equal(cursor !== undefined, SESSION_ID_PATTERN.test(id), id)
    }
  })

  it('Should name the one session id pattern in the 400', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', `/v1/sessions/${'x'.repeat(129)}`)
    assert.equal(res.status, 400)
    assert.ok(res.text.includes(SESSION_ID_PATTERN.source.replaceAll('\\', '\\\\')))
  })
})

describe('jsonTextDepth', () => {
  it('Should count levels from the root and skip brackets inside strings', () => {
    for (const [text, depth] of [
      ['1', 0],
      ['[]', 1],
      ['{"a":[{}]}', 3],
      ['"[[[["', 0],
      ['["\\"[[", [1]]', 2],
      ['["\\\\", [1]]', 2],
    ] as const) {
      assert.equal(jsonTextDepth(text, 10), depth, text)
    }
    const deep = '['.repeat(5000) + ']'.repeat(5000)
    assert.equal(jsonTextDepth(deep, 512), 513)
    assert.equal(jsonTextDepth(deep, 10_000), 5000)
  })

  it('Should tell a text deeper than the limit, whatever its brackets inside strings', () => {
    const at = (n: number) => '['.repeat(n) + ']'.repeat(n)
    assert.equal(jsonTooDeep(at(512), 512), false)
    assert.equal(jsonTooDeep(at(513), 512), true)
    assert.equal(jsonTooDeep(`{"a":${at(512)}}`, 512), true)
    // many brackets, all inside strings or side by side: the full scan answers
    assert.equal(jsonTooDeep(JSON.stringify(['['.repeat(2000)]), 512), false)
    assert.equal(jsonTooDeep(JSON.stringify(Array(2000).fill([])), 512), false)
  })
})
