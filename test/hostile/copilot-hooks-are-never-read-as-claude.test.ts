/**
 * GitHub Copilot CLI's PascalCase hooks look like Claude Code's (`hook_event_name`, `session_id`,
 * `tool_name`, `tool_input`), and a hooks file pointed at the wrong route would post them to
 * `/v1/ingest/claude-code`. Read as Claude's they would make a `claude:<id>` session of another
 * agent's run (and Copilot's permission prompts and ends would move it). Every real Copilot hook,
 * camelCase or PascalCase, posted there is refused with a 400 naming `/v1/ingest/copilot`, and
 * nothing of it is applied; the real Claude Code hooks still pass.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, fixtureLines, ingest } from '../ingest-support.js'

const copilotHooks = () =>
  [
    'real-hooks-camel.ndjson',
    'real-hooks-pascal.ndjson',
    'real-permission-hooks-camel.ndjson',
    'real-permission-hooks-pascal.ndjson',
  ].flatMap((file) => fixtureLines(`copilot/${file}`).map((line) => JSON.parse(line)))

describe('Copilot hooks posted to the Claude Code route', () => {
  it('Should refuse each real Copilot hook with ingest-wrong-agent naming /v1/ingest/copilot, creating no session', async () => {
    const t = makeTestApp()
    for (const hook of copilotHooks()) {
      const res = await ingest(t, 'claude-code', hook)
      const what = JSON.stringify(hook).slice(0, 120)
      assert.equal(res.status, 400, what)
      assert.equal(res.body.type, 'https://agent-todos.dev/problems/ingest-wrong-agent', what)
      assert.match(res.body.detail, /\/v1\/ingest\/copilot/, what)
    }
    const list = await t.call('GET', '/v1/sessions')
    assert.deepEqual(list.body.sessions, [])
  })

  it('Should still take every real Claude Code hook', async () => {
    const t = makeTestApp()
    const files = [
      ...['real-max-turns', 'real-subagent', 'real-tasks', 'real-todowrite'],
      ...['subagent.hooks', 'tasks.hooks', 'todowrite.hooks', 'waiting.hooks'],
    ]
    for (const name of files) {
      const file = `${name}.json`
      for (const hook of fixtureJson(`claude-code/${file}`) as unknown[]) {
        const res = await ingest(t, 'claude-code', hook)
        assert.equal(res.status, 200, JSON.stringify(hook).slice(0, 120))
      }
    }
  })
})
