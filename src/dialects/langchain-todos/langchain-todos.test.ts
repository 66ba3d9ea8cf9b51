import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Status } from '../../core/items.js'
import { langchainTodos, PARALLEL_CALL_ERROR, renderLangchainTodos, updatedText } from './index.js'
import { pyRepr } from '../native/python.js'
import type { DialectState } from '../types.js'
import { formatTool } from '../../tools/formats.js'
import { makeTestApp, round } from '../../../test/helpers.js'

/** The args schema LangChain derives from `write_todos(todos: list[Todo])` (reference §6). */
const NATIVE_PARAMETERS = {
  type: 'object',
  properties: {
    todos: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          content: { type: 'string' },
          status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
        },
        required: ['content', 'status'],
        description: 'A single todo item with content and status.',
      },
    },
  },
  required: ['todos'],
}

const empty: DialectState = { items: [], data: {} }
const one = { callsInRound: 1, indexInRound: 0 }
const apply = (input: unknown, state: DialectState = empty, ctx = one) =>
  langchainTodos.apply(state, 'write_todos', input, ctx)
const errorOf = (input: unknown) => {
  const outcome = apply(input)
  assert.equal(outcome.result.is_error, true)
  assert.equal(outcome.state, empty)
  return outcome.result.content
}
const todo = (content: string, status = 'pending') => ({ content, status })

describe('langchain-todos tool definition', () => {
  it('Should carry the derived schema and the native description', () => {
    const tool = formatTool(langchainTodos.tools[0], 'openai') as {
      function: { name: string; description: string; parameters: unknown }
    }
    assert.equal(tool.function.name, 'write_todos')
    assert.deepEqual(tool.function.parameters, NATIVE_PARAMETERS)
    assert.match(
      tool.function.description,
      /^Use this tool to create and manage a structured task list/
    )
    assert.ok(
      tool.function.description.includes(
        'in_progress: Currently working on (you can have multiple tasks in_progress at a time if they are not related to each other and can be run in parallel)'
      )
    )
  })

  it('Should be served by GET /v1/tools in the OpenAI format', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/v1/tools?dialect=langchain-todos&format=openai')
    assert.equal(res.status, 200)
    assert.equal(res.body.tools[0].function.name, 'write_todos')
    assert.deepEqual(res.body.tools[0].function.parameters, NATIVE_PARAMETERS)
  })
})

describe('langchain-todos result text: the Python repr of the list', () => {
  it('Should print the list of dicts as Python does', () => {
    const outcome = apply({ todos: [todo('Write tests'), todo('Ship it', 'in_progress')] })
    assert.equal(outcome.result.is_error, false)
    assert.equal(
      outcome.result.content,
      "Updated todo list to [{'content': 'Write tests', 'status': 'pending'}, {'content': 'Ship it', 'status': 'in_progress'}]"
    )
    assert.deepEqual(outcome.result.structured, {
      todos: [todo('Write tests'), todo('Ship it', 'in_progress')],
    })
  })

  it("Should choose quotes and escapes as Python's repr does", () => {
    const pending = (content: string) => ({ content, status: 'pending' as const })
    assert.equal(
      updatedText([pending("Fix the user's bug")]),
      `Updated todo list to [{'content': "Fix the user's bug", 'status': 'pending'}]`
    )
    assert.equal(
      updatedText([pending(`Say "it's" done`)]),
      `Updated todo list to [{'content': 'Say "it\\'s" done', 'status': 'pending'}]`
    )
    assert.equal(
      updatedText([pending('a\\b\n\tc\u0007\u00ad\u00e9\u{1f600}')]),
      "Updated todo list to [{'content': 'a\\\\b\\n\\tc\\x07\\xad\u00e9\u{1f600}', 'status': 'pending'}]"
    )
    assert.equal(updatedText([]), 'Updated todo list to []')
  })

  it('Should keep the TypedDict key order and drop extra keys', () => {
    const outcome = apply({ todos: [{ status: 'completed', priority: 'high', content: 'Done' }] })
    assert.equal(
      outcome.result.content,
      "Updated todo list to [{'content': 'Done', 'status': 'completed'}]"
    )
  })

  it('Should allow several tasks in progress', () => {
    assert.equal(
      apply({ todos: [todo('a', 'in_progress'), todo('b', 'in_progress')] }).result.is_error,
      false
    )
  })

  it('Should print other JSON values as Python would', () => {
    assert.equal(
      pyRepr({ a: [1, 2.5, 1e-7, 1e21, true, null], b: 'x' }),
      "{'a': [1, 2.5, 1e-07, 1000000000000000000000, True, None], 'b': 'x'}"
    )
  })
})

describe('langchain-todos parallel calls', () => {
  it('Should reject every write_todos call when a round holds more than one', () => {
    const input = { todos: [todo('A')] }
    for (const indexInRound of [0, 1]) {
      const outcome = apply(input, empty, { callsInRound: 2, indexInRound })
      assert.deepEqual(outcome.result, {
        is_error: true,
        content: PARALLEL_CALL_ERROR,
        structured: null,
      })
      assert.equal(outcome.state, empty)
    }
    assert.equal(
      PARALLEL_CALL_ERROR,
      'Error: The `write_todos` tool should never be called multiple times in parallel. Please call it only once per model invocation to update the todo list.'
    )
  })
})

describe('langchain-todos validation errors (ToolNode template, pydantic messages)', () => {
  it('Should report a missing todos argument', () => {
    assert.equal(
      errorOf({}),
      "Error invoking tool 'write_todos' with kwargs {} with error:\n todos: Field required\n Please fix the error and try again."
    )
  })

  it('Should refuse a list sent as a JSON string, as pydantic does', () => {
    assert.equal(
      errorOf({ todos: '[]' }),
      "Error invoking tool 'write_todos' with kwargs {'todos': '[]'} with error:\n todos: Input should be a valid list\n Please fix the error and try again."
    )
  })

  it('Should list every item error in pydantic order', () => {
    assert.equal(
      errorOf({ todos: [todo('ok'), { content: 5, status: 'done' }, 'x', { content: 'y' }] }),
      "Error invoking tool 'write_todos' with kwargs {'todos': [{'content': 'ok', 'status': 'pending'}, {'content': 5, 'status': 'done'}, 'x', {'content': 'y'}]} with error:\n" +
        ' todos.1.content: Input should be a valid string\n' +
        "todos.1.status: Input should be 'pending', 'in_progress' or 'completed'\n" +
        'todos.2: Input should be a valid dictionary\n' +
        'todos.3.status: Field required\n' +
        ' Please fix the error and try again.'
    )
  })

  it('Should answer unparseable arguments as langchain-core does', () => {
    assert.equal(
      langchainTodos.argumentsError('write_todos', '{"todos": ['),
      "Error: Failed to parse tool call arguments for 'write_todos'.\nPlease fix your mistakes and try again."
    )
  })
})

describe('langchain-todos identity and dropped items', () => {
  it('Should keep ids across a reordering rewrite and report dropped unfinished todos', () => {
    const first = apply({
      todos: [todo('A', 'in_progress'), todo('B'), todo('C'), todo('D', 'completed')],
    })
    const second = apply({ todos: [todo('C', 'in_progress'), todo('A', 'completed')] }, first.state)
    assert.deepEqual(
      second.state.items.map((i) => [i.content, i.id]),
      [
        ['C', '3'],
        ['A', '1'],
      ]
    )
    assert.deepEqual(
      second.dropped.map((i) => [i.id, i.content]),
      [['2', 'B']]
    )
  })
})

describe('langchain-todos list rules and rendering', () => {
  const item = (id: string, content: string, status: Status) => makeItem({ id, content, status })

  it('Should refuse statuses LangChain does not know', () => {
    assert.deepEqual(
      langchainTodos.checkList([item('1', 'a', 'pending'), item('2', 'b', 'blocked')]),
      {
        ok: false,
        message: "todos.1.status: Input should be 'pending', 'in_progress' or 'completed'",
      }
    )
    assert.equal(
      langchainTodos.checkList([item('1', 'a', 'in_progress'), item('2', 'b', 'in_progress')]).ok,
      true
    )
  })

  it('Should render a checklist', () => {
    assert.equal(
      renderLangchainTodos([item('1', 'A', 'completed'), item('2', 'B', 'in_progress')]),
      '[x] A\n[>] B\n\n(1/2 completed)'
    )
    assert.equal(renderLangchainTodos([]), 'No todos.')
  })
})

describe('langchain-todos over HTTP', () => {
  it('Should apply write_todos in a round mixed with other tools', async () => {
    const t = makeTestApp()
    const res = await round(
      t,
      'lc1',
      [
        {
          id: 'c1',
          name: 'write_todos',
          arguments: JSON.stringify({ todos: [todo('Research', 'in_progress')] }),
        },
        { id: 'c2', name: 'read_file', arguments: '{"file_path":"/a"}' },
      ],
      { dialect: 'langchain-todos' }
    )
    assert.equal(res.status, 200)
    assert.deepEqual(res.body.results, [
      {
        tool_use_id: 'c1',
        name: 'write_todos',
        is_error: false,
        content: "Updated todo list to [{'content': 'Research', 'status': 'in_progress'}]",
        structured: { todos: [todo('Research', 'in_progress')] },
      },
    ])
  })

  it('Should reject two write_todos calls in one round and keep the list', async () => {
    const t = makeTestApp()
    await round(t, 'lc2', [{ name: 'write_todos', input: { todos: [todo('A')] } }], {
      dialect: 'langchain-todos',
    })
    const res = await round(t, 'lc2', [
      { id: 'w1', name: 'write_todos', input: { todos: [todo('B')] } },
      { id: 'x', name: 'ls', input: {} },
      { id: 'w2', name: 'write_todos', input: { todos: [todo('C')] } },
    ])
    assert.deepEqual(
      res.body.results.map((r: { tool_use_id: string; is_error: boolean; content: string }) => [
        r.tool_use_id,
        r.is_error,
        r.content,
      ]),
      [
        ['w1', true, PARALLEL_CALL_ERROR],
        ['w2', true, PARALLEL_CALL_ERROR],
      ]
    )
    const session = await t.call('GET', '/v1/sessions/lc2')
    assert.deepEqual(
      session.body.items.map((i: { content: string }) => i.content),
      ['A']
    )
  })

  it('Should answer a bad call with is_error and leave the list unchanged', async () => {
    const t = makeTestApp()
    await round(t, 'lc3', [{ name: 'write_todos', input: { todos: [todo('A')] } }], {
      dialect: 'langchain-todos',
    })
    const res = await round(t, 'lc3', [
      { name: 'write_todos', input: { todos: [todo('B', 'started')] } },
    ])
    assert.equal(res.body.results[0].is_error, true)
    assert.equal(
      res.body.results[0].content,
      "Error invoking tool 'write_todos' with kwargs {'todos': [{'content': 'B', 'status': 'started'}]} with error:\n todos.0.status: Input should be 'pending', 'in_progress' or 'completed'\n Please fix the error and try again."
    )
    const session = await t.call('GET', '/v1/sessions/lc3')
    assert.deepEqual(
      session.body.items.map((i: { content: string }) => i.content),
      ['A']
    )
  })

  it('Should report dropped todos and keep ids through a reorder, and remind after 3 rounds', async () => {
    const t = makeTestApp()
    await round(
      t,
      'lc4',
      [{ name: 'write_todos', input: { todos: [todo('A'), todo('B'), todo('C')] } }],
      {
        dialect: 'langchain-todos',
      }
    )
    const res = await round(t, 'lc4', [
      { name: 'write_todos', input: { todos: [todo('C'), todo('A')] } },
    ])
    assert.deepEqual(
      res.body.dropped.map((i: { id: string; content: string }) => [i.id, i.content]),
      [['2', 'B']]
    )
    const session = await t.call('GET', '/v1/sessions/lc4')
    assert.deepEqual(
      session.body.items.map((i: { id: string }) => i.id),
      ['3', '1']
    )
    const reminders: unknown[] = []
    for (let i = 0; i < 3; i++)
      reminders.push((await round(t, 'lc4', [{ name: 'grep' }])).body.reminder)
    assert.deepEqual(reminders, [
      null,
      null,
      { text: '<reminder>Update your todo list with write_todos.</reminder>' },
    ])
  })
})
