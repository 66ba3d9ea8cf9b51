/**
 * The table of docs/observe.md "Waiting for a person": per source, what marks a session
 * `waiting` and what clears it, each row on a payload of the agent's own (the captures in
 * test/fixtures/ingest; a hook no capture holds is the captured hook of the same run with the
 * event's own fields, as the agent's hook schema names them).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { makeTestApp, type TestApp } from '../helpers.js'
import { fixtureJson, fixtureLines, ingest, view } from '../ingest-support.js'

interface Row {
  source: string
  marks: string
  reason: string
  clears: string
  route: string
  /** The route's query (`?agent=kilo`, a stream part's `?session_id=`). */
  query?: string
  /** What comes before: a session with unfinished items. */
  before: unknown[]
  mark: unknown
  clear: unknown
  session: string
}

const claude = fixtureJson('claude-code/waiting.hooks.json')
const claudeBase = claude[0]
const codex = fixtureJson('codex/real-plan.json')
const gemini = fixtureJson('gemini-cli/real-todos.json')
const openhands = fixtureJson('openhands/batch-1.json')
const openhandsLater = fixtureJson('openhands/batch-2.json')
const sdk = fixtureLines('claude-agent-sdk/real-todowrite.ndjson').map((line) => JSON.parse(line))
const sdkSession = sdk[0].session_id
const execLines = fixtureLines('codex/real-plan.ndjson').map((line) => JSON.parse(line))
const thread = execLines[0].thread_id
const qwen = fixtureJson('qwen-code/real-permission.json')
const qwenStream = fixtureLines('qwen-code/real-permission.ndjson')
const qwenStreamSession = JSON.parse(qwenStream[1]).session_id
const copilotHooks = (casing: string) =>
  fixtureLines(`copilot/real-permission-hooks-${casing}.ndjson`).map((line) => JSON.parse(line))
const camel = copilotHooks('camel')
const pascal = copilotHooks('pascal')
const acpWire = fixtureLines('acp/qwen-wire.ndjson')
const acpAsked = acpWire.findIndex((line) => line.includes('"session/request_permission"'))
const acpSession = JSON.parse(acpWire[acpAsked]).message.params.sessionId

/** A `/global/event` capture cut at its first `asked` and `replied` events (NDJSON parts). */
function opencodeWait(capture: string, asked: string, replied: string) {
  const lines = fixtureLines(capture)
  const type = (line: string) => JSON.parse(line).payload?.type
  const ask = lines.findIndex((line) => type(line) === asked)
  const reply = lines.findIndex((line) => type(line) === replied)
  const session = JSON.parse(lines[ask]).payload.properties.sessionID
  return {
    before: [lines.slice(0, ask).join('\n')],
    // what the server sends while the person has not answered keeps the wait
    mark: lines.slice(ask, reply).join('\n'),
    clear: lines[reply],
    session,
  }
}
const opencodePermission = opencodeWait(
  'opencode/real-permission.global.ndjson',
  'permission.asked',
  'permission.replied'
)
const opencodeQuestion = opencodeWait(
  'opencode/real-question.global.ndjson',
  'question.asked',
  'question.replied'
)
const kiloPermission = opencodeWait(
  'kilo/real-permission.global.ndjson',
  'permission.asked',
  'permission.replied'
)

/** A captured hook of another run, as a hook of the waiting fixture's session. */
const asClaude = (hook: Record<string, unknown>) => ({ ...hook, session_id: claudeBase.session_id })
const claudeNotification = fixtureJson('claude-code/real-notification-permission-prompt.json')[0]

const without = (hook: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(hook).filter(([key]) => !keys.includes(key)))

const ROWS: Row[] = [
  {
    source: 'Claude Code',
    marks: 'Notification permission_prompt',
    reason: 'permission_prompt',
    clears: 'PostToolUse',
    route: 'claude-code',
    before: [claude[0]],
    mark: claude[1],
    clear: claude[2],
    session: `claude:${claudeBase.session_id}`,
  },
  {
    source: 'Claude Code',
    marks: 'Notification idle_prompt',
    reason: 'idle_prompt',
    clears: 'UserPromptSubmit',
    route: 'claude-code',
    before: [claude[0]],
    mark: claude[4],
    clear: {
      ...without(claudeBase, 'tool_name', 'tool_input', 'tool_response', 'tool_use_id'),
      hook_event_name: 'UserPromptSubmit',
      prompt: 'go on',
    },
    session: `claude:${claudeBase.session_id}`,
  },
  {
    source: 'Claude Code',
    marks: 'PermissionRequest',
    reason: 'permission_prompt',
    clears: 'PostToolUse',
    route: 'claude-code',
    before: [claude[0]],
    mark: {
      ...without(claudeBase, 'tool_response', 'tool_use_id'),
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: claude[2].tool_input,
    },
    clear: claude[2],
    session: `claude:${claudeBase.session_id}`,
  },
  {
    source: 'Claude Code',
    marks: 'Interrupt',
    reason: 'interrupted',
    clears: 'UserPromptSubmit',
    route: 'claude-code',
    before: [claude[0]],
    mark: asClaude(fixtureJson('claude-code/real-2.1.337-interrupt-esc.json')[0]),
    clear: {
      ...without(claudeBase, 'tool_name', 'tool_input', 'tool_response', 'tool_use_id'),
      hook_event_name: 'UserPromptSubmit',
      prompt: 'go on',
    },
    session: `claude:${claudeBase.session_id}`,
  },
  ...['agent_needs_input', 'worker_permission_prompt'].map((type): Row => ({
    source: 'Claude Code',
    marks: `Notification ${type}`,
    reason: type,
    clears: 'PostToolUse',
    route: 'claude-code',
    before: [claude[0]],
    mark: asClaude({ ...claudeNotification, notification_type: type, message: 'needs you' }),
    clear: claude[2],
    session: `claude:${claudeBase.session_id}`,
  })),
  {
    source: 'Claude Code',
    marks: 'Elicitation',
    reason: 'question',
    clears: 'PostToolUse',
    route: 'claude-code',
    before: [claude[0]],
    mark: asClaude(fixtureJson('claude-code/real-elicitation.json').elicitation_hook_input),
    clear: claude[2],
    session: `claude:${claudeBase.session_id}`,
  },
  {
    source: 'Claude Agent SDK',
    marks: 'system/session_state_changed requires_action',
    reason: 'requires_action',
    clears: 'any later message',
    route: 'claude-agent-sdk',
    before: sdk.slice(0, 3),
    mark: {
      type: 'system',
      subtype: 'session_state_changed',
      state: 'requires_action',
      session_id: sdkSession,
      uuid: 'b0d1c2e3-0000-4000-8000-000000000001',
    },
    clear: {
      type: 'system',
      subtype: 'session_state_changed',
      state: 'running',
      session_id: sdkSession,
      uuid: 'b0d1c2e3-0000-4000-8000-000000000002',
    },
    session: `claude:${sdkSession}`,
  },
  {
    source: 'Codex',
    marks: 'PermissionRequest hook',
    reason: 'permission_prompt',
    clears: 'PostToolUse',
    route: 'codex',
    before: codex.slice(0, 2),
    mark: {
      ...without(codex[1], 'tool_response', 'tool_use_id'),
      hook_event_name: 'PermissionRequest',
      tool_name: 'shell',
      tool_input: { command: ['npm', 'test'] },
    },
    clear: codex[2],
    session: `codex:${codex[0].session_id}`,
  },
  {
    source: 'Codex',
    marks: 'exec stream request_user_input',
    reason: 'request_user_input',
    clears: 'the next line',
    route: 'codex',
    before: [
      execLines
        .slice(0, 4)
        .map((line) => JSON.stringify(line))
        .join('\n'),
    ],
    mark: JSON.stringify({ type: 'request_user_input' }),
    clear: JSON.stringify({ type: 'turn.started' }),
    session: `codex:${thread}`,
  },
  {
    source: 'Gemini CLI',
    marks: 'Notification ToolPermission',
    reason: 'permission_prompt',
    clears: 'AfterTool',
    route: 'gemini-cli',
    before: gemini.slice(0, 2),
    mark: {
      ...without(gemini[1], 'tool_name', 'tool_input', 'tool_response'),
      hook_event_name: 'Notification',
      notification_type: 'ToolPermission',
      message: 'Tool write_file requires editing',
      details: { type: 'edit', title: 'Confirm Edit' },
    },
    clear: gemini[2],
    session: `gemini:${gemini[0].session_id}`,
  },
  {
    source: 'OpenHands',
    marks: 'execution_status waiting_for_confirmation',
    reason: 'waiting_for_confirmation',
    clears: 'execution_status running',
    route: 'openhands/events/0a1b2c3d4e5f46a7b8c9d0e1f2a3b4c5',
    before: [openhands],
    mark: [openhandsLater[2]],
    clear: [openhandsLater[3]],
    session: 'openhands:0a1b2c3d4e5f46a7b8c9d0e1f2a3b4c5',
  },
  {
    source: 'Qwen Code',
    marks: 'PermissionRequest hook',
    reason: 'permission_prompt',
    clears: 'PreToolUse of the allowed call',
    route: 'qwen-code',
    before: qwen.slice(0, 6),
    mark: qwen[9],
    clear: qwen[11],
    session: `qwen:${qwen[0].session_id}`,
  },
  {
    source: 'Qwen Code',
    marks: 'Notification permission_prompt',
    reason: 'permission_prompt',
    clears: 'PostToolBatch of the denied call',
    route: 'qwen-code',
    before: qwen.slice(0, 6),
    mark: qwen[7],
    clear: qwen[8],
    session: `qwen:${qwen[0].session_id}`,
  },
  {
    source: 'Qwen Code',
    marks: 'stream-json control_request can_use_tool',
    reason: 'permission_prompt',
    clears: 'the next line',
    route: 'qwen-code',
    query: `?session_id=qwen:${qwenStreamSession}`,
    before: [qwenStream.slice(0, 6).join('\n')],
    mark: qwenStream[6],
    clear: qwenStream[7],
    session: `qwen:${qwenStreamSession}`,
  },
  {
    source: 'opencode, Kilo',
    marks: 'permission.asked',
    reason: 'permission_prompt',
    clears: 'permission.replied (opencode)',
    route: 'opencode',
    ...opencodePermission,
    session: `opencode:${opencodePermission.session}`,
  },
  {
    source: 'opencode, Kilo',
    marks: 'question.asked',
    reason: 'question',
    clears: 'question.replied (opencode)',
    route: 'opencode',
    ...opencodeQuestion,
    session: `opencode:${opencodeQuestion.session}`,
  },
  {
    source: 'opencode, Kilo',
    marks: 'permission.asked',
    reason: 'permission_prompt',
    clears: 'permission.replied (Kilo)',
    route: 'opencode',
    query: '?agent=kilo',
    ...kiloPermission,
    session: `kilo:${kiloPermission.session}`,
  },
  {
    source: 'Copilot CLI',
    marks: 'permissionRequest hook',
    reason: 'permission_prompt',
    clears: 'agentStop',
    route: 'copilot',
    before: camel.slice(0, 3),
    mark: camel[3],
    clear: camel[4],
    session: `copilot:${camel[0].sessionId}`,
  },
  {
    source: 'Copilot CLI',
    marks: 'Notification permission_prompt',
    reason: 'permission_prompt',
    clears: 'Stop',
    route: 'copilot',
    before: pascal.slice(0, 3),
    mark: pascal[4],
    clear: pascal[5],
    session: `copilot:${pascal[0].session_id}`,
  },
  {
    source: 'ACP',
    marks: 'session/request_permission',
    reason: 'permission_prompt',
    clears: 'its answer',
    route: 'acp',
    before: [acpWire.slice(0, acpAsked).join('\n')],
    mark: acpWire[acpAsked],
    clear: acpWire[acpAsked + 1],
    session: `acp:${acpSession}`,
  },
]

/** Posts one body (an NDJSON string as a stream's part, a value as JSON). */
async function post(t: TestApp, row: Row, body: unknown) {
  const { route, session } = row
  // a Codex stream's later parts name the session by ?session_id= (its first line names it)
  const query =
    row.query ?? (typeof body === 'string' && route === 'codex' ? `?session_id=${session}` : '')
  const res = await ingest(t, route, body, query)
  assert.equal(res.status, 200, `${route}: ${res.text}`)
}

describe('Waiting for a person, per source (docs/observe.md)', () => {
  for (const row of ROWS) {
    it(`Should mark ${row.source} waiting on ${row.marks} and clear it on ${row.clears}`, async () => {
      const t = makeTestApp()
      for (const body of row.before) await post(t, row, body)
      const before = await view(t, row.session)
      assert.equal(before.waiting, null)
      await post(t, row, row.mark)
      const waiting = await view(t, row.session)
      assert.equal(waiting.state, 'waiting', JSON.stringify(waiting.progress))
      assert.equal(waiting.waiting.reason, row.reason)
      assert.equal(waiting.version, before.version + 1)
      const listed = (await t.call('GET', '/v1/sessions?state=waiting')).body.sessions
      assert.deepEqual(
        listed.map((s: { session_id: string }) => s.session_id),
        [row.session]
      )
      await post(t, row, row.clear)
      const cleared = await view(t, row.session)
      assert.equal(cleared.waiting, null)
      assert.notEqual(cleared.state, 'waiting')
    })
  }

  it('Should list every row in the docs table', () => {
    const docs = readFileSync(new URL('../../docs/observe.md', import.meta.url), 'utf8')
    const table = docs.slice(docs.indexOf('## Waiting for a person'))
    for (const row of ROWS) {
      const line = table
        .split('\n')
        .find((l) => l.startsWith(`| ${row.source} `) && l.includes(row.marks))
      assert.ok(line, `${row.source}: ${row.marks}`)
      assert.ok(line.includes(`\`${row.reason}\``), line)
    }
  })

  it('Should test every row of the docs table on a payload', () => {
    const docs = readFileSync(new URL('../../docs/observe.md', import.meta.url), 'utf8')
    const table = docs.slice(docs.indexOf('## Waiting for a person'))
    const lines = table.slice(0, table.indexOf('\n## ')).split('\n')
    const rows = lines.filter((l) => l.startsWith('| ') && !/^\| (source|-)/.test(l))
    assert.ok(rows.length >= ROWS.length - 1)
    for (const line of rows) {
      const [source, marks] = line
        .split('|')
        .map((cell) => cell.trim())
        .slice(1, 3)
      assert.ok(
        ROWS.some((row) => row.source === source && marks.includes(row.marks)),
        `no test for: ${line}`
      )
    }
  })
})
