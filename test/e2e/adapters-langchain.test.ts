/**
 * `agent-todos-client/langchain` drives a real LangChain JS agent (`createAgent`, langchain
 * 1.5.14) with langchain's own fake chat model against the real server: each model turn is one
 * round (todo and other calls together), the todo calls get the service's texts byte for byte
 * (the js flavour of `langchain-todos`), the system prompt carries the dialect's guidance, the
 * reminder reaches the model on the turn after it fell due, and two `write_todos` in one turn are
 * refused as langchain's middleware refuses them. The agent is docs/clients.md's example,
 * examples/adapters/langchain.ts, run as it is.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { register } from 'node:module'
import { adapterHarness } from './adapters-docs.js'

// the frameworks live in test/agents/ and the example imports agent-todos-client: both resolve
// through these hooks, so everything that needs them is imported dynamically below
register('./adapters-resolve-hooks.mjs', import.meta.url)
const { AIMessage, HumanMessage, SystemMessage, ToolMessage, fakeModel, tool } =
  await import('langchain')
const { runTask } = await import('../../examples/adapters/langchain.js')

const readFile = tool(({ path }: { path: string }) => `contents of ${path}`, {
  name: 'read_file',
  description: 'Reads a file',
  schema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  },
})

const READ = (id: string, path = 'README.md') => ({ id, name: 'read_file', args: { path } })
const REMINDER = '<reminder>Update your todo list with write_todos.</reminder>'
const PARALLEL =
  'Error: The `write_todos` tool should never be called multiple times in parallel. Please call it only once per model invocation to update the todo list.'

describe('The LangChain JS adapter (agentTodosMiddleware)', () => {
  const { url, session } = adapterHarness('langchain')

  it('Should report each model turn as one round and hand the reminder to the fourth model call', async () => {
    const model = fakeModel()
      .respondWithTools([READ('c1'), READ('c2', 'package.json')])
      .respondWithTools([READ('c3')])
      .respondWithTools([READ('c4')])
      .respond(new AIMessage('Done.'))
    const result = await runTask(model, [readFile], 'Read the docs', 'lc-reminder')

    const view = await session('lc-reminder')
    assert.equal(view.dialect, 'langchain-todos')
    assert.equal(
      view.round,
      3,
      'three turns with tool calls, three rounds (two calls in the first)'
    )
    assert.equal(view.version, 3)
    assert.equal(view.rounds_since_todo, 3)

    assert.equal(model.callCount, 4)
    const guidance = (await (
      await fetch(`${url()}/v1/dialects/langchain-todos?flavour=js`)
    ).json()) as { system_prompt: string }
    const system = model.calls[0].messages[0]
    assert.ok(SystemMessage.isInstance(system))
    assert.ok(system.text.endsWith(`\n\n${guidance.system_prompt}`), 'the js guidance appended')
    for (const call of model.calls.slice(0, 3))
      assert.ok(!call.messages.some((m) => m.text === REMINDER), 'no reminder before it is due')
    const fourth = model.calls[3].messages
    const last = fourth.at(-1)!
    assert.ok(HumanMessage.isInstance(last), 'the reminder follows the tool messages')
    assert.equal(last.text, REMINDER)
    assert.ok(ToolMessage.isInstance(fourth.at(-2)))
    assert.ok(result.messages.some((m) => HumanMessage.isInstance(m) && m.text === REMINDER))
  })

  it("Should answer a turn's todo call with the service's result, in the same round as the others", async () => {
    const model = fakeModel()
      .respondWithTools([
        {
          id: 't1',
          name: 'write_todos',
          args: { todos: [{ content: 'Plan', status: 'in_progress' }] },
        },
        READ('t2'),
      ])
      .respond(new AIMessage('Done.'))
    const result = await runTask(model, [readFile], 'Plan it', 'lc-todo')
    const view = await session('lc-todo')
    assert.equal(view.round, 1)
    assert.deepEqual(
      (view.items as { content: string; status: string }[]).map(({ content, status }) => ({
        content,
        status,
      })),
      [{ content: 'Plan', status: 'in_progress' }]
    )
    const results = result.messages.filter((m) => ToolMessage.isInstance(m))
    assert.deepEqual(
      results.map((m) => [m.tool_call_id, m.text, m.status]),
      [
        ['t1', 'Updated todo list to [{"content":"Plan","status":"in_progress"}]', 'success'],
        ['t2', 'contents of README.md', 'success'],
      ]
    )
  })

  it('Should refuse two write_todos in one turn with the dialect’s error, once, as error tool messages', async () => {
    const write = (id: string, content: string) => ({
      id,
      name: 'write_todos',
      args: { todos: [{ content, status: 'pending' }] },
    })
    const model = fakeModel()
      .respondWithTools([write('p1', 'A'), write('p2', 'B')])
      .respond(new AIMessage('Done.'))
    const result = await runTask(model, [readFile], 'Plan it', 'lc-parallel')
    const errors = result.messages.filter((m) => ToolMessage.isInstance(m))
    assert.deepEqual(
      errors.map((m) => [m.tool_call_id, m.text, m.status]),
      [
        ['p1', PARALLEL, 'error'],
        ['p2', PARALLEL, 'error'],
      ]
    )
    const view = await session('lc-parallel')
    assert.equal(view.round, 1)
    assert.deepEqual(view.items, [], 'the list is unchanged')
  })
})
