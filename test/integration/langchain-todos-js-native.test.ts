/**
 * The `js` flavour of langchain-todos byte for byte against the npm package `langchain` 1.5.14
 * itself: its exported system prompt, its tool's description and schema as `@langchain/core`
 * hands them to a model, and the tool messages its `createAgent` answers with (a fake model
 * drives the real middleware, ToolNode and tool). The flavour in sessions, without the package,
 * is src/dialects/langchain-todos/langchain-todos-js.test.ts's (the unit tier).
 *
 * The packages are test-only: `test/agents/package.json` pins them and `npm run
 * test:integration` installs them there (scripts/ensure-test-agents.mjs), which is why this is
 * the integration tier's: the unit tier needs only the root install. Without them the test
 * skips locally and fails under CI. `AGENT_TODOS_TEST_AGENTS_DIR` points at another folder
 * whose `node_modules` holds them.
 */
import { describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { langchainTodosJs } from '../../src/dialects/langchain-todos/index.js'
import type { DialectState } from '../../src/dialects/types.js'
import { formatTool } from '../../src/tools/formats.js'
import { makeTestApp } from '../helpers.js'

const LANGCHAIN_VERSION = '1.5.14'
const CI = process.env.CI === 'true' || process.env.CI === '1'
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const AGENTS_DIR = process.env.AGENT_TODOS_TEST_AGENTS_DIR ?? join(ROOT, 'test/agents')

type ToolCall = { name: string; id: string; args: unknown }
type LangchainTool = { name: string; description: string }
interface Native {
  systemPrompt: string
  tool: LangchainTool
  openaiTool: { function: { description: string; parameters: Record<string, unknown> } }
  /** The tool messages `createAgent` answers one model turn holding these calls with. */
  run(calls: ToolCall[]): Promise<{ content: string; status?: string }[]>
}

/** The package's exports, or why they cannot be had. */
function loadNative(): Native | string {
  const req = createRequire(join(AGENTS_DIR, 'package.json'))
  let version: string
  try {
    version = (req('langchain/package.json') as { version: string }).version
  } catch {
    return `langchain is not installed in ${AGENTS_DIR}/node_modules (npm ci --prefix test/agents)`
  }
  if (version !== LANGCHAIN_VERSION) {
    return `${AGENTS_DIR} holds langchain ${version}; these texts are ${LANGCHAIN_VERSION}'s`
  }
  const lc = req('langchain')
  const { convertToOpenAITool } = req('@langchain/core/utils/function_calling')
  const { HumanMessage } = req('@langchain/core/messages')
  const tool = lc.todoListMiddleware().tools[0] as LangchainTool
  return {
    systemPrompt: lc.TODO_LIST_MIDDLEWARE_SYSTEM_PROMPT,
    tool,
    openaiTool: convertToOpenAITool(tool),
    async run(calls) {
      const model = new lc.FakeToolCallingModel({ toolCalls: [calls, []] })
      const agent = lc.createAgent({ model, middleware: [lc.todoListMiddleware()] })
      const out = await agent.invoke({ messages: [new HumanMessage('plan it')] })
      return (out.messages as { getType(): string; content: string; status?: string }[])
        .filter((m) => m.getType() === 'tool')
        .map((m) => ({ content: m.content, status: m.status }))
    },
  }
}

let native: Native | string | undefined

/** The native (loaded once, when a test first needs it), or a skip (a failure under CI). */
function nativeOr(t: TestContext): Native | null {
  native ??= loadNative()
  if (typeof native !== 'string') return native
  if (CI) assert.fail(`${native}: CI installs test/agents before the integration tests`)
  t.skip(native)
  return null
}

/** ToolInvocationError puts the error's stack in its text: drop its `    at …` frames. */
const withoutStack = (text: string) => text.replace(/\n {4}at [^\n]*/g, '')

const empty: DialectState = { items: [], data: {} }

/** The service's results for one round of these calls in the js flavour. */
function serviceResults(calls: ToolCall[]) {
  const writes = calls.filter((c) => c.name === 'write_todos')
  return writes.map((call, indexInRound) => {
    const outcome = langchainTodosJs.apply(empty, 'write_todos', call.args, {
      callsInRound: writes.length,
      indexInRound,
    })
    return { content: outcome.result.content, is_error: outcome.result.is_error }
  })
}

const todo = (content: unknown, status: unknown) => ({ content, status })

/** Calls whose texts are compared: each a model turn of one or more `write_todos` calls. */
const CASES: Record<string, unknown[]> = {
  'a list': [{ todos: [todo('Write tests', 'pending'), todo('Ship it', 'in_progress')] }],
  'an empty list': [{ todos: [] }],
  'quotes, escapes and other scripts': [
    { todos: [todo(`Fix the user's "bug" \\ \n\t\u0007 é 😀 \u2028`, 'completed')] },
  ],
  'extra keys, reordered': [{ todos: [{ status: 'pending', priority: 'high', content: 'A' }] }],
  'no todos': [{}],
  'todos as a string': [{ todos: '[{"content":"a","status":"pending"}]' }],
  'todos null': [{ todos: null }],
  'an entry not an object': [{ todos: ['a', 1, null, []] }],
  'a bad status': [{ todos: [todo('a', 'done')] }],
  'a status of the wrong type': [{ todos: [todo('a', 3)] }],
  'several errors, sorted by path length': [
    { todos: [{ status: 'pending' }, 'str', { content: 1, status: null, x: 1 }] },
  ],
  'a missing status, a number content': [{ todos: [{ content: 2 }] }],
  'two calls in one turn': [{ todos: [todo('a', 'pending')] }, { todos: [] }],
}

describe('langchain-todos js flavour against langchain 1.5.14', () => {
  it('Should serve the package’s system prompt', async (t) => {
    const lc = nativeOr(t)
    if (!lc) return
    assert.equal(langchainTodosJs.systemPrompt, lc.systemPrompt)
    const res = await makeTestApp().call('GET', '/v1/dialects/langchain-todos?flavour=js')
    assert.equal(res.status, 200)
    assert.equal(res.body.system_prompt, lc.systemPrompt)
  })

  it('Should carry the package’s description, byte for byte', async (t) => {
    const lc = nativeOr(t)
    if (!lc) return
    const res = await makeTestApp().call(
      'GET',
      '/v1/tools?dialect=langchain-todos&format=openai&flavour=js'
    )
    assert.equal(res.status, 200)
    assert.equal(res.body.tools[0].function.name, lc.tool.name)
    assert.equal(res.body.tools[0].function.description, lc.tool.description)
    assert.equal(res.body.tools[0].function.description, lc.openaiTool.function.description)
  })

  it('Should carry the schema @langchain/core hands the model (less the $schema marker)', (t) => {
    const lc = nativeOr(t)
    if (!lc) return
    const { $schema, ...parameters } = lc.openaiTool.function.parameters
    // every dialect's schemas go without the marker (tools/formats)
    assert.equal($schema, 'http://json-schema.org/draft-07/schema#')
    const ours = formatTool(langchainTodosJs.tools[0], 'openai') as {
      function: { parameters: unknown }
    }
    assert.equal(JSON.stringify(ours.function.parameters), JSON.stringify(parameters))
  })

  for (const [name, argsList] of Object.entries(CASES)) {
    it(`Should answer as createAgent does: ${name}`, async (t) => {
      const lc = nativeOr(t)
      if (!lc) return
      const calls = argsList.map((args, i) => ({ name: 'write_todos', id: `call_${i}`, args }))
      const expected = (await lc.run(calls)).map((m) => ({
        content: withoutStack(m.content),
        is_error: m.status === 'error',
      }))
      assert.deepEqual(serviceResults(calls), expected)
    })
  }
})
