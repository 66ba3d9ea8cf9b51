/**
 * createApp mounts the write charge on the ingest routes: a delivery that makes several store
 * updates spends one write of RATE_LIMIT_PER_MINUTE per update, through the real app.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp } from '../helpers.js'
import { ingest } from '../ingest-support.js'

const SID = 'c0ffee00-e5f6-4711-8899-aabbccddeeff'

/** Three TodoWrite calls with their results, each a new list (three store updates). */
function threeLists(): string {
  const lines: string[] = []
  for (const [i, content] of ['A', 'B', 'C'].entries()) {
    const todos = [{ content, status: 'in_progress', activeForm: `Doing ${content}` }]
    const frame = { session_id: SID, parent_tool_use_id: null }
    const id = `toolu_01Wire${i}`
    lines.push(
      JSON.stringify({
        type: 'assistant',
        ...frame,
        message: { content: [{ type: 'tool_use', id, name: 'TodoWrite', input: { todos } }] },
      }),
      JSON.stringify({
        type: 'user',
        ...frame,
        message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
        tool_use_result: { oldTodos: [], newTodos: todos },
      })
    )
  }
  return lines.join('\n') + '\n'
}

describe('The app charges ingest deliveries by the updates they make', () => {
  it('Should spend three writes for a delivery of three lists', async () => {
    const t = makeTestApp({ rateLimitPerMinute: 10 })
    const res = await ingest(t, 'claude-agent-sdk', threeLists())
    assert.equal(res.status, 200, res.text)
    const after = await t.call('POST', '/v1/sessions/other/rounds', {
      tool_calls: [{ name: 'bash' }],
    })
    assert.equal(after.status, 200)
    const remaining = Number(/remaining=(\d+)/.exec(after.headers.get('RateLimit') ?? '')?.[1])
    assert.equal(remaining, 10 - 3 - 1)
  })
})
