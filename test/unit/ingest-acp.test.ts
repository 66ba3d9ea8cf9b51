/**
 * POST /v1/ingest/acp: replays of real ACP connections as `agent-todos acp` teed them
 * (test/fixtures/ingest/acp/, README.md there) and hand-made JSON-RPC messages.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, type TestApp } from '../helpers.js'
import { fixtureLines, historyRows, ingest, rows, view } from '../ingest-support.js'

const H = 'Write the /health handler'
const T = 'Add a test for /health'
const R = 'Update the README'

const QWEN = 'acp:43ca8073-0a26-43ec-9040-62212b2250c0'
const CLAUDE = 'acp:f77cb35b-128a-48bf-8a84-6a874264a914'
const OPENCODE = 'acp:ses_dc9de3e65ffeXztEApBmcIuuGQ'
const COPILOT = 'acp:732135c4-b64e-42d9-a707-dd804fb560b8'

const post = (t: TestApp, lines: string[], query = '') => ingest(t, 'acp', lines.join('\n'), query)

/** The index of the first line whose message is `method` (or answers the request of that line). */
const lineOf = (lines: string[], test: (value: any) => boolean) =>
  lines.findIndex((line) => test(JSON.parse(line)))

const isPermission = (value: any) => value.message?.method === 'session/request_permission'

/** A session/update notification of `session`. */
const update = (session: string, body: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: session, update: body },
})

const entry = (content: string, status: string) => ({ content, status, priority: 'medium' })

describe('POST /v1/ingest/acp', () => {
  it('Should mirror Qwen Code’s plan with its own ids, and end the run with the prompt’s end_turn', async () => {
    const t = makeTestApp()
    const res = await post(t, fixtureLines('acp/qwen-wire.ndjson'))
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.session_id, QWEN)
    const session = await view(t, QWEN)
    assert.equal(session.source, 'acp')
    assert.equal(session.dialect, 'opencode-todos')
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'in_progress', R],
    ])
    assert.deepEqual(session.items[0].metadata, { priority: 'medium' })
    assert.equal(session.waiting, null)
    assert.equal(session.ended.outcome, 'completed')
    assert.equal(session.ended.detail, 'end_turn')
    // one version per plan (the refused todo_write sent none), the end last
    const lists = (await historyRows(t, QWEN))
      .map((entry: any) => entry[2])
      .filter((list: unknown[]) => list.length)
    assert.deepEqual(lists.at(-1), rows(session.items))
    assert.deepEqual(lists[0], [
      ['1', 'in_progress', H],
      ['2', 'pending', T],
      ['3', 'pending', R],
    ])
  })

  it('Should take session/new’s cwd, the model it opened with and the agent of initialize', async () => {
    const t = makeTestApp()
    const expected = [
      ['qwen', QWEN, 'qwen3-coder-plus', 'qwen-code 0.24.4'],
      ['claude', CLAUDE, 'default', '@agentclientprotocol/claude-agent-acp 0.101.0'],
      ['opencode', OPENCODE, 'fake/fake-model', 'OpenCode 1.18.33'],
      ['copilot', COPILOT, null, 'Copilot 1.0.102'],
    ] as const
    for (const [wire, id, model, version] of expected) {
      const res = await post(t, fixtureLines(`acp/${wire}-wire.ndjson`))
      assert.equal(res.status, 200, res.text)
      const { origin } = await view(t, id)
      assert.equal(origin.cwd, '/tmp/acp-run/project', wire)
      assert.equal(origin.model, model, wire)
      assert.equal(origin.agent_version, version, wire)
      assert.equal(origin.agent, 'acp', wire)
    }
  })

  it('Should mark the session waiting on session/request_permission until its answer', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('acp/qwen-wire.ndjson')
    const asked = lineOf(lines, isPermission)
    assert.ok(asked > 0)
    await post(t, lines.slice(0, asked + 1))
    const waiting = await view(t, QWEN)
    assert.equal(waiting.waiting.reason, 'permission_prompt')
    assert.equal(waiting.waiting.message, 'Writing to health.js')
    assert.equal(waiting.ended, null)
    // the answer comes alone: the tap's line names its session
    await post(t, lines.slice(asked + 1, asked + 2))
    const answered = await view(t, QWEN)
    assert.equal(answered.waiting, null)
    assert.ok(answered.version > waiting.version)
    await post(t, lines.slice(asked + 2))
    assert.equal((await view(t, QWEN)).ended.outcome, 'completed')
  })

  it('Should keep the wait through updates the agent streams in later deliveries, until the answer', async () => {
    // a real qwen --acp run: its available_commands_update came in the tap's next batch, after
    // the permission request and before the answer, and cleared the wait it should have kept
    const t = makeTestApp()
    const session = QWEN.slice('acp:'.length)
    const lines = fixtureLines('acp/qwen-wire.ndjson')
    const asked = lineOf(lines, isPermission)
    await post(t, lines.slice(0, asked + 1))
    const waiting = await view(t, QWEN)
    assert.equal(waiting.waiting.reason, 'permission_prompt')
    for (const body of [
      update(session, { sessionUpdate: 'available_commands_update', availableCommands: [] }),
      update(session, { sessionUpdate: 'usage_update', used: 1, size: 2 }),
      { jsonrpc: '2.0', id: 99, method: 'craft/drainMidTurnQueue', params: { sessionId: session } },
    ]) {
      const res = await post(t, [JSON.stringify(body)])
      assert.equal(res.status, 200, res.text)
      const still = await view(t, QWEN)
      assert.equal(still.waiting?.reason, 'permission_prompt', JSON.stringify(body))
      assert.equal(still.version, waiting.version)
    }
    await post(t, lines.slice(asked + 1, asked + 2))
    assert.equal((await view(t, QWEN)).waiting, null)
  })

  it('Should apply a connection posted twice, or in overlapping parts, once', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('acp/qwen-wire.ndjson')
    await post(t, lines.slice(0, 20))
    await post(t, lines)
    const once = await view(t, QWEN)
    const again = await post(t, lines)
    assert.equal(again.status, 200)
    assert.equal(again.body.version, once.version)
    assert.equal(again.body.applied, 0)
    assert.deepEqual(await view(t, QWEN), once)
    // an old part replayed after the end neither reopens the run nor rolls the list back
    await post(t, lines.slice(0, 15))
    assert.deepEqual(await view(t, QWEN), once)
  })

  it('Should keep one identity per item across the Claude adapter’s activeForm texts', async () => {
    const t = makeTestApp()
    const res = await post(t, fixtureLines('acp/claude-wire.ndjson'))
    assert.equal(res.status, 200, res.text)
    const session = await view(t, CLAUDE)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'in_progress', R],
    ])
    assert.equal(session.items[2].active_form, 'Updating the README')
    assert.equal(session.waiting, null)
    assert.equal(session.ended.outcome, 'completed')
    const lists = (await historyRows(t, CLAUDE))
      .map((entry: any) => entry[2])
      .filter((list: unknown[]) => list.length)
    // first seen in progress, an item reads as its activeForm until it is done
    assert.deepEqual(lists[0], [
      ['1', 'in_progress', 'Writing the /health handler'],
      ['2', 'pending', T],
      ['3', 'pending', R],
    ])
    assert.ok(
      lists.some(
        (list: string[][]) =>
          JSON.stringify(list) ===
          JSON.stringify([
            ['1', 'completed', H],
            ['2', 'in_progress', T],
            ['3', 'pending', R],
          ])
      ),
      JSON.stringify(lists)
    )
  })

  it('Should follow in_progress entries whose text changes, by position, without ids', async () => {
    const t = makeTestApp()
    const s = 'claude-like'
    const plans = [
      [entry('A', 'pending'), entry('B', 'pending'), entry('C', 'pending')],
      [entry('Doing A', 'in_progress'), entry('B', 'pending'), entry('C', 'pending')],
      [entry('A', 'completed'), entry('Doing B', 'in_progress'), entry('C', 'pending')],
      // a step added in front while B is still in progress: B keeps its identity by its active_form
      [
        entry('A0', 'pending'),
        entry('A', 'completed'),
        entry('Doing B', 'in_progress'),
        entry('C', 'pending'),
      ],
      [
        entry('A0', 'pending'),
        entry('A', 'completed'),
        entry('B', 'completed'),
        entry('C', 'pending'),
      ],
    ]
    for (const entries of plans) {
      const res = await ingest(t, 'acp', update(s, { sessionUpdate: 'plan', entries }))
      assert.equal(res.status, 200, res.text)
    }
    const session = await view(t, `acp:${s}`)
    assert.deepEqual(rows(session.items), [
      ['4', 'pending', 'A0'],
      ['1', 'completed', 'A'],
      ['2', 'completed', 'B'],
      ['3', 'pending', 'C'],
    ])
  })

  it('Should read opencode’s list from its todowrite tool call’s rawInput, once the call completed', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('acp/opencode-wire.ndjson')
    // the running call (rawInput.todos) and its completion in two deliveries
    const running = lineOf(lines, (v) => v.message?.params?.update?.status === 'in_progress')
    await post(t, lines.slice(0, running + 1))
    assert.deepEqual((await view(t, OPENCODE)).items, [])
    await post(t, lines.slice(running + 1))
    const session = await view(t, OPENCODE)
    assert.equal(session.dialect, 'opencode-todos')
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'in_progress', T],
      ['3', 'pending', R],
    ])
    assert.equal(session.ended.outcome, 'completed')
  })

  it('Should take a todowrite result alone from its rawOutput.metadata.todos, and not apply a failed one', async () => {
    const t = makeTestApp()
    const s = 'oc-parts'
    const todos = [
      { content: H, status: 'completed', priority: 'high' },
      { content: T, status: 'doing', priority: 'low' },
    ]
    await ingest(t, 'acp', [
      update(s, {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'failed',
        rawInput: { todos: [] },
      }),
      update(s, {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c2',
        status: 'completed',
        title: '1 todos',
        rawOutput: {
          output: JSON.stringify(todos, null, 2),
          metadata: { todos, truncated: false },
        },
      }),
    ])
    const session = await view(t, `acp:${s}`)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'pending', T],
    ])
    assert.deepEqual(session.items[1].metadata, { priority: 'low', status: 'doing' })
  })

  it('Should not let Copilot’s empty plan make a list, and clear a list a plan filled', async () => {
    const t = makeTestApp()
    const res = await post(t, fixtureLines('acp/copilot-wire.ndjson'))
    assert.equal(res.status, 200, res.text)
    const copilot = await view(t, COPILOT)
    assert.deepEqual(copilot.items, [])
    assert.equal(copilot.ended.outcome, 'completed')
    const s = 'cleared'
    await ingest(t, 'acp', update(s, { sessionUpdate: 'plan', entries: [entry(H, 'pending')] }))
    await ingest(t, 'acp', update(s, { sessionUpdate: 'plan', entries: [] }))
    assert.deepEqual((await view(t, `acp:${s}`)).items, [])
    assert.equal((await historyRows(t, `acp:${s}`)).length, 2)
  })

  it('Should match answers by JSON-RPC id in unwrapped messages, whichever side asked', async () => {
    const t = makeTestApp()
    const s = 'raw'
    const res = await ingest(t, 'acp', [
      { jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: s, prompt: [] } },
      update(s, { sessionUpdate: 'plan', entries: [entry(H, 'in_progress')] }),
      // the agent's own request with the same id as the client's prompt
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'session/request_permission',
        params: { sessionId: s, toolCall: { toolCallId: 't1', title: 'Write x' }, options: [] },
      },
    ])
    assert.equal(res.status, 200, res.text)
    assert.equal((await view(t, `acp:${s}`)).waiting.message, 'Write x')
    // answered (no session in the message: the request in the same body names it), then the turn ends
    await ingest(t, 'acp', [
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'session/request_permission',
        params: { sessionId: s, toolCall: { toolCallId: 't1', title: 'Write x' }, options: [] },
      },
      { jsonrpc: '2.0', id: 3, result: { outcome: { outcome: 'selected', optionId: 'allow' } } },
      { jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: s, prompt: [] } },
      { jsonrpc: '2.0', id: 3, result: { stopReason: 'cancelled' } },
    ])
    const session = await view(t, `acp:${s}`)
    assert.equal(session.waiting, null)
    assert.equal(session.ended.outcome, 'cancelled')
  })

  it('Should end the run by its stop reason, and open it again with the next prompt', async () => {
    const t = makeTestApp()
    const s = 'turns'
    const wrap = (seq: number, from: string, message: unknown) => ({
      from,
      connection: 'c1',
      seq,
      session: s,
      message,
    })
    await ingest(t, 'acp', [
      wrap(0, 'client', {
        jsonrpc: '2.0',
        id: 1,
        method: 'session/prompt',
        params: { sessionId: s, prompt: [] },
      }),
      wrap(1, 'agent', update(s, { sessionUpdate: 'plan', entries: [entry(H, 'in_progress')] })),
      wrap(2, 'agent', { jsonrpc: '2.0', id: 1, result: { stopReason: 'max_turn_requests' } }),
    ])
    assert.equal((await view(t, `acp:${s}`)).ended.outcome, 'max_turns')
    await ingest(t, 'acp', [
      wrap(3, 'client', {
        jsonrpc: '2.0',
        id: 2,
        method: 'session/prompt',
        params: { sessionId: s, prompt: [] },
      }),
    ])
    assert.equal((await view(t, `acp:${s}`)).ended, null)
    // the request came in an earlier delivery: the tap names what the response answers
    await ingest(t, 'acp', [
      {
        ...wrap(4, 'agent', {
          jsonrpc: '2.0',
          id: 2,
          error: { code: -32603, message: 'Internal error' },
        }),
        request: 'session/prompt',
      },
    ])
    assert.deepEqual(
      (({ outcome, detail }) => ({ outcome, detail }))((await view(t, `acp:${s}`)).ended),
      { outcome: 'error', detail: 'Internal error' }
    )
    // the tap's exit line after a finished turn changes nothing; mid-turn, it ends the run
    await ingest(t, 'acp', [
      wrap(5, 'client', {
        jsonrpc: '2.0',
        id: 3,
        method: 'session/prompt',
        params: { sessionId: s, prompt: [] },
      }),
      {
        from: 'tap',
        connection: 'c1',
        seq: 6,
        session: s,
        exit: { code: null, signal: 'SIGTERM' },
      },
    ])
    const ended = (await view(t, `acp:${s}`)).ended
    assert.equal(ended.outcome, 'cancelled')
    assert.equal(ended.detail, 'signal SIGTERM')
  })

  it('Should read the tap’s {dir, msg} lines as the older {from, message} ones: the same sessions', async () => {
    const expected = [
      ['qwen', QWEN],
      ['claude', CLAUDE],
      ['opencode', OPENCODE],
      ['copilot', COPILOT],
    ] as const
    for (const [agent, id] of expected) {
      const older = makeTestApp()
      const current = makeTestApp()
      assert.equal((await post(older, fixtureLines(`acp/${agent}-wire.ndjson`))).status, 200)
      const res = await post(current, fixtureLines(`acp/${agent}-tap.ndjson`))
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.session_id, id)
      assert.deepEqual(await view(current, id), await view(older, id), agent)
      assert.deepEqual(await historyRows(current, id), await historyRows(older, id), agent)
    }
  })

  it('Should keep a wait when a batch is posted again: tap lines of either form, and bare messages', async () => {
    // a real qwen --acp connection up to its permission request, posted twice (a forwarder's
    // retry): the replay's session/new result, responses and known plans cleared the wait
    const bare = (line: string) => {
      const value = JSON.parse(line)
      return JSON.stringify(value.msg ?? value.message ?? value)
    }
    for (const [form, file, map] of [
      ['{dir, msg}', 'acp/qwen-tap.ndjson', (line: string) => line],
      ['{from, message}', 'acp/qwen-wire.ndjson', (line: string) => line],
      ['bare', 'acp/qwen-wire.ndjson', bare],
    ] as const) {
      const t = makeTestApp()
      const lines = fixtureLines(file)
      const asked = lineOf(
        lines,
        (v) => (v.msg ?? v.message)?.method === 'session/request_permission'
      )
      const part = lines.slice(0, asked + 1).map(map)
      await post(t, part)
      const waiting = await view(t, QWEN)
      assert.equal(waiting.waiting?.reason, 'permission_prompt', form)
      for (let i = 0; i < 2; i++) {
        t.clock.now += 60_000
        const again = await post(t, part)
        assert.equal(again.status, 200, again.text)
        assert.equal(again.body.applied, 0, form)
        const still = await view(t, QWEN)
        assert.equal(still.waiting?.reason, 'permission_prompt', form)
        assert.equal(still.version, waiting.version, form)
      }
      if (form === 'bare') continue
      // the answer clears it; the whole connection posted again then brings no wait back
      await post(t, lines.slice(asked + 1, asked + 2))
      assert.equal((await view(t, QWEN)).waiting, null, form)
      await post(t, lines)
      const done = await view(t, QWEN)
      await post(t, lines.slice(0, asked + 2))
      assert.deepEqual(await view(t, QWEN), done, form)
    }
  })

  it('Should not let an old answer posted again clear a later wait', async () => {
    const t = makeTestApp()
    const s = 'two-asks'
    const line = (seq: number, dir: string, msg: unknown) => ({ dir, connection: 'c2', seq, msg })
    const ask = (id: number, title: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'session/request_permission',
      params: { sessionId: s, toolCall: { toolCallId: title, title }, options: [] },
    })
    const first = [
      line(0, 'client->agent', {
        jsonrpc: '2.0',
        id: 1,
        method: 'session/prompt',
        params: { sessionId: s, prompt: [] },
      }),
      line(1, 'agent->client', ask(0, 'Write a')),
      line(2, 'client->agent', {
        jsonrpc: '2.0',
        id: 0,
        result: { outcome: { outcome: 'selected' } },
      }),
    ]
    await ingest(t, 'acp', first)
    assert.equal((await view(t, `acp:${s}`)).waiting, null)
    await ingest(t, 'acp', [line(3, 'agent->client', ask(1, 'Write b'))])
    assert.equal((await view(t, `acp:${s}`)).waiting?.message, 'Write b')
    // the first batch again (a retry that arrived late): its answer was the first ask's
    const again = await ingest(t, 'acp', first)
    assert.equal(again.status, 200, again.text)
    assert.equal((await view(t, `acp:${s}`)).waiting?.message, 'Write b')
  })

  it('Should answer a request only by a response of the other direction ({dir, msg})', async () => {
    const t = makeTestApp()
    const s = 'dirs'
    const line = (seq: number, dir: string, msg: unknown) => ({ dir, connection: 'c3', seq, msg })
    const res = await ingest(t, 'acp', [
      // the editor's prompt and the agent's permission request, both id 2
      line(0, 'client->agent', {
        jsonrpc: '2.0',
        id: 2,
        method: 'session/prompt',
        params: { sessionId: s, prompt: [] },
      }),
      line(1, 'agent->client', {
        jsonrpc: '2.0',
        id: 2,
        method: 'session/request_permission',
        params: { sessionId: s, toolCall: { toolCallId: 't', title: 'Write x' }, options: [] },
      }),
      // the agent's error response: it answers the editor's prompt, not its own request
      line(2, 'agent->client', { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'boom' } }),
    ])
    assert.equal(res.status, 200, res.text)
    const session = await view(t, `acp:${s}`)
    assert.equal(session.ended?.outcome, 'error')
    assert.equal(session.ended?.detail, 'boom')
    // a line whose dir is neither direction is not the tap's
    const bad = await ingest(t, 'acp', [
      { dir: 'sideways', msg: { jsonrpc: '2.0', method: 'session/update', params: {} } },
    ])
    assert.equal(bad.status, 400)
  })

  it('Should refuse a body that is not ACP JSON-RPC, applying nothing of it', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'acp', [
      update('bad', { sessionUpdate: 'plan', entries: [entry(H, 'pending')] }),
      { hello: 'world' },
    ])
    assert.equal(res.status, 400)
    assert.equal((await t.call('GET', '/v1/sessions/acp:bad')).status, 404)
    // only the handshake: no session to feed, nothing to apply: accepted and ignored (SPEC)
    const handshake = await ingest(t, 'acp', [
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} },
    ])
    assert.equal(handshake.status, 200)
    assert.deepEqual(handshake.body, { session_id: null, version: null, applied: 0, ignored: 1 })
  })
})
