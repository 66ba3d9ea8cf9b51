import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Status } from '../../core/items.js'
import { geminiTodos, renderGeminiTodos } from './index.js'
import { formatTool } from '../../tools/formats.js'
import { dialectKit, fieldsOf, todosParameters } from '../../../test/dialect-support.js'
import { makeTestApp } from '../../../test/helpers.js'

/** Gemini CLI's `parametersJsonSchema` of write_todos (`@google/gemini-cli-core` 0.61.0). */
const NATIVE_PARAMETERS = todosParameters(
  {
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
  { description: 'The complete list of todo items. This will replace the existing list.' },
  { additionalProperties: false }
)

const kit = dialectKit(geminiTodos, 'write_todos')
const { apply, errorOf, http } = kit
const todo = (description: string, status = 'pending') => ({ description, status })
/** A round's write_todos call, its todos given as Gemini args. */
const write = (...todos: object[]) => ({ name: 'write_todos', args: { todos } })

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
    const tools = await http.assertServedOpenai({
      name: 'write_todos',
      parameters: NATIVE_PARAMETERS,
    })
    assert.equal(tools.length, 1)
    assert.equal(tools[0].type, 'function')
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
    assert.deepEqual(fieldsOf(second.state.items, 'content', 'id', 'status'), [
      ['C', '3', 'in_progress'],
      ['A', '1', 'completed'],
    ])
    // B was blocked, so unfinished; D was cancelled, so it counts as finished
    assert.deepEqual(fieldsOf(second.dropped, 'id', 'content'), [['2', 'B']])
  })
})

describe('gemini-todos list rules and rendering', () => {
  const item = (id: string, content: string, status: Status) => makeItem({ id, content, status })

  it('Should apply the one-in-progress rule and the description rule to an operator list', () => {
    kit.assertListRefused(
      [item('1', 'a', 'in_progress'), item('2', 'b', 'in_progress')],
      'Invalid parameters: Only one task can be "in_progress" at a time.'
    )
    kit.assertListRefused(
      [item('1', ' ', 'pending')],
      'Each todo must have a non-empty description string'
    )
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
    const { res } = await http.firstRound('gm1', [
      { name: 'read_file', args: { file_path: 'a.ts' } },
      write(todo('Read', 'completed'), todo('Fix', 'in_progress')),
      { name: 'run_shell_command', args: { command: 'npm test' } },
    ])
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
    const { t, res } = await http.secondRound(
      'gm2',
      [write(todo('A'))],
      [write(todo('A', 'in_progress'), todo('B', 'in_progress'))]
    )
    assert.equal(res.body.results[0].is_error, true)
    assert.equal(
      res.body.results[0].content,
      'Invalid parameters: Only one task can be "in_progress" at a time.'
    )
    assert.deepEqual(fieldsOf((await http.view(t, 'gm2')).items, 'content', 'status'), [
      ['A', 'pending'],
    ])
  })

  it('Should report dropped todos and keep ids through a reorder', async () => {
    const t = await http.reorder('gm3', (contents) => write(...contents.map((c) => todo(c))))
    const rendered = await t.call('GET', '/v1/sessions/gm3/render')
    assert.equal(rendered.text, '1. [pending] C\n2. [pending] A')
    assert.deepEqual(fieldsOf((await http.view(t, 'gm3')).items, 'id'), [['3'], ['1']])
  })

  it('Should remind after 3 rounds without write_todos', async () => {
    const t = await http.afterRound('gm4', [write(todo('A'))])
    const text = { text: '<reminder>Update your todo list with write_todos.</reminder>' }
    assert.deepEqual(await http.reminders(t, 'gm4', 4, 'glob'), [null, null, text, text])
  })

  it('Should refuse an operator list with two tasks in progress (422)', async () => {
    const detail = await http.refusedPut(makeTestApp(), 'gm5', {
      dialect: 'gemini-todos',
      items: [
        { id: '1', content: 'A', status: 'in_progress' },
        { id: '2', content: 'B', status: 'in_progress' },
      ],
    })
    assert.equal(detail, 'Invalid parameters: Only one task can be "in_progress" at a time.')
  })
})
