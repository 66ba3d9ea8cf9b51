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

describe('POST /v1/ingest/codex', () => {
  const THREAD = 'codex:0199a213-81c0-7800-8aa1-bbab2a035a53'

  it('Should build the plan from a whole codex exec --json log and end it with turn.completed', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'codex', fixtureText('codex/exec.jsonl'))
    assert.equal(res.status, 200)
    assert.equal(res.body.session_id, THREAD)
    const session = await view(t, THREAD)
    assert.equal(session.source, 'codex')
    assert.equal(session.dialect, 'codex-plan')
    // exec keeps done / not done only: not done reads pending
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'pending', R],
    ])
    assert.deepEqual(session.ended, {
      outcome: 'completed',
      detail: null,
      at: '2026-11-30T12:00:00.000Z',
      unfinished: ['3'],
    })
  })

  it('Should take a stream in consecutive parts (?session_id= after the first), and a part posted twice once', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('codex/exec.jsonl')
    const first = await ingest(t, 'codex', lines.slice(0, 5).join('\n'))
    assert.equal(first.body.session_id, THREAD)
    // no thread.started in a later part: it cannot say whose it is
    const orphan = await ingest(t, 'codex', lines.slice(5, 9).join('\n'))
    assert.equal(orphan.status, 400)
    assert.equal(orphan.body.type, 'https://agent-todos.dev/problems/session-unknown')
    const q = `?session_id=${THREAD}`
    await ingest(t, 'codex', lines.slice(5, 9).join('\n'), q)
    const again = await ingest(t, 'codex', lines.slice(5, 9).join('\n'), q)
    assert.equal(again.body.applied, 0)
    await ingest(t, 'codex', lines.slice(9).join('\n'), q)
    const replay = await ingest(t, 'codex', fixtureText('codex/exec.jsonl'))
    assert.equal(replay.body.applied, 0)
    // one version per list the plan had, even when one part held two updates, then the end
    assert.deepEqual(await historyRows(t, THREAD), [
      [
        1,
        'ingest',
        [
          ['1', 'pending', H],
          ['2', 'pending', T],
          ['3', 'pending', R],
        ],
      ],
      [
        2,
        'ingest',
        [
          ['1', 'completed', H],
          ['2', 'pending', T],
          ['3', 'pending', R],
        ],
      ],
      [
        3,
        'ingest',
        [
          ['1', 'completed', H],
          ['2', 'completed', T],
          ['3', 'pending', R],
        ],
      ],
      [
        4,
        'ingest',
        [
          ['1', 'completed', H],
          ['2', 'completed', T],
          ['3', 'pending', R],
        ],
      ],
    ])
    assert.equal((await view(t, THREAD)).ended.outcome, 'completed')
  })

  it('Should end a failed turn as error; an error line before it is not an end', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('codex/exec-failed.jsonl')
    const res = await ingest(t, 'codex', lines.slice(0, 4).join('\n'))
    assert.equal((await view(t, res.body.session_id)).ended, null)
    await ingest(t, 'codex', lines.slice(4).join('\n'), `?session_id=${res.body.session_id}`)
    const session = await view(t, res.body.session_id)
    assert.equal(session.ended.outcome, 'error')
    assert.equal(
      session.ended.detail,
      'stream disconnected before completion: error sending request'
    )
  })

  it('Should apply update_plan from command hooks with every status, and keep in_progress when the exec stream follows', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('codex/hooks.json')
    const sid = `codex:${hooks[0].session_id}`
    await postHooks(t, 'codex', hooks.slice(0, 5))
    assert.deepEqual(rows((await view(t, sid)).items), [
      ['1', 'completed', H],
      ['2', 'in_progress', T],
      ['3', 'pending', R],
    ])
    // the same run's exec stream reduces the plan to done / not done: what is known stays
    const item = {
      id: 'item_1',
      type: 'todo_list',
      items: [
        { text: H, completed: true },
        { text: T, completed: false },
        { text: R, completed: false },
      ],
    }
    await ingest(
      t,
      'codex',
      [{ type: 'item.updated', item }].map((line) => JSON.stringify(line)).join('\n'),
      `?session_id=${sid}`
    )
    const session = await view(t, sid)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'in_progress', T],
      ['3', 'pending', R],
    ])
    await postHooks(t, 'codex', hooks.slice(5))
    const ended = await view(t, sid)
    assert.equal(ended.ended.outcome, 'cancelled')
    assert.deepEqual(ended.ended.unfinished, ['2', '3'])
  })

  it('Should refuse PUT on an observed Codex session: the agent owns the list', async () => {
    const t = makeTestApp()
    await ingest(t, 'codex', fixtureText('codex/exec.jsonl'))
    const res = await t.call(
      'PUT',
      '/v1/sessions/codex:0199a213-81c0-7800-8aa1-bbab2a035a53/todos',
      {
        items: [{ id: '1', content: 'Mine now', status: 'pending' }],
      }
    )
    assert.equal(res.status, 409)
    assert.equal(res.body.type, 'https://agent-todos.dev/problems/agent-owns-list')
    assert.match(res.body.detail, /The agent \(codex\) owns this list/)
  })
})

describe('POST /v1/ingest/gemini-cli', () => {
  it('Should build the list from stream-json: the list from tool_use, committed by a successful tool_result', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'gemini-cli', fixtureText('gemini-cli/stream.ndjson'))
    const sid = 'gemini:21657ab4-7960-4c31-998d-165398ff181f'
    assert.equal(res.body.session_id, sid)
    const session = await view(t, sid)
    assert.equal(session.dialect, 'gemini-todos')
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'cancelled', R],
    ])
    assert.equal(session.ended.outcome, 'completed')
    assert.equal(session.progress.percent, 100)
  })

  it('Should never apply a refused write_todos, also line by line', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('gemini-cli/stream.ndjson')
    const sid = 'gemini:21657ab4-7960-4c31-998d-165398ff181f'
    await ingest(t, 'gemini-cli', lines[0])
    for (const line of lines.slice(1)) await ingest(t, 'gemini-cli', line, `?session_id=${sid}`)
    const statuses = (await historyRows(t, sid)).map(([, , items]: any) =>
      items.map((i: any) => i[1]).join(',')
    )
    // a staged call is kept quietly (no version); the two-in_progress write never shows
    assert.ok(!statuses.includes('in_progress,in_progress,pending'))
    assert.deepEqual(rows((await view(t, sid)).items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'cancelled', R],
    ])
    assert.equal((await view(t, sid)).observed.pending_calls, 0)
  })

  it('Should end a turn-limited run as max_turns', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'gemini-cli', fixtureText('gemini-cli/max-turns.ndjson'))
    const session = await view(t, res.body.session_id)
    assert.equal(session.ended.outcome, 'max_turns')
    assert.deepEqual(session.ended.unfinished, ['2', '3'])
  })

  it('Should apply AfterTool hooks, a repeat of the same input at the same timestamp once', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('gemini-cli/hooks.json')
    const sid = `gemini:${hooks[0].session_id}`
    const replies = await postHooks(t, 'gemini-cli', [...hooks.slice(0, 5), hooks[4], hooks[3]])
    assert.deepEqual(
      replies.slice(-2).map((res) => res.body.applied),
      [0, 0]
    )
    await postHooks(t, 'gemini-cli', hooks.slice(5))
    const session = await view(t, sid)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'cancelled', R],
    ])
    assert.deepEqual(session.ended, {
      outcome: 'completed',
      detail: 'exit',
      at: '2026-11-30T12:00:00.000Z',
      unfinished: [],
    })
    assert.equal((await historyRows(t, sid)).length, 5)
  })
})

describe('POST /v1/ingest/openhands/events/{conversation_id}', () => {
  const CONV = '3458dce407074113961b51ee95851d0c'
  const SID = `openhands:${CONV}`

  it('Should apply task_tracker observations, keep notes, and end MaxIterationsReached as max_turns', async () => {
    const t = makeTestApp()
    const first = await ingest(t, `openhands/events/${CONV}`, fixtureJson('openhands/batch-1.json'))
    assert.equal(first.status, 200)
    assert.equal(first.body.session_id, SID)
    let session = await view(t, SID)
    assert.equal(session.source, 'openhands')
    assert.equal(session.dialect, 'openhands-tracker')
    assert.deepEqual(rows(session.items), [
      ['1', 'in_progress', H],
      ['2', 'pending', T],
      ['3', 'pending', R],
    ])
    assert.equal(session.items[2].notes, 'only if the API changed')
    await ingest(t, `openhands/events/${CONV}`, fixtureJson('openhands/batch-2.json'))
    session = await view(t, SID)
    assert.deepEqual(rows(session.items), [
      ['1', 'completed', H],
      ['2', 'completed', T],
      ['3', 'in_progress', R],
    ])
    // the execution_status error that follows is less specific than the error code
    assert.deepEqual(session.ended, {
      outcome: 'max_turns',
      detail: 'Agent reached maximum iterations limit (500).',
      at: '2026-11-30T12:00:00.000Z',
      unfinished: ['3'],
    })
  })

  it('Should apply a retried batch once, and waiting_for_confirmation as waiting', async () => {
    const t = makeTestApp()
    const batch1 = fixtureJson('openhands/batch-1.json')
    const batch2 = fixtureJson('openhands/batch-2.json')
    await ingest(t, `openhands/events/${CONV}`, batch1)
    await ingest(t, `openhands/events/${CONV}`, batch2.slice(0, 3))
    assert.equal((await view(t, SID)).waiting.reason, 'waiting_for_confirmation')
    await ingest(t, `openhands/events/${CONV}`, batch2)
    const version = (await view(t, SID)).version
    const retried = await ingest(t, `openhands/events/${CONV}`, batch1)
    assert.equal(retried.body.applied, 0)
    const again = await ingest(t, `openhands/events/${CONV}`, batch2)
    assert.equal(again.body.applied, 0)
    assert.equal((await view(t, SID)).version, version)
  })

  it('Should take the conversation webhook: its execution_status ends the run', async () => {
    const t = makeTestApp()
    await ingest(t, `openhands/events/${CONV}`, fixtureJson('openhands/batch-1.json'))
    const res = await ingest(t, 'openhands/conversations', {
      id: '3458dce4-0707-4113-961b-51ee95851d0c',
      execution_status: 'finished',
      title: 'Add /health',
    })
    assert.equal(res.status, 200)
    assert.equal(res.body.session_id, SID)
    assert.equal((await view(t, SID)).ended.outcome, 'completed')
  })

  it('Should refuse a body that is not a JSON array of events, changing nothing', async () => {
    const t = makeTestApp()
    const batch = fixtureJson('openhands/batch-1.json')
    const res = await ingest(t, `openhands/events/${CONV}`, [...batch, { no: 'kind' }])
    assert.equal(res.status, 400)
    assert.equal(res.body.errors[0].pointer, '/4')
    assert.equal((await t.call('GET', `/v1/sessions/${SID}`)).status, 404)
    assert.equal((await ingest(t, `openhands/events/${CONV}`, batch[0])).status, 400)
  })
})
