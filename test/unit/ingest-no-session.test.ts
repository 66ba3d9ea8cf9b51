/**
 * A body that names no session (SPEC "Observe"): with nothing to apply (a server's `connected`,
 * a heartbeat, an ACP `initialize`, an unknown event) it is accepted and ignored,
 * `200 {session_id: null, version: null, applied: 0, ignored: <n>}`, on every agent route; with
 * something to apply it is a 400 `session-unknown`, and nothing is stored either way.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp } from '../helpers.js'
import { ingest } from '../ingest-support.js'

/** Per route: bodies of nothing to apply, naming no session. */
const NOTHING: [route: string, body: unknown, values: number][] = [
  ['opencode', { type: 'server.connected', properties: {} }, 1],
  [
    'opencode',
    '{"type":"server.connected","properties":{}}\n{"type":"server.heartbeat","properties":{}}',
    2,
  ],
  ['opencode?agent=kilo', { type: 'server.heartbeat', properties: {} }, 1],
  ['acp', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }, 1],
  [
    'acp',
    [
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } },
      {
        jsonrpc: '2.0',
        id: 0,
        result: { protocolVersion: 1, agentInfo: { name: 'a', version: '1' } },
      },
    ],
    2,
  ],
  [
    'acp',
    {
      dir: 'client->agent',
      msg: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } },
    },
    1,
  ],
  ['claude-agent-sdk', { type: 'keep_alive' }, 1],
  ['codex', { type: 'no.such.event' }, 1],
  ['gemini-cli', { type: 'no.such.event' }, 1],
  ['qwen-code', { type: 'no.such.event' }, 1],
  ['copilot', { type: 'no.such.event' }, 1],
]

/** Per route: bodies with something to apply that cannot say whose it is. */
const ORPHANS: [route: string, body: unknown][] = [
  [
    'claude-agent-sdk',
    {
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }],
      },
    },
  ],
  [
    'codex',
    {
      type: 'item.completed',
      item: { id: 'i', type: 'todo_list', items: [{ text: 'a', completed: false }] },
    },
  ],
  ['gemini-cli', { type: 'tool_result', tool_id: 'x', status: 'success', output: '' }],
  [
    'qwen-code',
    {
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }],
      },
    },
  ],
  ['copilot', { type: 'tool.execution_complete', data: { toolCallId: 'x', success: true } }],
  // activity keeps a session from going stale and clears a wait: something to apply
  ['codex', { type: 'turn.started' }],
]

describe('An ingest body that names no session', () => {
  it('Should accept and ignore one that holds nothing to apply, on every agent route', async () => {
    const t = makeTestApp()
    for (const [route, body, values] of NOTHING) {
      const res = await ingest(t, route, body)
      const what = `${route} ${JSON.stringify(body).slice(0, 80)}`
      assert.equal(res.status, 200, `${what}: ${res.text}`)
      assert.deepEqual(
        res.body,
        { session_id: null, version: null, applied: 0, ignored: values },
        what
      )
    }
    const listed = await t.call('GET', '/v1/sessions')
    assert.deepEqual(listed.body.sessions, [])
  })

  it('Should still refuse one that holds something to apply, naming ?session_id=', async () => {
    const t = makeTestApp()
    for (const [route, body] of ORPHANS) {
      const res = await ingest(t, route, body)
      const what = `${route} ${JSON.stringify(body).slice(0, 80)}`
      assert.equal(res.status, 400, `${what}: ${res.text}`)
      assert.equal(res.body.type, 'https://agent-todos.dev/problems/session-unknown', what)
    }
    assert.deepEqual((await t.call('GET', '/v1/sessions')).body.sessions, [])
  })

  it('Should count ignored events of no session beside a session the body names', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'opencode', [
      { type: 'server.connected', properties: {} },
      { type: 'session.status', properties: { sessionID: 'ses_1', status: { type: 'busy' } } },
    ])
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.session_id, 'opencode:ses_1')
    assert.equal(res.body.applied, 0)
  })

  it('Should feed the caller’s ?session_id= as before', async () => {
    const t = makeTestApp()
    const res = await ingest(
      t,
      'acp',
      { jsonrpc: '2.0', id: 0, method: 'initialize' },
      '?session_id=ci-1'
    )
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.session_id, 'ci-1')
    assert.equal(res.body.version, 0)
  })

  it('Should reply {} to Claude Code, as always', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'claude-code', {
      session_id: 's1',
      hook_event_name: 'NoSuchEvent',
      transcript_path: '/tmp/x',
      cwd: '/tmp',
    })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(res.body, {})
  })
})
