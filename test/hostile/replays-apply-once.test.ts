/**
 * Replays apply once, as docs/observe.md promises. A finished stream of more than 64 calls posted
 * again re-applied about 64 of them each time (+65 versions, the history overwritten, `ended`
 * flipping): its start was no longer remembered and opened the run again, and each re-applied call
 * pushed the next one out of the session's window of applied ids. And a Claude PostToolUse hook
 * delivered again after more than 64 later calls took the list back to its old state.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeTestApp, type TestApp } from '../helpers.js'
import { fixtureText, ingest, view } from '../ingest-support.js'

/** What a replay must leave alone: version, history and how the run ended. */
async function snapshot(t: TestApp, sessionId: string) {
  const session = await view(t, sessionId)
  const history = await t.call('GET', `/v1/sessions/${sessionId}/history`)
  return {
    version: session.version,
    ended: session.ended,
    items: session.items,
    history: history.body,
  }
}

const SID = 'e1e2e3e4-f5f6-4711-8899-aabbccddeeff'

/** A finished Agent SDK stream: init, `count` TodoWrite calls with their results, the result. */
function finishedStream(count: number): string {
  const lines = [JSON.stringify({ type: 'system', subtype: 'init', session_id: SID, uuid: 'init' })]
  for (let i = 0; i < count; i++) {
    const todos = [{ content: `Step ${i}`, status: 'in_progress', activeForm: `Doing step ${i}` }]
    const id = `toolu_01Long${String(i).padStart(14, '0')}`
    lines.push(
      JSON.stringify({
        type: 'assistant',
        session_id: SID,
        message: { content: [{ type: 'tool_use', id, name: 'TodoWrite', input: { todos } }] },
      }),
      JSON.stringify({
        type: 'user',
        session_id: SID,
        message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
        tool_use_result: { oldTodos: [], newTodos: todos },
      })
    )
  }
  lines.push(
    JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      session_id: SID,
      uuid: 'result',
    })
  )
  return lines.join('\n') + '\n'
}

describe('hostile: replays apply once', () => {
  const fixtures: [string, string, string?][] = [
    ['claude-agent-sdk', 'claude-agent-sdk/real-todowrite.ndjson'],
    ['claude-agent-sdk', 'claude-agent-sdk/real-tasks.ndjson'],
    ['claude-agent-sdk', 'claude-agent-sdk/real-subagent.ndjson'],
    ['claude-agent-sdk', 'claude-agent-sdk/real-max-turns.ndjson'],
    ['codex', 'codex/real-plan.ndjson', '?session_id=codex-replayed'],
    ['gemini-cli', 'gemini-cli/real-todos.ndjson', '?session_id=gemini-replayed'],
  ]
  for (const [source, fixture, query = ''] of fixtures)
    it(`Should change nothing when the finished ${fixture} is posted again three times`, async () => {
      const t = makeTestApp()
      const first = await ingest(t, source, fixtureText(fixture), query)
      assert.equal(first.status, 200, first.text)
      const before = await snapshot(t, first.body.session_id)
      assert.notEqual(before.ended, null)
      for (let i = 0; i < 3; i++) {
        t.clock.now += 60_000
        const again = await ingest(t, source, fixtureText(fixture), query)
        assert.equal(again.status, 200)
        assert.deepEqual(await snapshot(t, first.body.session_id), before)
      }
    })

  it('Should change nothing when a finished stream of 150 calls is posted again three times', async () => {
    const t = makeTestApp()
    const body = finishedStream(150)
    const first = await ingest(t, 'claude-agent-sdk', body)
    assert.equal(first.status, 200, first.text)
    const before = await snapshot(t, `claude:${SID}`)
    assert.equal(before.ended.outcome, 'completed')
    for (let i = 0; i < 3; i++) {
      t.clock.now += 60_000
      const again = await ingest(t, 'claude-agent-sdk', body)
      assert.deepEqual([again.body.version, again.body.applied], [before.version, 0])
      assert.deepEqual(await snapshot(t, `claude:${SID}`), before)
    }
  })

  it('Should keep a wait when a hook it already applied is delivered again (a forwarder’s retry)', async () => {
    const t = makeTestApp()
    const todos = [{ content: 'Step', status: 'in_progress', activeForm: 'Doing step' }]
    const hook = {
      session_id: 'retried',
      hook_event_name: 'PostToolUse',
      tool_name: 'TodoWrite',
      tool_use_id: 'toolu_01Retried000000000000',
      tool_input: { todos },
      tool_response: { oldTodos: [], newTodos: todos },
    }
    assert.equal((await ingest(t, 'claude-code', hook)).status, 200)
    const notification = {
      session_id: 'retried',
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      message: 'Claude needs your permission to use Bash',
    }
    assert.equal((await ingest(t, 'claude-code', notification)).status, 200)
    const waiting = await snapshot(t, 'claude:retried')
    assert.equal((await view(t, 'claude:retried')).waiting?.reason, 'permission_prompt')
    // the PostToolUse hook again: seen before the wait, it answers nothing
    assert.equal((await ingest(t, 'claude-code', hook)).status, 200)
    assert.equal((await view(t, 'claude:retried')).waiting?.reason, 'permission_prompt')
    assert.deepEqual(await snapshot(t, 'claude:retried'), waiting)
  })

  it('Should not take the list back when a Claude PostToolUse hook is delivered again after 100 later calls', async () => {
    const t = makeTestApp()
    const hook = (i: number) => {
      const todos = [{ content: `Step ${i}`, status: 'in_progress', activeForm: `Doing step ${i}` }]
      return {
        session_id: 'late-hook',
        hook_event_name: 'PostToolUse',
        tool_name: 'TodoWrite',
        tool_use_id: `toolu_01Late${String(i).padStart(14, '0')}`,
        tool_input: { todos },
        tool_response: { oldTodos: [], newTodos: todos },
      }
    }
    for (let i = 0; i <= 100; i++) {
      assert.equal((await ingest(t, 'claude-code', hook(i))).status, 200)
    }
    const before = await snapshot(t, 'claude:late-hook')
    assert.deepEqual(
      before.items.map((item: { content: string }) => item.content),
      ['Step 100']
    )
    // the forwarder's queue flushes late: the first hook again
    assert.equal((await ingest(t, 'claude-code', hook(0))).status, 200)
    assert.deepEqual(await snapshot(t, 'claude:late-hook'), before)
  })
})
