/**
 * Qwen Code observed (`POST /v1/ingest/qwen-code`): the real hooks and stream of Qwen Code 0.24.4
 * (test/fixtures/ingest/qwen-code/real-*, REAL-CAPTURES.md) replayed through the route.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { detectAgent, streamFlagProblem } from '../../src/cli/observe.js'
import { sourceLabel, todoToolsNote } from '../../src/cli/render.js'
import { makeTestApp, type TestApp } from '../helpers.js'
import {
  fixtureJson,
  fixtureLines,
  historyRows,
  ingest,
  postHooks,
  rows,
  view,
} from '../ingest-support.js'

const HOOKS: any[] = fixtureJson('qwen-code/real-todos.json')
const STREAM = fixtureLines('qwen-code/real-todos.ndjson')
const PERMISSION: any[] = fixtureJson('qwen-code/real-permission.json')
const PERMISSION_STREAM = fixtureLines('qwen-code/real-permission.ndjson')
const SESSION = `qwen:${HOOKS[0].session_id}`
const STREAM_SESSION = `qwen:${JSON.parse(STREAM[0]).session_id}`

/** The list Qwen's tool holds at the end of the todos run (its last accepted write). */
const FINAL = [
  ['1', 'completed', 'Write the /health handler'],
  ['2', 'completed', 'Add a test for /health'],
  ['3', 'in_progress', 'Update the README'],
  ['4', 'pending', 'Run the linter'],
]

/** Every list the tool wrote, in order (the refused and the no-op writes are not among them). */
const WRITTEN = [
  [
    ['1', 'in_progress', 'Write the /health handler'],
    ['2', 'pending', 'Add a test for /health'],
    ['3', 'pending', 'Update the README'],
  ],
  [
    ['1', 'completed', 'Write the /health handler'],
    ['2', 'in_progress', 'Add a test for /health'],
    ['3', 'pending', 'Update the README'],
  ],
  FINAL,
]

/** The distinct lists of the session's history, oldest first. */
async function lists(t: TestApp, session: string) {
  const entries: [number, string, string[][]][] = await historyRows(t, session)
  const out: string[][][] = []
  for (const [, source, items] of entries.sort((a, b) => a[0] - b[0])) {
    assert.equal(source, 'ingest')
    if (JSON.stringify(out.at(-1)) !== JSON.stringify(items)) out.push(items)
  }
  return out.filter((list) => list.length > 0)
}

/** A time `seconds` after the run's last hook (a later hook of the same session). */
const later = (seconds: number) =>
  new Date(Date.parse(HOOKS.at(-1).timestamp) + seconds * 1000).toISOString()

const hookNamed = (name: string, more: (hook: any) => boolean = () => true) =>
  HOOKS.filter((hook) => hook.hook_event_name === name && more(hook))

describe('Ingest: Qwen Code hooks (real, 0.24.4)', () => {
  it('Should take the hooks’ cwd and SessionStart’s model, and the stream init’s cwd, model and version', async () => {
    const t = makeTestApp()
    await postHooks(t, 'qwen-code', HOOKS)
    const hooked = (await view(t, SESSION)).origin
    assert.equal(hooked.cwd, '/home/user/project')
    assert.equal(hooked.model, 'qwen3-coder-plus')
    assert.equal(hooked.agent, 'qwen-code')
    const init = JSON.parse(STREAM[0])
    await ingest(t, 'qwen-code', STREAM.join('\n'))
    const streamed = (await view(t, STREAM_SESSION)).origin
    assert.equal(streamed.cwd, init.cwd)
    assert.equal(streamed.model, init.model)
    assert.equal(streamed.agent_version, init.qwen_code_version)
  })

  it('Should build the list Qwen wrote, with the model’s ids, from its hooks in arrival order', async () => {
    const t = makeTestApp()
    const replies = await postHooks(t, 'qwen-code', HOOKS)
    for (const reply of replies) assert.equal(reply.body.session_id, SESSION)
    const v = await view(t, SESSION)
    assert.deepEqual(rows(v.items), FINAL)
    assert.equal(v.source, 'qwen-code')
    assert.equal(v.dialect, 'qwen-todos')
    assert.equal(v.ended, null, 'Stop ends a turn, not the session')
    assert.equal(v.waiting, null)
    assert.equal(v.observed.todo_tools, true)
    assert.deepEqual(await lists(t, SESSION), WRITTEN)
  })

  it('Should apply each write once: the doubled todo hooks and the PostToolUse of one write are one change', async () => {
    const t = makeTestApp()
    await postHooks(t, 'qwen-code', HOOKS)
    const v = await view(t, SESSION)
    // SessionStart made the session (version 1), then one version per written list: nothing for
    // the phases, the PostToolUse and PostToolBatch of a write, the no-op or the refused write
    assert.equal(v.version, 1 + WRITTEN.length)
  })

  it('Should not count a validation-phase todo hook: a hook may still block that write', async () => {
    const t = makeTestApp()
    const validation = HOOKS.filter((hook) => hook.phase === 'validation')
    assert.ok(validation.length >= 4)
    const replies = await postHooks(t, 'qwen-code', validation)
    for (const reply of replies) assert.equal(reply.body.applied, 0)
    assert.deepEqual((await view(t, SESSION)).items, [])
  })

  it('Should take a postWrite todo hook as the list stored, before its PostToolUse arrives', async () => {
    const t = makeTestApp()
    const first = HOOKS.find((hook) => hook.phase === 'postWrite')
    await postHooks(t, 'qwen-code', [first])
    assert.deepEqual(rows((await view(t, SESSION)).items), WRITTEN[0])
    const post = hookNamed('PostToolUse')[0]
    const reply = (await postHooks(t, 'qwen-code', [post]))[0]
    assert.equal(reply.body.version, 1, 'the PostToolUse of the same write changes nothing')
  })

  it('Should leave the session as it is when every hook is delivered twice', async () => {
    const once = makeTestApp()
    await postHooks(once, 'qwen-code', HOOKS)
    const twice = makeTestApp()
    await postHooks(
      twice,
      'qwen-code',
      HOOKS.flatMap((hook) => [hook, hook])
    )
    const a = await view(once, SESSION)
    const b = await view(twice, SESSION)
    assert.deepEqual(b.items, a.items)
    assert.equal(b.version, a.version)
    assert.deepEqual(await historyRows(twice, SESSION), await historyRows(once, SESSION))
  })

  it('Should end where Qwen did when each write’s hooks arrive reordered, and a full replay changes nothing', async () => {
    // per write (a PreToolUse starts one): PostToolBatch first, then PostToolUse, then the todo
    // hooks last to first (postWrite before validation)
    const groups: any[][] = []
    for (const hook of HOOKS) {
      if (hook.hook_event_name === 'PreToolUse' || groups.length === 0) groups.push([])
      groups.at(-1)!.push(hook)
    }
    const reordered = groups.flatMap((group) => [...group].reverse())
    const t = makeTestApp()
    await postHooks(t, 'qwen-code', reordered)
    const v = await view(t, SESSION)
    assert.deepEqual(rows(v.items), FINAL)
    assert.deepEqual(await lists(t, SESSION), WRITTEN)
    const history = await historyRows(t, SESSION)
    const replies = await postHooks(t, 'qwen-code', HOOKS)
    for (const reply of replies)
      assert.equal(reply.body.version, v.version, 'a replay changes nothing')
    assert.deepEqual(rows((await view(t, SESSION)).items), FINAL)
    assert.deepEqual(await historyRows(t, SESSION), history)
  })

  it('Should change nothing for the write Qwen refused (only its PostToolBatch, status error)', async () => {
    const refused = hookNamed('PostToolBatch', (hook) =>
      hook.tool_calls.some((call: any) => call.status === 'error')
    )
    assert.equal(refused.length, 1)
    assert.equal(
      refused[0].tool_calls[0].tool_response.error,
      'Todo IDs must be unique within the array.'
    )
    const t = makeTestApp()
    const upTo = HOOKS.indexOf(refused[0])
    await postHooks(t, 'qwen-code', HOOKS.slice(0, upTo))
    const before = await view(t, SESSION)
    const reply = (await postHooks(t, 'qwen-code', refused))[0]
    assert.equal(reply.body.applied, 0)
    assert.equal(reply.body.ignored, 1)
    const after = await view(t, SESSION)
    assert.deepEqual(after.items, before.items)
    assert.equal(after.version, before.version)
    assert.deepEqual(rows(after.items), WRITTEN[1])
  })

  it('Should take a successful PostToolBatch as the write when its PostToolUse never came, once', async () => {
    const t = makeTestApp()
    const batches = hookNamed('PostToolBatch')
    await postHooks(t, 'qwen-code', batches)
    assert.deepEqual(rows((await view(t, SESSION)).items), FINAL)
    assert.deepEqual(await lists(t, SESSION), WRITTEN)
    const version = (await view(t, SESSION)).version
    const posts = await postHooks(t, 'qwen-code', hookNamed('PostToolUse'))
    for (const reply of posts) {
      assert.equal(reply.body.applied, 0, 'the same call ids')
      assert.equal(reply.body.version, version)
    }
  })

  it('Should clear the list on a write of [] (no todo hook fires for it)', async () => {
    const t = makeTestApp()
    await postHooks(t, 'qwen-code', HOOKS)
    const last = hookNamed('PostToolUse').at(-1)
    const clear = {
      ...last,
      timestamp: later(1),
      tool_call_id: 'call_clear',
      tool_use_id: 'toolu_clear',
      tool_input: { todos: [] },
      tool_response: {
        llmContent:
          'Todo list has been cleared.\n\n<system-reminder>\nYour todo list is now empty.',
        returnDisplay: { type: 'todo_list', todos: [], changes: { created: [], completed: [] } },
      },
    }
    await postHooks(t, 'qwen-code', [clear])
    assert.deepEqual((await view(t, SESSION)).items, [])
  })

  it('Should apply a change to in_progress from its PostToolUse alone (no todo hook fires for it)', async () => {
    const t = makeTestApp()
    await postHooks(t, 'qwen-code', HOOKS)
    const last = hookNamed('PostToolUse').at(-1)
    const todos = last.tool_input.todos.map((todo: any) =>
      todo.id === '4' ? { ...todo, status: 'in_progress' } : todo
    )
    const started = {
      ...last,
      timestamp: later(1),
      tool_call_id: 'call_started',
      tool_use_id: 'toolu_started',
      tool_input: { todos },
      tool_response: {
        ...last.tool_response,
        returnDisplay: { ...last.tool_response.returnDisplay, todos },
      },
    }
    await postHooks(t, 'qwen-code', [started, started])
    const v = await view(t, SESSION)
    assert.deepEqual(rows(v.items).at(-1), ['4', 'in_progress', 'Run the linter'])
    assert.equal(v.version, 1 + WRITTEN.length + 1)
  })

  it('Should end the session on SessionEnd (cancelled with unfinished items) and open it on SessionStart', async () => {
    const t = makeTestApp()
    await postHooks(t, 'qwen-code', HOOKS)
    const base = { ...HOOKS[0], source: undefined }
    const end = {
      ...base,
      hook_event_name: 'SessionEnd',
      reason: 'prompt_input_exit',
      timestamp: later(2),
    }
    await postHooks(t, 'qwen-code', [end, end])
    const ended = await view(t, SESSION)
    assert.equal(ended.ended.outcome, 'cancelled')
    assert.equal(ended.ended.detail, 'prompt_input_exit')
    assert.deepEqual(ended.ended.unfinished, ['3', '4'])
    const start = { ...HOOKS[0], timestamp: later(3), source: 'resume' }
    await postHooks(t, 'qwen-code', [start])
    assert.equal((await view(t, SESSION)).ended, null)
    // the first start again (a replay) does not reopen an ended session
    await postHooks(t, 'qwen-code', [{ ...end, timestamp: later(4) }, HOOKS[0]])
    assert.notEqual((await view(t, SESSION)).ended, null)
  })
})

describe('Ingest: Qwen Code waiting for a person (real permission prompts)', () => {
  const sid = `qwen:${PERMISSION[0].session_id}`
  const at = (name: string, nth = 0) =>
    PERMISSION.map((hook, i) => [hook, i] as const).filter(
      ([hook]) => hook.hook_event_name === name
    )[nth][1]

  it('Should mark waiting on PermissionRequest, keep one mark for its Notification, and clear it when the denied call ends', async () => {
    const t = makeTestApp()
    const ask = at('PermissionRequest')
    await postHooks(t, 'qwen-code', PERMISSION.slice(0, ask + 1))
    const waiting = await view(t, sid)
    assert.equal(waiting.waiting.reason, 'permission_prompt')
    assert.equal(
      waiting.waiting.message,
      'Qwen Code needs your permission to use run_shell_command'
    )
    const notification = PERMISSION[ask + 1]
    assert.equal(notification.notification_type, 'permission_prompt')
    const same = (await postHooks(t, 'qwen-code', [notification]))[0]
    assert.equal(same.body.version, waiting.version, 'the same wait')
    // denied: PostToolBatch status cancelled, and no tool hook
    const denied = PERMISSION[ask + 2]
    assert.equal(denied.tool_calls[0].status, 'cancelled')
    await postHooks(t, 'qwen-code', [denied])
    const after = await view(t, sid)
    assert.equal(after.waiting, null)
    assert.deepEqual(rows(after.items), [['greet', 'in_progress', 'Print a greeting']])
  })

  it('Should clear the wait on the allowed call’s PreToolUse, and end with the list Qwen wrote', async () => {
    const t = makeTestApp()
    const ask = at('PermissionRequest', 1)
    await postHooks(t, 'qwen-code', PERMISSION.slice(0, ask + 2))
    assert.equal((await view(t, sid)).waiting.reason, 'permission_prompt')
    assert.equal(PERMISSION[ask + 2].hook_event_name, 'PreToolUse')
    await postHooks(t, 'qwen-code', [PERMISSION[ask + 2]])
    assert.equal((await view(t, sid)).waiting, null)
    await postHooks(t, 'qwen-code', PERMISSION.slice(ask + 3))
    const v = await view(t, sid)
    assert.deepEqual(rows(v.items), [['greet', 'completed', 'Print a greeting']])
    assert.equal(v.waiting, null)
    assert.equal(v.ended, null)
  })

  it('Should mark waiting on the stream’s can_use_tool request until its next line', async () => {
    const t = makeTestApp()
    const ask = PERMISSION_STREAM.findIndex((line) => JSON.parse(line).type === 'control_request')
    assert.ok(ask > 0)
    const res = await ingest(t, 'qwen-code', PERMISSION_STREAM.slice(0, ask + 1).join('\n') + '\n')
    assert.equal(res.status, 200, res.text)
    const v = await view(t, res.body.session_id)
    assert.equal(v.waiting.reason, 'permission_prompt')
    await ingest(t, 'qwen-code', PERMISSION_STREAM.slice(ask + 1).join('\n') + '\n')
    const after = await view(t, res.body.session_id)
    assert.equal(after.waiting, null)
    assert.deepEqual(rows(after.items), [['greet', 'completed', 'Print a greeting']])
  })
})

describe('Ingest: Qwen Code stream-json (real, 0.24.4)', () => {
  it('Should build the same list from `qwen -p --output-format stream-json`, and not end on its result', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'qwen-code', STREAM.join('\n') + '\n')
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.session_id, STREAM_SESSION)
    const v = await view(t, STREAM_SESSION)
    assert.deepEqual(rows(v.items), FINAL)
    assert.equal(v.observed.todo_tools, true)
    assert.equal(v.ended, null, 'observe ends the run with its exit status')
    assert.deepEqual(await lists(t, STREAM_SESSION), WRITTEN)
  })

  it('Should build the same history line by line (a call and its result in different deliveries)', async () => {
    const t = makeTestApp()
    for (const line of STREAM) assert.equal((await ingest(t, 'qwen-code', line + '\n')).status, 200)
    assert.deepEqual(rows((await view(t, STREAM_SESSION)).items), FINAL)
    assert.deepEqual(await lists(t, STREAM_SESSION), WRITTEN)
  })

  it('Should apply a write once when the hooks and the stream of one run feed the session', async () => {
    const t = makeTestApp()
    const stream = STREAM.map((line) => JSON.parse(line))
    stream.forEach((line) => (line.session_id = HOOKS[0].session_id))
    await postHooks(t, 'qwen-code', HOOKS)
    const before = await view(t, SESSION)
    const res = await ingest(t, 'qwen-code', stream.map((l) => JSON.stringify(l)).join('\n') + '\n')
    assert.equal(res.status, 200, res.text)
    const after = await view(t, SESSION)
    assert.deepEqual(after.items, before.items)
    assert.deepEqual(await lists(t, SESSION), WRITTEN)
  })

  it('Should say the run had no todo tool when todo_write is off (its init lists no todo_write)', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('qwen-code/real-no-todo-tool.ndjson')
    const res = await ingest(t, 'qwen-code', lines.join('\n') + '\n')
    assert.equal(res.status, 200, res.text)
    const v = await view(t, res.body.session_id)
    assert.equal(v.observed.todo_tools, false)
    assert.deepEqual(v.items, [])
    const listing = await t.call('GET', '/v1/sessions')
    const brief = listing.body.sessions.find((s: any) => s.session_id === res.body.session_id)
    assert.equal(brief.todo_tools, false)
  })
})

describe('Ingest: Qwen Code bodies that are not its format', () => {
  it('Should refuse a hook without session_id and a stream line without type with 400, applying nothing', async () => {
    const t = makeTestApp()
    const noSession = { ...HOOKS[9], session_id: undefined }
    const a = await ingest(t, 'qwen-code', noSession)
    assert.equal(a.status, 400, a.text)
    const b = await ingest(t, 'qwen-code', STREAM[0] + '\n{"no":"type"}\n')
    assert.equal(b.status, 400, b.text)
    assert.equal((await t.call('GET', `/v1/sessions/${STREAM_SESSION}`)).status, 404)
  })
})

describe('Ingest: Qwen Code and Claude Code hooks told apart', () => {
  it('Should refuse a Qwen hook on the Claude Code route with 400 naming the Qwen route, and the reverse', async () => {
    const t = makeTestApp()
    for (const hook of [HOOKS[0], HOOKS[3], hookNamed('PostToolUse')[0], PERMISSION[0]]) {
      const res = await ingest(t, 'claude-code', hook)
      assert.equal(res.status, 400, res.text)
      assert.match(res.body.detail, /\/v1\/ingest\/qwen-code/)
      assert.ok(res.body.type.endsWith('/ingest-wrong-agent'), res.body.type)
    }
    assert.equal((await t.call('GET', `/v1/sessions/claude:${HOOKS[0].session_id}`)).status, 404)
    const claude = fixtureJson('claude-code/real-todowrite.json')
    for (const hook of claude) {
      const res = await ingest(t, 'qwen-code', hook)
      assert.equal(res.status, 400, res.text)
      assert.match(res.body.detail, /\/v1\/ingest\/claude-code/)
      assert.ok(res.body.type.endsWith('/ingest-wrong-agent'), res.body.type)
    }
  })
})

describe('agent-todos observe: Qwen Code', () => {
  it('Should name the agent and say how to turn its todo tool on', () => {
    assert.equal(sourceLabel('qwen-code'), 'Qwen Code')
    assert.equal(sourceLabel('qwen-code', true), 'qwen')
    assert.equal(todoToolsNote('qwen-code'), 'todo tools off (set tools.todoWrite.enabled)')
    assert.equal(todoToolsNote('qwen-code', true), 'todo tools off')
  })

  it('Should recognise qwen and its stream flags', () => {
    const run = ['qwen', '-p', 'hi', '--output-format', 'stream-json']
    assert.equal(detectAgent(run), 'qwen')
    assert.equal(detectAgent(['npx', '@qwen-code/qwen-code@0.24.4', '-p', 'hi']), 'qwen')
    assert.equal(streamFlagProblem('qwen', run), null)
    assert.equal(
      streamFlagProblem('qwen', ['qwen', '-p', 'hi']),
      'qwen needs --output-format stream-json'
    )
  })
})
