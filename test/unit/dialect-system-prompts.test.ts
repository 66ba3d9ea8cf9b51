/**
 * GET /v1/dialects/{name}: each dialect with the guidance its native agent puts in the system
 * prompt beside the tool, byte for byte, or null where none is verified.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECT_NAMES } from '../../src/dialects/registry.js'
import { makeTestApp } from '../helpers.js'

/** LangChain's `WRITE_TODOS_SYSTEM_PROMPT` (Python `langchain` v1, `agents/middleware/todo.py`). */
const PYTHON_WRITE_TODOS = `## \`write_todos\`

You have access to the \`write_todos\` tool to help you manage and plan complex objectives.
Use this tool for complex objectives to ensure that you are tracking each necessary step and giving the user visibility into your progress.
This tool is very helpful for planning complex objectives, and for breaking down these larger complex objectives into smaller steps.

It is critical that you mark todos as completed as soon as you are done with a step. Do not batch up multiple steps before marking them as completed.
For simple objectives that only require a few steps, it is better to just complete the objective directly and NOT use this tool.
Writing todos takes time and tokens, use it when it is helpful for managing complex many-step problems! But not for simple few-step requests.

## Important To-Do List Usage Notes to Remember
- The \`write_todos\` tool should never be called multiple times in parallel.
- Don't be afraid to revise the To-Do list as you go. New information may reveal new tasks that need to be done, or old tasks that are irrelevant.`

const EXPECTED: Record<string, string | null> = {
  // the todo line of learn-claude-code's s03 SYSTEM (reference/seed-s03.md)
  s03: 'Use the todo tool to plan multi-step tasks. Mark in_progress before starting, completed when done.',
  // Claude Code 2.1.332's "# Using your tools" bullet for the first of TaskCreate, TodoWrite
  'claude-todowrite':
    "Use TodoWrite to plan and track work. Mark each task completed as soon as it's done; don't batch.",
  'claude-tasks':
    "Use TaskCreate to plan and track work. Mark each task completed as soon as it's done; don't batch.",
  'langchain-todos': PYTHON_WRITE_TODOS,
  // no system-prompt text of these natives has been verified against a pinned release
  'codex-plan': null,
  'gemini-todos': null,
  'openhands-tracker': null,
  'qwen-todos': null,
  'opencode-todos': null,
  // observed only: Copilot CLI's sql tool guidance is not reproduced
  'copilot-todos': null,
  // observed only: Gemini CLI's tracker guidance is not reproduced
  'gemini-tracker': null,
}

describe('GET /v1/dialects/{name}', () => {
  it('Should serve every dialect with its system prompt', async () => {
    const t = makeTestApp()
    const list = await t.call('GET', '/v1/dialects')
    for (const name of DIALECT_NAMES) {
      assert.ok(Object.hasOwn(EXPECTED, name), `no expected system prompt for ${name}`)
      const res = await t.call('GET', `/v1/dialects/${name}`)
      assert.equal(res.status, 200, name)
      assert.equal(res.body.system_prompt, EXPECTED[name], name)
      const listed = list.body.dialects.find((d: { name: string }) => d.name === name)
      assert.deepEqual(
        { name: res.body.name, tools: res.body.tools, description: res.body.description },
        listed
      )
    }
  })

  it('Should serve the flavours of langchain-todos, python by default', async () => {
    const t = makeTestApp()
    const byDefault = await t.call('GET', '/v1/dialects/langchain-todos')
    assert.equal(byDefault.body.flavour, 'python')
    assert.deepEqual(byDefault.body.flavours, ['python', 'js'])
    const python = await t.call('GET', '/v1/dialects/langchain-todos?flavour=python')
    assert.deepEqual(python.body, byDefault.body)
    const js = await t.call('GET', '/v1/dialects/langchain-todos?flavour=js')
    assert.equal(js.body.flavour, 'js')
    // the JS package's text has a space after the first "objectives." where Python's has none
    assert.equal(
      js.body.system_prompt,
      PYTHON_WRITE_TODOS.replace('complex objectives.\n', 'complex objectives. \n')
    )
    const s03 = await t.call('GET', '/v1/dialects/s03?flavour=js')
    assert.equal(s03.status, 200)
    assert.equal(s03.body.flavour, null)
    assert.deepEqual(s03.body.flavours, [])
  })

  it('Should answer 404 for an unknown dialect and 400 for an unknown flavour', async () => {
    const t = makeTestApp()
    const missing = await t.call('GET', '/v1/dialects/cursor-todos')
    assert.equal(missing.status, 404)
    assert.equal(missing.headers.get('content-type'), 'application/problem+json')
    assert.equal(missing.body.type, 'https://agent-todos.dev/problems/dialect-not-found')
    const bad = await t.call('GET', '/v1/dialects/s03?flavour=perl')
    assert.equal(bad.status, 400)
    assert.equal(bad.body.errors[0].pointer, '/query/flavour')
  })
})
