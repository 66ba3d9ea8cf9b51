/**
 * Finding 12.1, no poisoned sessions: an item nested about 4,000 levels deep was stored (PUT, or
 * claude-tasks TaskCreate/TaskUpdate) and from then on the session, its history, the tenant's
 * listing and its event stream answered 500 or nothing; a round body nested 10,000 levels with an
 * Idempotency-Key was a 500. Now a body nested deeper than 512 levels is a 400, anything stored
 * is at most MAX_JSON_DEPTH (32) levels deep counting the item as 1, and what a request nests
 * inside a JSON string is bounded too.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { pyJsonError, pyRepr } from '../../src/dialects/native/python.js'
import { makeTestApp, type TestApp } from '../helpers.js'
import { sseReader } from '../sse.js'

/** An object nested `levels` deep as JSON text, built without recursion: `{"a":{"a":…1}}`. */
const nestedText = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)

/** Metadata whose item is `itemDepth` levels deep (the item 1, its metadata 2, …). */
const metadataText = (itemDepth: number) => nestedText(itemDepth - 1)

const putBody = (metadata: string) =>
  `{"dialect":"claude-tasks","items":[{"id":"1","content":"a","status":"in_progress","metadata":${metadata}}]}`

const roundBody = (calls: string) => `{"dialect":"claude-tasks","tool_calls":[${calls}]}`
const create = (metadata: string) =>
  `{"name":"TaskCreate","input":{"subject":"s","description":"d","metadata":${metadata}}}`
const update = (metadata: string) =>
  `{"name":"TaskUpdate","input":{"taskId":"1","metadata":${metadata}}}`

/** A claude-tasks session `s1` with task #1 in progress. */
async function seeded(): Promise<TestApp> {
  const t = makeTestApp()
  const res = await t.call(
    'POST',
    '/v1/sessions/s1/rounds',
    roundBody(
      `{"name":"TaskCreate","input":{"subject":"a","description":"d"}},{"name":"TaskUpdate","input":{"taskId":"1","status":"in_progress"}}`
    )
  )
  assert.equal(res.status, 200)
  return t
}

/** Every read of the tenant still serves, and the session is still at `version`. */
async function stillServes(t: TestApp, version: number) {
  const session = await t.call('GET', '/v1/sessions/s1')
  assert.equal(session.status, 200)
  assert.equal(session.body.version, version)
  assert.equal((await t.call('GET', '/v1/sessions/s1/history')).status, 200)
  assert.equal((await t.call('GET', '/v1/sessions/s1/render')).status, 200)
  const list = await t.call('GET', '/v1/sessions')
  assert.equal(list.status, 200)
  assert.deepEqual(
    list.body.sessions.map((s: any) => [s.session_id, s.current?.id]),
    [['s1', '1']]
  )
  const res = await t.app.request('/v1/events')
  assert.equal(res.status, 200)
  const sse = sseReader(res.body!)
  const snapshot = await sse.nextEvent()
  assert.equal(snapshot?.event, 'snapshot')
  assert.match(snapshot.data!, /"s1"/)
  await sse.cancel()
}

describe('Hostile 12.1: nesting depth', () => {
  for (const depth of [4150, 10_000]) {
    it(`Should refuse ${depth}-level metadata on PUT with a 400 and keep serving`, async () => {
      const t = await seeded()
      const res = await t.call('PUT', '/v1/sessions/s1/todos', putBody(metadataText(depth)))
      assert.equal(res.status, 400)
      assert.equal(res.body.type, 'https://agent-todos.dev/problems/body-too-deep')
      assert.match(res.body.detail, /512/)
      await stillServes(t, 1)
    })

    it(`Should refuse ${depth}-level metadata on PUT whatever Content-Encoding the request claims`, async () => {
      const t = await seeded()
      for (const encoding of ['identity', 'gzip', 'br']) {
        const res = await t.call('PUT', '/v1/sessions/s1/todos', putBody(metadataText(depth)), {
          'content-encoding': encoding,
        })
        assert.equal(res.status, 400, encoding)
        assert.equal(res.body.type, 'https://agent-todos.dev/problems/body-too-deep', encoding)
      }
      await stillServes(t, 1)
    })

    it(`Should refuse ${depth}-level metadata in TaskCreate and TaskUpdate and keep serving`, async () => {
      const t = await seeded()
      const meta = metadataText(depth)
      for (const call of [create(meta), update(meta)]) {
        const res = await t.call('POST', '/v1/sessions/s1/rounds', roundBody(call))
        assert.equal(res.status, 400)
        assert.equal(res.body.type, 'https://agent-todos.dev/problems/body-too-deep')
      }
      // the same calls as OpenAI sends them: arguments as a JSON string, which the body's
      // depth check cannot see into
      for (const call of [
        `{"subject":"s","description":"d","metadata":${meta}}`,
        `{"taskId":"1","metadata":${meta}}`,
      ]) {
        const name = call.startsWith('{"taskId"') ? 'TaskUpdate' : 'TaskCreate'
        const res = await t.call(
          'POST',
          '/v1/sessions/s1/rounds',
          JSON.stringify({
            dialect: 'claude-tasks',
            tool_calls: [{ name, arguments: call }],
          })
        )
        assert.equal(res.status, 200)
        assert.equal(res.body.results[0].is_error, true)
        assert.match(res.body.results[0].content, /nested more than 512 levels/)
      }
      // and metadata sent as a JSON string inside the input (Claude Code parses those)
      for (const call of [
        { name: 'TaskCreate', input: { subject: 's', description: 'd', metadata: meta } },
        { name: 'TaskUpdate', input: { taskId: '1', metadata: meta } },
      ]) {
        const res = await t.call(
          'POST',
          '/v1/sessions/s1/rounds',
          JSON.stringify({ dialect: 'claude-tasks', tool_calls: [call] })
        )
        assert.equal(res.status, 200)
        assert.equal(res.body.results[0].is_error, true)
      }
      // four refused rounds and three counted ones that changed nothing
      const after = await t.call('GET', '/v1/sessions/s1')
      assert.equal(after.body.items.length, 1)
      assert.equal(after.body.items[0].metadata, undefined)
      await stillServes(t, after.body.version)
    })
  }

  it('Should answer a 10,000-level round body with an Idempotency-Key with 400, not 500', async () => {
    const t = makeTestApp()
    const body = `{"tool_calls":[{"name":"todo","input":${nestedText(10_000)}}]}`
    const res = await t.call('POST', '/v1/sessions/s1/rounds', body, { 'Idempotency-Key': 'k1' })
    assert.equal(res.status, 400)
    assert.equal(res.body.type, 'https://agent-todos.dev/problems/body-too-deep')
    // the key was never claimed: a fixed request with it runs
    const ok = await t.call(
      'POST',
      '/v1/sessions/s1/rounds',
      { tool_calls: [{ name: 'bash' }] },
      { 'Idempotency-Key': 'k1' }
    )
    assert.equal(ok.status, 200)
  })

  it('Should answer a 513-level body with 400 on every route that reads JSON, and take 512', async () => {
    const t = await seeded()
    // the root object is level 1; `{"x":` + nestedText(n) is n + 1 levels
    const deep = `{"x":${nestedText(512)}}`
    const ok = `{"x":${nestedText(511)}}`
    for (const [method, path] of [
      ['POST', '/v1/sessions/s1/rounds'],
      ['PUT', '/v1/sessions/s1/todos'],
      ['POST', '/v1/sessions/s1/end'],
    ]) {
      const refused = await t.call(method, path, deep)
      assert.equal(refused.status, 400, `${method} ${path}`)
      assert.equal(refused.body.type, 'https://agent-todos.dev/problems/body-too-deep')
      const taken = await t.call(method, path, ok)
      // within the depth, the route's own schema answers
      assert.equal(taken.status, 400, `${method} ${path}`)
      assert.equal(taken.body.type, 'https://agent-todos.dev/problems/invalid-request')
    }
    const mcp = await t.call(
      'POST',
      '/mcp',
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"TaskCreate","arguments":{"subject":"s","description":"d","metadata":${metadataText(4150)}}}}`,
      { Accept: 'application/json, text/event-stream', 'X-Session-Id': 's1' }
    )
    assert.equal(mcp.status, 400)
    assert.equal(mcp.body.jsonrpc, '2.0')
    assert.equal(mcp.body.error.code, -32700)
    await stillServes(t, 1)
  })

  it('Should refuse metadata one level past MAX_JSON_DEPTH (422 on PUT, is_error in a round)', async () => {
    const t = await seeded()
    const put = await t.call('PUT', '/v1/sessions/s1/todos', putBody(metadataText(33)))
    assert.equal(put.status, 422)
    assert.equal(put.body.type, 'https://agent-todos.dev/problems/limit-exceeded')
    assert.match(put.body.detail, /MAX_JSON_DEPTH/)
    const res = await t.call(
      'POST',
      '/v1/sessions/s1/rounds',
      roundBody(`${create(metadataText(33))},${update(metadataText(33))}`)
    )
    assert.equal(res.status, 200)
    for (const result of res.body.results) {
      assert.equal(result.is_error, true)
      assert.match(result.content, /MAX_JSON_DEPTH/)
    }
    assert.equal(res.body.progress.total, 1)
    // at the limit, it is stored
    const atLimit = await t.call('PUT', '/v1/sessions/s1/todos', putBody(metadataText(32)))
    assert.equal(atLimit.status, 200)
    const taken = await t.call(
      'POST',
      '/v1/sessions/s1/rounds',
      roundBody(`${create(metadataText(32))},${update(metadataText(32))}`)
    )
    assert.deepEqual(
      taken.body.results.map((r: any) => r.is_error),
      [false, false]
    )
    await stillServes(t, taken.body.version)
  })

  it('Should follow a configured MAX_JSON_DEPTH', async () => {
    const t = makeTestApp({ limits: { maxJsonDepth: 4 } })
    const put = (depth: number) =>
      t.call('PUT', '/v1/sessions/s1/todos', putBody(metadataText(depth)))
    assert.equal((await put(4)).status, 200)
    const over = await put(5)
    assert.equal(over.status, 422)
    assert.match(over.body.detail, /at most 4 are allowed \(MAX_JSON_DEPTH\)/)
  })

  it('Should bound what dialects parse out of JSON strings (no recursion over it)', async () => {
    const t = makeTestApp()
    const deepList = `[${'['.repeat(20_000)}${']'.repeat(20_000)}]`
    const cases: { dialect: string; call: unknown }[] = [
      // s03 parses `items` sent as text, then prints an odd status
      {
        dialect: 's03',
        call: {
          name: 'todo',
          input: { items: `[{"id":"1","text":"a","status":${nestedText(20_000)}}]` },
        },
      },
      // OpenHands decodes a task_list string, then pydantic prints the input's repr
      {
        dialect: 'openhands-tracker',
        call: { name: 'task_tracker', input: { command: 'plan', task_list: deepList } },
      },
      // an unparseable arguments text: OpenHands reports where json.loads stops
      {
        dialect: 'openhands-tracker',
        call: { name: 'task_tracker', arguments: '['.repeat(20_000) },
      },
      // LangChain prints the kwargs' repr
      {
        dialect: 'langchain-todos',
        call: { name: 'write_todos', arguments: `{"todos":${deepList}}` },
      },
    ]
    for (const [i, { dialect, call }] of cases.entries()) {
      const res = await t.call(
        'POST',
        `/v1/sessions/d${i}/rounds`,
        JSON.stringify({ dialect, tool_calls: [call] })
      )
      assert.equal(res.status, 200, `${dialect}: ${res.text.slice(0, 200)}`)
      assert.equal(res.body.results[0].is_error, true, dialect)
    }
  })

  it("Should not store an observed agent's metadata past MAX_JSON_DEPTH, and keep serving", async () => {
    const t = makeTestApp()
    const hook = (id: string, name: string, input: string, response: string) =>
      `{"session_id":"deep","hook_event_name":"PostToolUse","tool_name":"${name}","tool_input":${input},"tool_response":${response},"tool_use_id":"${id}"}`
    const post = (body: string) => t.call('POST', '/v1/ingest/claude-code', body)
    const first = await post(
      hook(
        'toolu_1',
        'TaskCreate',
        '{"subject":"a","description":"d"}',
        '{"task":{"id":"1","subject":"a"}}'
      )
    )
    assert.equal(first.status, 200)
    // 500 levels: within the body's 512, far past the 32 a stored item may have
    for (const [id, name, input, response] of [
      [
        'toolu_2',
        'TaskCreate',
        `{"subject":"b","description":"d","metadata":${metadataText(500)}}`,
        '{"task":{"id":"2","subject":"b"}}',
      ],
      [
        'toolu_3',
        'TaskUpdate',
        `{"taskId":"1","metadata":${metadataText(500)}}`,
        '{"success":true,"taskId":"1","updatedFields":["metadata"]}',
      ],
    ]) {
      const res = await post(hook(id, name, input, response))
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, {})
    }
    const session = await t.call('GET', '/v1/sessions/claude:deep')
    assert.equal(session.status, 200)
    assert.equal(session.body.version, 1)
    assert.deepEqual(
      session.body.items.map((item: any) => [item.id, item.metadata]),
      [['1', undefined]]
    )
    assert.equal((await t.call('GET', '/v1/sessions/claude:deep/history')).status, 200)
    assert.equal((await t.call('GET', '/v1/sessions')).status, 200)
  })

  it("Should print Python's repr and json.loads errors of any depth without recursing", () => {
    const n = 100_000
    let deep: unknown = 1
    for (let i = 0; i < n; i++) deep = [deep]
    assert.equal(pyRepr(deep), '['.repeat(n) + '1' + ']'.repeat(n))
    assert.equal(pyRepr({ a: [1, { b: 'c' }], d: null }), "{'a': [1, {'b': 'c'}], 'd': None}")
    assert.equal(
      pyJsonError('['.repeat(n)),
      'maximum recursion depth exceeded while decoding a JSON array from a unicode string'
    )
    assert.equal(pyJsonError('['.repeat(100)), 'Expecting value: line 1 column 101 (char 100)')
  })
})
