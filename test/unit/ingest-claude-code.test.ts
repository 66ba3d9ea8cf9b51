import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, historyRows, ingest, postHooks, rows, view } from '../ingest-support.js'

const H = 'Write the /health handler'
const T = 'Add a test for /health'
const R = 'Update the README'

const TODOWRITE = fixtureJson('claude-code/todowrite.hooks.json')
const TASKS = fixtureJson('claude-code/tasks.hooks.json')
const SUBAGENT = fixtureJson('claude-code/subagent.hooks.json')
const WAITING = fixtureJson('claude-code/waiting.hooks.json')
const TW_SESSION = 'claude:0b6c7a8e-5d3f-4b1e-9a44-2f3c1d0e9b11'
const TASK_SESSION = 'claude:8bcaf3b8-26e9-4f55-bd36-426ae3756050'
const MAIN = 'claude:beb21700-11bb-4a47-9146-1f02fab85f4a'
const SUB = `${MAIN}:agent:a3ad0f60fd2fb066f`
const WAIT_SESSION = 'claude:5d2e7f10-8a3b-4c6d-9e1f-2a3b4c5d6e7f'

const byEvent = (hooks: any[], event: string, tool?: string) =>
  hooks.filter((h) => h.hook_event_name === event && (tool === undefined || h.tool_name === tool))

describe('POST /v1/ingest/claude-code: TodoWrite', () => {
  it('Should rebuild the list from newTodos, keep ids, and answer every hook with {}', async () => {
    const t = makeTestApp()
    const replies = await postHooks(t, 'claude-code', TODOWRITE)
    assert.ok(replies.every((res) => res.text === '{}'))
    const session = await view(t, TW_SESSION)
    assert.equal(session.source, 'claude-code')
    assert.equal(session.dialect, 'claude-todowrite')
    assert.equal(session.reminder_due, false)
    assert.deepEqual(session.settings, { reminder: false })
    // the write after the all-completed one is a new plan: a fresh id
    assert.deepEqual(rows(session.items), [['4', 'in_progress', 'Tag the release']])
    assert.equal(session.items[0].active_form, 'Tagging the release')
    assert.deepEqual(session.ended, {
      outcome: 'cancelled',
      detail: 'other',
      at: '2026-11-30T12:00:00.000Z',
      unfinished: ['4'],
    })
    // versions only for what changed: start, four lists, the end; activity wrote nothing
    assert.deepEqual(await historyRows(t, TW_SESSION), [
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
      [5, 'ingest', [['4', 'in_progress', 'Tag the release']]],
      [6, 'ingest', [['4', 'in_progress', 'Tag the release']]],
    ])
  })

  it('Should show a session whose TodoWrite completed every item as done with that list', async () => {
    const t = makeTestApp()
    const lastAllDone = TODOWRITE.findIndex(
      (h: any) => h.tool_use_id === 'toolu_01TodoWrite3' && h.hook_event_name === 'PostToolUse'
    )
    await postHooks(t, 'claude-code', TODOWRITE.slice(0, lastAllDone + 2))
    const session = await view(t, TW_SESSION)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'completed', R],
    ])
    assert.equal(session.progress.percent, 100)
    assert.equal(session.ended, null)
    const done = await t.call('GET', '/v1/sessions?state=done')
    assert.deepEqual(
      done.body.sessions.map((s: any) => [s.session_id, s.source, s.progress.completed]),
      [[TW_SESSION, 'claude-code', 3]]
    )
    assert.equal((await t.call('GET', '/v1/sessions?state=active')).body.sessions.length, 0)
  })

  it('Should apply a retried or duplicated PostToolUse once', async () => {
    const t = makeTestApp()
    await postHooks(t, 'claude-code', TODOWRITE)
    const before = await view(t, TW_SESSION)
    // every tool hook again, and the second list once more at the end
    await postHooks(t, 'claude-code', byEvent(TODOWRITE, 'PostToolUse', 'TodoWrite'))
    await postHooks(t, 'claude-code', [byEvent(TODOWRITE, 'PostToolUse', 'TodoWrite')[1]])
    const after = await view(t, TW_SESSION)
    assert.equal(after.version, before.version)
    assert.deepEqual(after.items, before.items)
    assert.deepEqual(after.ended, before.ended)
  })

  it('Should say nothing else than {} to Claude Code, also for unknown events and other tools', async () => {
    const t = makeTestApp()
    const unknown = await ingest(t, 'claude-code', {
      session_id: 'x1',
      hook_event_name: 'SomethingNew',
      whatever: [1, 2],
    })
    assert.equal(unknown.status, 200)
    assert.equal(unknown.text, '{}')
    // an unknown event alone creates nothing
    assert.equal((await t.call('GET', '/v1/sessions/claude:x1')).status, 404)
    const bash = await ingest(t, 'claude-code', byEvent(TODOWRITE, 'PostToolUse', 'Bash')[0])
    assert.equal(bash.text, '{}')
    assert.deepEqual((await view(t, TW_SESSION)).items, [])
  })
})

describe('POST /v1/ingest/claude-code: Task tools', () => {
  it('Should adopt the agent ids, repair updates, remove deleted tasks, and keep both sides of a dependency', async () => {
    const t = makeTestApp()
    await postHooks(t, 'claude-code', TASKS)
    const session = await view(t, TASK_SESSION)
    assert.equal(session.dialect, 'claude-tasks')
    assert.deepEqual(
      session.items.map((item: any) => [
        item.id,
        item.status,
        item.content,
        item.description,
        item.active_form,
        item.blocks,
        item.blocked_by,
      ]),
      [
        [
          '1',
          'completed',
          H,
          'GET /health answers 200 {"ok":true}',
          'Writing the /health handler',
          ['2'],
          [],
        ],
        // the subject as Claude Code saved it (it corrected the call), not as the model sent it
        ['2', 'completed', T, T, 'Adding a test for /health', [], ['1']],
      ]
    )
    assert.equal(session.ended.outcome, 'completed')
    const history = await historyRows(t, TASK_SESSION)
    assert.deepEqual(
      history.map(([version, , items]: any) => [version, items.map((i: any) => `${i[0]}:${i[1]}`)]),
      [
        [1, []],
        [2, ['1:pending']],
        [3, ['1:pending', '2:pending']],
        // the failed TaskCreate left nothing
        [4, ['1:pending', '2:pending', '3:pending']],
        [5, ['1:pending', '2:in_progress', '3:pending']],
        [6, ['1:completed', '2:in_progress', '3:pending']],
        [7, ['1:completed', '2:in_progress']],
        // `Task not found` changed nothing; TaskList confirmed the list (no version)
        [8, ['1:completed', '2:completed']],
        [9, ['1:completed', '2:completed']],
      ]
    )
  })

  it('Should build the same list from parallel hooks arriving out of order, each applied once', async () => {
    const t = makeTestApp()
    const posts = byEvent(TASKS, 'PostToolUse')
    const creates = posts.filter((h: any) => h.tool_name === 'TaskCreate')
    const rest = posts.filter((h: any) => h.tool_name !== 'TaskCreate')
    // creates in reverse, updates in reverse, each delivered twice (a retry)
    const shuffled = [...creates.reverse(), ...rest.slice(0, 3).reverse(), ...rest.slice(3)]
    await postHooks(
      t,
      'claude-code',
      shuffled.flatMap((h: any) => [h, h])
    )
    const session = await view(t, TASK_SESSION)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
    ])
    assert.deepEqual(session.items[0].blocks, ['2'])
    assert.deepEqual(session.items[1].blocked_by, ['1'])
  })

  it('Should create a task it never saw created when an update of it arrives first', async () => {
    const t = makeTestApp()
    const update = byEvent(TASKS, 'PostToolUse', 'TaskUpdate')[0]
    await postHooks(t, 'claude-code', [update])
    assert.deepEqual(rows((await view(t, TASK_SESSION)).items), [['2', 'in_progress', 'Task #2']])
    await postHooks(t, 'claude-code', byEvent(TASKS, 'PostToolUse', 'TaskCreate'))
    // the create fills the subject in and keeps the status the update set
    assert.deepEqual(rows((await view(t, TASK_SESSION)).items), [
      ['1', 'pending', H],
      ['2', 'in_progress', T],
      ['3', 'pending', R],
    ])
  })
})

describe('POST /v1/ingest/claude-code: subagents, waiting, edits', () => {
  it("Should keep a subagent's TodoWrite list as its own session under its parent", async () => {
    const t = makeTestApp()
    await postHooks(t, 'claude-code', SUBAGENT)
    const main = await view(t, MAIN)
    const sub = await view(t, SUB)
    assert.deepEqual(rows(main.items), [
      ['1', 'completed', 'Ask a helper to review'],
      ['2', 'completed', 'Summarize the review'],
    ])
    assert.deepEqual(main.observed.subagents, [SUB])
    assert.equal(main.parent, null)
    assert.equal(sub.parent, MAIN)
    assert.equal(sub.source, 'claude-code')
    assert.deepEqual(rows(sub.items), [
      ['1', 'completed', 'Read the source'],
      ['2', 'completed', 'Write the findings'],
    ])
    assert.equal(sub.ended.outcome, 'completed')
    assert.equal(sub.ended.detail, 'subagent stopped')
    assert.equal(main.ended.outcome, 'completed')
    const listing = await t.call('GET', '/v1/sessions?source=claude-code')
    assert.deepEqual(listing.body.sessions.map((s: any) => [s.session_id, s.parent]).sort(), [
      [MAIN, null],
      [SUB, MAIN],
    ])
  })

  it('Should show a session waiting for a person apart from stale, and refresh a busy one', async () => {
    const t = makeTestApp()
    const [todo, permission, bash, stop, idle] = WAITING
    await postHooks(t, 'claude-code', [todo, permission])
    let session = await view(t, WAIT_SESSION)
    assert.deepEqual(session.waiting, {
      reason: 'permission_prompt',
      message: 'Claude needs your permission to use Bash',
      at: '2026-11-30T12:00:00.000Z',
    })
    t.clock.now += 16 * 60_000
    let listing = await t.call('GET', '/v1/sessions')
    assert.equal(listing.body.sessions[0].stale, false)
    assert.equal(listing.body.sessions[0].waiting.reason, 'permission_prompt')
    assert.equal(listing.body.sessions[0].state, 'waiting')
    assert.equal((await view(t, WAIT_SESSION)).state, 'waiting')
    assert.equal((await t.call('GET', '/v1/sessions?state=stale')).body.sessions.length, 0)
    assert.equal((await t.call('GET', '/v1/sessions?state=waiting')).body.sessions.length, 1)
    assert.equal((await t.call('GET', '/v1/sessions?state=active')).body.sessions.length, 1)
    // the tool ran: no longer waiting; the next event is activity only
    await postHooks(t, 'claude-code', [bash])
    session = await view(t, WAIT_SESSION)
    assert.equal(session.waiting, null)
    assert.equal(session.state, 'active')
    const version = session.version
    await postHooks(t, 'claude-code', [stop])
    assert.equal((await view(t, WAIT_SESSION)).version, version)
    // half the stale window later, activity keeps the session alive: `updated_at` moves, and the
    // version stays (SPEC: an activity-only event leaves it), with no history entry
    const entries = (await t.call('GET', `/v1/sessions/${WAIT_SESSION}/history`)).body.entries
    t.clock.now += 8 * 60_000
    await postHooks(t, 'claude-code', [stop])
    session = await view(t, WAIT_SESSION)
    assert.equal(session.version, version)
    assert.equal(session.updated_at, new Date(t.clock.now).toISOString())
    assert.deepEqual(
      (await t.call('GET', `/v1/sessions/${WAIT_SESSION}/history`)).body.entries,
      entries
    )
    t.clock.now += 10 * 60_000
    listing = await t.call('GET', '/v1/sessions?state=stale')
    assert.equal(listing.body.sessions.length, 0)
    await postHooks(t, 'claude-code', [idle])
    assert.equal((await view(t, WAIT_SESSION)).waiting.reason, 'idle_prompt')
    // a quiet agent with unfinished items turns stale
    const quiet = makeTestApp()
    await postHooks(quiet, 'claude-code', [todo])
    quiet.clock.now += 16 * 60_000
    const stale = await quiet.call('GET', '/v1/sessions?state=stale')
    assert.deepEqual(
      stale.body.sessions.map((s: any) => [s.session_id, s.stale]),
      [[WAIT_SESSION, true]]
    )
  })

  it("Should hand a person's edit to Claude once, in the next PostToolUse reply", async () => {
    const t = makeTestApp()
    const [todo] = WAITING
    await postHooks(t, 'claude-code', [todo])
    const before = await view(t, WAIT_SESSION)
    const put = await t.call('PUT', `/v1/sessions/${WAIT_SESSION}/todos`, {
      items: [
        { id: '1', content: H, status: 'completed' },
        { id: '2', content: 'Ship it', status: 'in_progress', active_form: 'Shipping it' },
      ],
    })
    assert.equal(put.status, 200)
    // the agent owns the list: it is unchanged until the agent writes it
    assert.deepEqual(put.body.items, before.items)
    assert.equal(put.body.version, before.version + 1)
    assert.deepEqual(rows(put.body.observed.pending_edit.items), [
      ['1', 'completed', H],
      ['2', 'in_progress', 'Ship it'],
    ])
    // another tool's hook of a subagent does not carry it; the main agent's next one does
    const subagentHook = { ...WAITING[2], agent_id: 'a1', agent_type: 'general-purpose' }
    assert.equal((await ingest(t, 'claude-code', subagentHook)).text, '{}')
    const reply = await ingest(t, 'claude-code', WAITING[2])
    assert.deepEqual(reply.body, {
      hookSpecificOutput: {
        hookEventName: 'PostToolUse',
        additionalContext:
          'A person changed your todo list while you were working. Bring your list in line with this one using your todo tools, then continue from it:\n\n1. [completed] Write the /health handler\n2. [in_progress] Ship it',
      },
    })
    assert.equal((await ingest(t, 'claude-code', WAITING[2])).text, '{}')
    const after = await view(t, WAIT_SESSION)
    assert.equal(after.observed.pending_edit, null)
    assert.deepEqual(after.items, before.items)
  })
})
