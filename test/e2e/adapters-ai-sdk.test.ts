/**
 * `agent-todos-client/ai-sdk` drives the real AI SDK (`ai` 7.0.173: `generateText` and
 * `streamText`) with its `MockLanguageModelV4` against the real server: each step's tool calls
 * are one round, the todo tool's result is the service's text byte for byte (an `is_error` one as
 * the model's error text, not prefixed again), the first step's instructions carry the dialect's
 * guidance, and the reminder reaches the model on the step after it fell due. The loop is
 * docs/clients.md's example, examples/adapters/ai-sdk.ts, run as it is.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { register } from 'node:module'
import { adapterHarness } from './adapters-docs.js'

// the frameworks live in test/agents/ and the example imports agent-todos-client: both resolve
// through these hooks, so everything that needs them is imported dynamically below
register('./adapters-resolve-hooks.mjs', import.meta.url)
const { jsonSchema, streamText, isStepCount, tool } = await import('ai')
const { MockLanguageModelV4 } = await import('ai/test')
const { agentTodos } = await import('agent-todos-client/ai-sdk')
const { runTask } = await import('../../examples/adapters/ai-sdk.js')

type Call = { id: string; name: string; input: unknown }
type Result = ConstructorParameters<typeof MockLanguageModelV4>[0] extends infer O
  ? O extends { doGenerate?: infer G }
    ? Exclude<G, unknown[] | ((...args: never[]) => unknown)>
    : never
  : never

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/** A model answer calling tools. */
const calls = (...list: Call[]): Result => ({
  content: list.map((call) => ({
    type: 'tool-call' as const,
    toolCallId: call.id,
    toolName: call.name,
    input: JSON.stringify(call.input),
  })),
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage: USAGE,
  warnings: [],
})
const text = (value: string): Result => ({
  content: [{ type: 'text', text: value }],
  finishReason: { unified: 'stop', raw: undefined },
  usage: USAGE,
  warnings: [],
})
const bash = (id: string): Call => ({ id, name: 'bash', input: { command: 'ls' } })

const tools = {
  bash: tool({
    description: 'Runs a command',
    inputSchema: jsonSchema<{ command: string }>({
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    }),
    execute: ({ command }) => `ran ${command}`,
  }),
}

const REMINDER = '<reminder>Update your todos.</reminder>'

describe('The AI SDK adapter (agentTodos)', () => {
  const { url, session } = adapterHarness('ai-sdk')

  it('Should report each step as one round and hand the reminder to the fourth model call', async () => {
    const model = new MockLanguageModelV4({
      doGenerate: [
        calls(bash('c1'), bash('c2')),
        calls(bash('c3')),
        calls(bash('c4')),
        text('Done.'),
      ],
    })
    const result = await runTask(model, tools, 'List the files', 'ai-reminder')
    assert.equal(result.text, 'Done.')

    const view = await session('ai-reminder')
    assert.equal(view.dialect, 's03')
    assert.equal(
      view.round,
      3,
      'three steps with tool calls, three rounds (two calls in the first)'
    )
    assert.equal(view.version, 3)

    const prompts = model.doGenerateCalls.map((call) => call.prompt)
    assert.equal(prompts.length, 4)
    const guidance = (await (await fetch(`${url()}/v1/dialects/s03`)).json()) as {
      system_prompt: string
    }
    assert.deepEqual(prompts[0][0], { role: 'system', content: guidance.system_prompt })
    for (const prompt of prompts.slice(0, 3))
      assert.ok(!JSON.stringify(prompt).includes(REMINDER), 'no reminder before it is due')
    const fourth = prompts[3]
    assert.equal(fourth.at(-2)?.role, 'tool')
    const last = fourth.at(-1)
    assert.equal(last?.role, 'user')
    assert.deepEqual(last.content, [{ type: 'text', text: REMINDER }])
  })

  it("Should answer a step's invalid todo call with s03's error text, once, as an error result", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: [
        calls(
          {
            id: 't1',
            name: 'todo',
            input: {
              items: [
                { id: '1', text: 'A', status: 'in_progress' },
                { id: '2', text: 'B', status: 'in_progress' },
              ],
            },
          },
          bash('t2')
        ),
        calls({
          id: 't3',
          name: 'todo',
          input: { items: [{ id: '1', text: 'A', status: 'in_progress' }] },
        }),
        text('Done.'),
      ],
    })
    await runTask(model, tools, 'Plan it', 'ai-invalid')
    const view = await session('ai-invalid')
    assert.equal(view.round, 2, 'one round per step')

    const second = model.doGenerateCalls[1].prompt
    const results = second.filter((m) => m.role === 'tool').flatMap((m) => m.content)
    assert.deepEqual(
      results.map((part) => part.type === 'tool-result' && [part.toolCallId, part.output]),
      [
        ['t1', { type: 'error-text', value: 'Error: Only one task can be in_progress at a time' }],
        ['t2', { type: 'text', value: 'ran ls' }],
      ]
    )
    const third = model.doGenerateCalls[2].prompt
    const last = third.at(-1)
    assert.ok(last?.role === 'tool')
    const [part] = last.content
    assert.ok(part.type === 'tool-result')
    assert.deepEqual(
      [part.toolCallId, part.output],
      ['t3', { type: 'text', value: '[>] #1: A\n\n(0/1 completed)' }]
    )
  })

  it('Should report a streamed step as one round too (streamText)', async () => {
    const chunks = (list: Call[]) => [
      ...list.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.input),
      })),
      {
        type: 'finish' as const,
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
        usage: USAGE,
      },
    ]
    const stream = (list: Call[]) => ({
      stream: new ReadableStream({
        start(controller) {
          for (const chunk of list.length > 0 ? chunks(list) : []) controller.enqueue(chunk)
          if (list.length === 0) {
            controller.enqueue({ type: 'text-start', id: 'x' })
            controller.enqueue({ type: 'text-delta', id: 'x', delta: 'Done.' })
            controller.enqueue({ type: 'text-end', id: 'x' })
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: undefined },
              usage: USAGE,
            })
          }
          controller.close()
        },
      }),
    })
    const model = new MockLanguageModelV4({
      doStream: [
        stream([
          { id: 's1', name: 'todo', input: { items: [{ id: '1', text: 'A', status: 'pending' }] } },
          bash('s2'),
        ]),
        stream([]),
      ] as never,
    })
    const todos = await agentTodos({ url: url(), sessionId: 'ai-stream' })
    const { tools: todoTools, ...hooks } = todos
    const result = streamText({
      model,
      tools: { ...tools, ...todoTools },
      prompt: 'Plan it',
      stopWhen: isStepCount(5),
      ...hooks,
    })
    assert.equal(await result.text, 'Done.')
    const view = await session('ai-stream')
    assert.equal(view.round, 1)
    const steps = await result.steps
    // the todo result waits for the step's round, sent when the model's stream has ended
    assert.deepEqual(steps[0].toolResults.map((r) => [r.toolCallId, r.output]).sort(), [
      ['s1', { content: '[ ] #1: A\n\n(0/1 completed)', is_error: false }],
      ['s2', 'ran ls'],
    ])
  })
})
