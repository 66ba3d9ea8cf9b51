import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Status } from '../../core/items.js'
import { geminiTodos, renderGeminiTodos } from './index.js'
import type { DialectState } from '../types.js'
import { formatTool } from '../../tools/formats.js'
import { makeTestApp, round } from '../../../test/helpers.js'

/** Gemini CLI's `parametersJsonSchema` of write_todos (`@google/gemini-cli-core` 0.61.0). */
const NATIVE_PARAMETERS = {
  type: 'object',
  properties: {
    todos: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          description: { type: 'string', description: 'The description of the task.' },
          status: {
            type: 'string',
            enum: ['pending', 'in_progress', 'completed', 'cancelled', 'blocked'],
            description: 'The current status of the task.',
          },
        },
        required: ['description', 'status'],
        additionalProperties: false,
        description: 'A single todo item.',
      },
      description: 'The complete list of todo items. This will replace the existing list.',
    },
  },
  required: ['todos'],
  additionalProperties: false,
}

const empty: DialectState = { items: [], data: {} }
const one = { callsInRound: 1, indexInRound: 0 }
const apply = (input: unknown, state: DialectState = empty) =>
  geminiTodos.apply(state, 'write_todos', input, one)
const errorOf = (input: unknown) => {
  const outcome = apply(input)
  assert.equal(outcome.result.is_error, true)
  assert.equal(outcome.state, empty)
  assert.deepEqual(outcome.dropped, [])
  return outcome.result.content
}
const todo = (description: string, status = 'pending') => ({ description, status })

describe('gemini-todos tool definition', () => {
  it('Should carry the native parametersJsonSchema and description', () => {
    const tool = formatTool(geminiTodos.tools[0], 'gemini')
    assert.equal(tool.name, 'write_todos')
    assert.deepEqual(tool.parametersJsonSchema, NATIVE_PARAMETERS)
    assert.equal('parameters' in tool, false)
    const description = tool.description as string
    assert.match(description, /^This tool can help you list out the current subtasks/)
    assert.ok(
      description.includes('- blocked: Subtask is blocked and cannot be completed at this time.\n')
    )
    assert.ok(description.endsWith('execute test->edit->execute test.\n</reasoning>\n</example>'))
  })

  it('Should be served by GET /v1/tools in the OpenAI format', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/v1/tools?dialect=gemini-todos&format=openai')
    assert.equal(res.status, 200)
    assert.equal(res.body.tools.length, 1)
    assert.equal(res.body.tools[0].type, 'function')
    assert.equal(res.body.tools[0].function.name, 'write_todos')
    assert.deepEqual(res.body.tools[0].function.parameters, NATIVE_PARAMETERS)
  })
})

describe('gemini-todos write_todos results', () => {
  it('Should answer with the numbered list', () => {
    const outcome = apply({
      todos: [todo('Read the spec', 'completed'), todo('Implement parser', 'in_progress')],
    })
    assert.equal(outcome.result.is_error, false)
    assert.equal(
      outcome.result.content,
      'Successfully updated the todo list. The current list is now:\n1. [completed] Read the spec\n2. [in_progress] Implement parser'
    )
    assert.deepEqual(outcome.result.structured, {
      todos: [todo('Read the spec', 'completed'), todo('Implement parser', 'in_progress')],
    })
  })

  it('Should accept cancelled and blocked, mapped to the canonical statuses', () => {
    const outcome = apply({
      todos: [todo('Old idea', 'cancelled'), todo('Needs a key', 'blocked')],
    })
    assert.equal(
      outcome.result.content,
      'Successfully updated the todo list. The current list is now:\n1. [cancelled] Old idea\n2. [blocked] Needs a key'
    )
    assert.deepEqual(
      outcome.state.items.map((i) => i.status),
      ['cancelled', 'blocked']
    )
  })

  it('Should clear the list with an empty write', () => {
    const first = apply({ todos: [todo('A', 'completed')] })
    const outcome = apply({ todos: [] }, first.state)
    assert.equal(outcome.result.content, 'Successfully cleared the todo list.')
    assert.deepEqual(outcome.state.items, [])
  })
})

describe('gemini-todos validation: schema first (Ajv), then the value rules', () => {
  it('Should report schema violations as Ajv does, first error only', () => {
    assert.equal(errorOf({}), "params must have required property 'todos'")
    assert.equal(errorOf({ todos: [], extra: 1 }), 'params must NOT have additional properties')
    assert.equal(errorOf({ todos: JSON.stringify([todo('a')]) }), 'params/todos must be array')
    assert.equal(errorOf({ todos: ['a'] }), 'params/todos/0 must be object')
    assert.equal(
      errorOf({ todos: [{ status: 'pending' }] }),
      "params/todos/0 must have required property 'description'"
    )
    assert.equal(
      errorOf({ todos: [{ description: 'a' }] }),
      "params/todos/0 must have required property 'status'"
    )
    assert.equal(
      errorOf({ todos: [{ ...todo('a'), id: '1' }] }),
      'params/todos/0 must NOT have additional properties'
    )
    assert.equal(
      errorOf({ todos: [todo('a'), { description: 3, status: 'pending' }] }),
      'params/todos/1/description must be string'
    )
    assert.equal(
      errorOf({ todos: [todo('a', 'done')] }),
      'params/todos/0/status must be equal to one of the allowed values'
    )
    assert.equal(
      errorOf({ todos: [{ description: 'a', status: 1 }] }),
      'params/todos/0/status must be string'
    )
  })

  it('Should require a non-empty description once the schema holds', () => {
    assert.equal(
      errorOf({ todos: [todo('   ')] }),
      'Each todo must have a non-empty description string'
    )
  })

  it('Should allow only one task in progress, with the native message', () => {
    assert.equal(
      errorOf({ todos: [todo('a', 'in_progress'), todo('b', 'in_progress')] }),
      'Invalid parameters: Only one task can be "in_progress" at a time.'
    )
  })

  it('Should answer non-object args and unparseable arguments alike', () => {
    assert.equal(errorOf('todos'), 'Value of params must be an object')
    assert.equal(
      geminiTodos.argumentsError('write_todos', '{todos'),
      'Value of params must be an object'
    )
  })
})

describe('gemini-todos identity and dropped items', () => {
  it('Should keep ids across a reordering rewrite and report dropped unfinished todos', () => {
    const first = apply({
      todos: [todo('A', 'in_progress'), todo('B', 'blocked'), todo('C'), todo('D', 'cancelled')],
    })
    const second = apply({ todos: [todo('C', 'in_progress'), todo('A', 'completed')] }, first.state)
    assert.deepEqual(
      second.state.items.map((i) => [i.content, i.id, i.status]),
      [
        ['C', '3', 'in_progress'],
        ['A', '1', 'completed'],
      ]
    )
    // B was blocked, so unfinished; D was cancelled, so it counts as finished
    assert.deepEqual(
      second.dropped.map((i) => [i.id, i.content]),
      [['2', 'B']]
    )
  })
})

describe('gemini-todos list rules and rendering', () => {
  const item = (id: string, content: string, status: Status) => makeItem({ id, content, status })

  it('Should apply the one-in-progress rule and the description rule to an operator list', () => {
    assert.deepEqual(
      geminiTodos.checkList([item('1', 'a', 'in_progress'), item('2', 'b', 'in_progress')]),
      {
        ok: false,
        message: 'Invalid parameters: Only one task can be "in_progress" at a time.',
      }
    )
    assert.deepEqual(geminiTodos.checkList([item('1', ' ', 'pending')]), {
      ok: false,
      message: 'Each todo must have a non-empty description string',
    })
    const ok = geminiTodos.checkList([item('1', 'a', 'blocked'), item('2', 'b', 'cancelled')])
    assert.equal(ok.ok, true)
  })

  it('Should render the numbered list', () => {
    assert.equal(
      renderGeminiTodos([item('1', 'Read', 'completed'), item('2', 'Parse', 'blocked')]),
      '1. [completed] Read\n2. [blocked] Parse'
    )
    assert.equal(renderGeminiTodos([]), 'The todo list is empty.')
  })
})

describe('gemini-todos over HTTP', () => {
  it('Should apply write_todos given as Gemini args, in a round mixed with other tools', async () => {
    const t = makeTestApp()
    const res = await round(
      t,
      'gm1',
      [
        { name: 'read_file', args: { file_path: 'a.ts' } },
        {
          name: 'write_todos',
          args: { todos: [todo('Read', 'completed'), todo('Fix', 'in_progress')] },
        },
        { name: 'run_shell_command', args: { command: 'npm test' } },
      ],
      { dialect: 'gemini-todos' }
    )
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.results, [
      {
        tool_use_id: 'call_1',
        name: 'write_todos',
        is_error: false,
        content:
          'Successfully updated the todo list. The current list is now:\n1. [completed] Read\n2. [in_progress] Fix',
        structured: { todos: [todo('Read', 'completed'), todo('Fix', 'in_progress')] },
      },
    ])
    assert.equal(res.body.progress.percent, 50)
  })

  it('Should answer a bad call with is_error and leave the list unchanged', async () => {
    const t = makeTestApp()
    await round(t, 'gm2', [{ name: 'write_todos', args: { todos: [todo('A')] } }], {
      dialect: 'gemini-todos',
    })
    const res = await round(t, 'gm2', [
      {
        name: 'write_todos',
        args: { todos: [todo('A', 'in_progress'), todo('B', 'in_progress')] },
      },
    ])
    assert.equal(res.body.results[0].is_error, true)
    assert.equal(
      res.body.results[0].content,
      'Invalid parameters: Only one task can be "in_progress" at a time.'
    )
    const session = await t.call('GET', '/v1/sessions/gm2')
    assert.deepEqual(
      session.body.items.map((i: { content: string; status: string }) => [i.content, i.status]),
      [['A', 'pending']]
    )
  })

  it('Should report dropped todos and keep ids through a reorder', async () => {
    const t = makeTestApp()
    await round(
      t,
      'gm3',
      [{ name: 'write_todos', args: { todos: [todo('A'), todo('B'), todo('C')] } }],
      {
        dialect: 'gemini-todos',
      }
    )
    const res = await round(t, 'gm3', [
      { name: 'write_todos', args: { todos: [todo('C'), todo('A')] } },
    ])
    assert.deepEqual(
      res.body.dropped.map((i: { id: string; content: string }) => [i.id, i.content]),
      [['2', 'B']]
    )
    const rendered = await t.call('GET', '/v1/sessions/gm3/render')
    assert.equal(rendered.text, '1. [pending] C\n2. [pending] A')
    const session = await t.call('GET', '/v1/sessions/gm3')
    assert.deepEqual(
      session.body.items.map((i: { id: string }) => i.id),
      ['3', '1']
    )
  })

  it('Should remind after 3 rounds without write_todos', async () => {
    const t = makeTestApp()
    await round(t, 'gm4', [{ name: 'write_todos', args: { todos: [todo('A')] } }], {
      dialect: 'gemini-todos',
    })
    const reminders: unknown[] = []
    for (let i = 0; i < 4; i++)
      reminders.push((await round(t, 'gm4', [{ name: 'glob' }])).body.reminder)
    const text = { text: '<reminder>Update your todo list with write_todos.</reminder>' }
    assert.deepEqual(reminders, [null, null, text, text])
  })

  it('Should refuse an operator list with two tasks in progress (422)', async () => {
    const t = makeTestApp()
    const res = await t.call('PUT', '/v1/sessions/gm5/todos', {
      dialect: 'gemini-todos',
      items: [
        { id: '1', content: 'A', status: 'in_progress' },
        { id: '2', content: 'B', status: 'in_progress' },
      ],
    })
    assert.equal(res.status, 422)
    assert.equal(
      res.body.detail,
      'Invalid parameters: Only one task can be "in_progress" at a time.'
    )
  })
})
