import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp } from '../helpers.js'
import {
  fixtureJson,
  fixtureLines,
  fixtureText,
  historyRows,
  ingest,
  postHooks,
  rows,
  view,
} from '../ingest-support.js'

const H = 'Write the /health handler'
const T = 'Add a test for /health'
const R = 'Update the README'
const ROUTE = 'claude-agent-sdk'

describe('POST /v1/ingest/claude-agent-sdk', () => {
  it('Should build the list from a whole stream-json log: results win over a rewritten input, a refused call leaves nothing', async () => {
    const t = makeTestApp()
    const res = await ingest(t, ROUTE, fixtureText('claude-agent-sdk/todowrite.ndjson'))
    assert.equal(res.status, 200)
    const id = 'claude:c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8'
    // applied: init, four calls, three results, the result frame; ignored: the refused call's
    // result, and what only says the agent is alive (text, ToolSearch and its result).
    // One version per list the agent had, as line by line: init, three lists, the end
    assert.deepEqual(res.body, { session_id: id, version: 5, applied: 9, ignored: 5 })
    const session = await view(t, id)
    assert.equal(session.source, 'claude-agent-sdk')
    assert.equal(session.dialect, 'claude-todowrite')
    assert.equal(session.observed.todo_tools, true)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'completed', R],
    ])
    assert.deepEqual(session.ended, {
      outcome: 'completed',
      detail: null,
      at: '2026-11-30T12:00:00.000Z',
      unfinished: [],
    })
  })

  it('Should give the same session one line per request, with one version per change', async () => {
    const t = makeTestApp()
    const id = 'claude:c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8'
    for (const line of fixtureLines('claude-agent-sdk/todowrite.ndjson')) {
      assert.equal((await ingest(t, ROUTE, line)).status, 200)
    }
    assert.deepEqual(await historyRows(t, id), [
      [1, 'ingest', []],
      [
        2,
        'ingest',
        [
          ['1', 'in_progress', H],
          ['2', 'pending', T],
          ['3', 'pending', R],
        ],
      ],
      // what the tool stored after a hook rewrote the call, not the model's input
      [
        3,
        'ingest',
        [
          ['1', 'completed', H],
          ['2', 'in_progress', T],
          ['3', 'pending', R],
        ],
      ],
      [
        4,
        'ingest',
        [
          ['1', 'completed', H],
          ['2', 'completed', T],
          ['3', 'completed', R],
        ],
      ],
      [
        5,
        'ingest',
        [
          ['1', 'completed', H],
          ['2', 'completed', T],
          ['3', 'completed', R],
        ],
      ],
    ])
  })

  it('Should apply a stream posted twice, or in overlapping parts, once', async () => {
    const t = makeTestApp()
    const text = fixtureText('claude-agent-sdk/todowrite.ndjson')
    const lines = fixtureLines('claude-agent-sdk/todowrite.ndjson')
    await ingest(t, ROUTE, lines.slice(0, 8).join('\n'))
    await ingest(t, ROUTE, lines.slice(4).join('\n'))
    const again = await ingest(t, ROUTE, text)
    assert.deepEqual(again.body.applied, 0)
    // init, three lists, the end: nothing twice
    assert.equal(again.body.version, 5)
  })

  it('Should end a max-turns run as max_turns, and keep it when the SessionEnd hook follows', async () => {
    const t = makeTestApp()
    const res = await ingest(t, ROUTE, fixtureText('claude-agent-sdk/max-turns.ndjson'))
    const id = res.body.session_id
    const session = await view(t, id)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', 'Split the parser'],
      ['2', 'in_progress', 'Run the tests'],
    ])
    assert.deepEqual(session.ended, {
      outcome: 'max_turns',
      detail: 'Reached maximum number of turns (3)',
      at: '2026-11-30T12:00:00.000Z',
      unfinished: ['2'],
    })
    // --max-turns fires SessionEnd (no Stop): a less specific end of the same run
    const sessionEnd = {
      session_id: id.slice('claude:'.length),
      transcript_path: '/home/user/.claude/projects/-home-user-project/x.jsonl',
      cwd: '/home/user/project',
      hook_event_name: 'SessionEnd',
      reason: 'other',
    }
    await postHooks(t, 'claude-code', [sessionEnd])
    const after = await view(t, id)
    assert.equal(after.ended.outcome, 'max_turns')
    assert.equal(after.version, session.version)
    const ended = await t.call('GET', '/v1/sessions?state=ended')
    assert.equal(ended.body.sessions[0].ended.outcome, 'max_turns')
  })

  it('Should let the stream’s specific end replace a SessionEnd hook that arrived first', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('claude-agent-sdk/max-turns.ndjson')
    await ingest(t, ROUTE, lines.slice(0, -1).join('\n'))
    const id = 'claude:d2b3c4d5-e6f7-4081-92a3-b4c5d6e7f809'
    await postHooks(t, 'claude-code', [
      { session_id: id.slice(7), hook_event_name: 'SessionEnd', reason: 'other' },
    ])
    assert.equal((await view(t, id)).ended.outcome, 'cancelled')
    await ingest(t, ROUTE, lines.at(-1)!)
    assert.equal((await view(t, id)).ended.outcome, 'max_turns')
  })

  it('Should feed one session from hooks and stream of the same run without applying a call twice', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('claude-agent-sdk/todowrite.ndjson')
    const sid = 'c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8'
    // the hooks of the same calls (same tool_use_id), first
    const results = lines
      .map((line) => JSON.parse(line))
      .filter((m: any) => m.tool_use_result?.newTodos)
    const hooks = results.map((m: any) => ({
      session_id: sid,
      hook_event_name: 'PostToolUse',
      tool_name: 'TodoWrite',
      tool_input: { todos: m.tool_use_result.newTodos },
      tool_response: m.tool_use_result,
      tool_use_id: m.message.content[0].tool_use_id,
    }))
    await postHooks(t, 'claude-code', hooks)
    const res = await ingest(t, ROUTE, lines.join('\n'))
    // the three tool results were applied by the hooks: what applies is init, the refused call
    // (no hook fires for it) and the result frame
    assert.equal(res.body.applied, 3)
    const session = await view(t, `claude:${sid}`)
    assert.equal(session.source, 'claude-code')
    assert.equal(session.ended.outcome, 'completed')
    assert.equal((await historyRows(t, `claude:${sid}`)).length, 4)
  })

  it('Should adopt TaskCreate ids from tool_use_result, leave a refused create out, and repair TaskUpdate keys', async () => {
    const t = makeTestApp()
    const res = await ingest(t, ROUTE, fixtureText('claude-agent-sdk/tasks.ndjson'))
    const session = await view(t, res.body.session_id)
    assert.equal(session.dialect, 'claude-tasks')
    assert.deepEqual(
      session.items.map((i: any) => [
        i.id,
        i.status,
        i.content,
        i.active_form,
        i.blocks,
        i.blocked_by,
      ]),
      [
        ['1', 'in_progress', H, 'Writing /health', ['2'], []],
        ['2', 'pending', T, 'Adding a test for /health', [], ['1']],
      ]
    )
  })

  it('Should keep a TaskUpdate whose result names fields but not their values until the result, across requests', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('claude-agent-sdk/tasks.ndjson')
    for (const line of lines) await ingest(t, ROUTE, line)
    const session = await view(t, 'claude:4514d74d-934e-49cf-8a04-372f81b1b368')
    assert.equal(session.items[0].active_form, 'Writing /health')
    assert.equal(session.observed.pending_calls, 0)
  })

  it("Should keep a subagent's list (no tool_use_result in its lines) as its own session, ended with the run", async () => {
    const t = makeTestApp()
    const res = await ingest(t, ROUTE, fixtureText('claude-agent-sdk/subagent.ndjson'))
    const main = 'claude:8bd8583d-b818-4c4c-9f3d-4e09f0910f92'
    const sub = `${main}:agent:a1e89c6d4a7f2e331`
    assert.equal(res.body.session_id, main)
    const subView = await view(t, sub)
    assert.equal(subView.parent, main)
    assert.deepEqual(rows(subView.items), [
      ['1', 'completed', 'Read the source'],
      ['2', 'completed', 'Write the findings'],
    ])
    assert.equal(subView.ended.outcome, 'completed')
    const mainView = await view(t, main)
    assert.deepEqual(mainView.observed.subagents, [sub])
    assert.deepEqual(rows(mainView.items), [
      ['1', 'completed', 'Ask a helper to review'],
      ['2', 'completed', 'Summarize the review'],
    ])
  })

  it('Should stage a subagent call posted alone and apply it when its result comes', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('claude-agent-sdk/subagent.ndjson')
    const sub = 'claude:8bd8583d-b818-4c4c-9f3d-4e09f0910f92:agent:a1e89c6d4a7f2e331'
    for (const line of lines.slice(0, 6)) await ingest(t, ROUTE, line)
    const staged = await view(t, sub)
    assert.deepEqual(staged.items, [])
    assert.equal(staged.observed.pending_calls, 1)
    await ingest(t, ROUTE, lines[6])
    const applied = await view(t, sub)
    assert.equal(applied.observed.pending_calls, 0)
    assert.deepEqual(rows(applied.items), [
      ['1', 'in_progress', 'Read the source'],
      ['2', 'pending', 'Write the findings'],
    ])
  })

  it('Should skip replayed history (isReplay) when a session resumes', async () => {
    const t = makeTestApp()
    const res = await ingest(t, ROUTE, fixtureText('claude-agent-sdk/resume-replay.ndjson'))
    assert.equal(res.body.ignored, 2)
    const session = await view(t, res.body.session_id)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'completed', R],
    ])
    // the list the resumed run wrote, then its end
    assert.equal((await historyRows(t, res.body.session_id)).length, 2)
  })

  it('Should record a session without todo tools (system/init.tools)', async () => {
    const t = makeTestApp()
    const res = await ingest(t, ROUTE, fixtureText('claude-agent-sdk/no-todo-tools.ndjson'))
    const session = await view(t, res.body.session_id)
    assert.equal(session.observed.todo_tools, false)
    assert.deepEqual(session.items, [])
    assert.equal(session.ended.outcome, 'completed')
    const listing = await t.call('GET', '/v1/sessions')
    assert.equal(listing.body.sessions[0].todo_tools, false)
  })

  it("Should read the Python SDK's messages ({type: class name, **asdict})", async () => {
    const t = makeTestApp()
    const res = await ingest(t, ROUTE, fixtureJson('claude-agent-sdk/python.json'))
    assert.equal(res.status, 200)
    const session = await view(t, 'claude:a5e6f708-192a-4b4c-85d6-e7f8091a2b3c')
    assert.deepEqual(rows(session.items), [
      ['1', 'in_progress', H],
      ['2', 'pending', T],
      ['3', 'pending', R],
    ])
    assert.equal(session.ended.outcome, 'completed')
  })

  it('Should read a user frame without session_id through ?session_id=, and refuse it without', async () => {
    const t = makeTestApp()
    const [, user] = fixtureJson('claude-agent-sdk/python.json').slice(1)
    const refused = await ingest(t, ROUTE, user)
    assert.equal(refused.status, 400)
    assert.equal(refused.body.type, 'https://agent-todos.dev/problems/session-unknown')
    const ok = await ingest(t, ROUTE, user, '?session_id=ci-42')
    assert.equal(ok.status, 200)
    assert.equal(ok.body.session_id, 'ci-42')
    assert.deepEqual(rows((await view(t, 'ci-42')).items).length, 3)
  })
})
