import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Status } from '../../core/items.js'
import { langchainTodos, PARALLEL_CALL_ERROR, renderLangchainTodos, updatedText } from './index.js'
import { pyRepr } from '../native/python.js'
import type { DialectState } from '../types.js'
import { formatTool } from '../../tools/formats.js'
import { dialectKit, fieldsOf, jsonCall, todosParameters } from '../../../test/dialect-support.js'

/** The args schema LangChain derives from `write_todos(todos: list[Todo])` (reference §6). */
const NATIVE_PARAMETERS = todosParameters({
  properties: {
    content: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
  },
  required: ['content', 'status'],
  description: 'A single todo item with content and status.',
})

const kit = dialectKit(langchainTodos, 'write_todos')
const { apply, errorOf, http } = kit
const todo = (content: string, status = 'pending') => ({ content, status })
/**
 * The text LangChain's ToolNode answers a call whose arguments pydantic refuses with: the kwargs
 * as Python prints them, then pydantic's errors, one a line.
 */
const invalidKwargs = (kwargs: string, ...errors: string[]) =>
  `Error invoking tool 'write_todos' with kwargs ${kwargs} with error:\n ${errors.join('\n')}\n Please fix the error and try again.`
/** A round's write_todos call of these todos. */
const write = (...todos: object[]) => ({ name: 'write_todos', input: { todos } })

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
    await http.assertServedOpenai({ name: 'write_todos', parameters: NATIVE_PARAMETERS })
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
    const empty: DialectState = { items: [], data: {} }
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
    assert.equal(errorOf({}), invalidKwargs('{}', 'todos: Field required'))
  })

  it('Should refuse a list sent as a JSON string, as pydantic does', () => {
    assert.equal(
      errorOf({ todos: '[]' }),
      invalidKwargs("{'todos': '[]'}", 'todos: Input should be a valid list')
    )
  })

  it('Should list every item error in pydantic order', () => {
    assert.equal(
      errorOf({ todos: [todo('ok'), { content: 5, status: 'done' }, 'x', { content: 'y' }] }),
      invalidKwargs(
        "{'todos': [{'content': 'ok', 'status': 'pending'}, {'content': 5, 'status': 'done'}, 'x', {'content': 'y'}]}",
        'todos.1.content: Input should be a valid string',
        "todos.1.status: Input should be 'pending', 'in_progress' or 'completed'",
        'todos.2: Input should be a valid dictionary',
        'todos.3.status: Field required'
      )
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
    assert.deepEqual(fieldsOf(second.state.items, 'content', 'id'), [
      ['C', '3'],
      ['A', '1'],
    ])
    assert.deepEqual(fieldsOf(second.dropped, 'id', 'content'), [['2', 'B']])
  })
})

describe('langchain-todos list rules and rendering', () => {
  const item = (id: string, content: string, status: Status) => makeItem({ id, content, status })

  it('Should refuse statuses LangChain does not know', () => {
    kit.assertListRefused(
      [item('1', 'a', 'pending'), item('2', 'b', 'blocked')],
      "todos.1.status: Input should be 'pending', 'in_progress' or 'completed'"
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
    const { res } = await http.firstRound('lc1', [
      jsonCall('c1', 'write_todos', { todos: [todo('Research', 'in_progress')] }),
      { id: 'c2', name: 'read_file', arguments: '{"file_path":"/a"}' },
    ])
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
    const { t, res } = await http.secondRound(
      'lc2',
      [write(todo('A'))],
      [
        { id: 'w1', ...write(todo('B')) },
        { id: 'x', name: 'ls', input: {} },
        { id: 'w2', ...write(todo('C')) },
      ]
    )
    assert.deepEqual(fieldsOf(res.body.results, 'tool_use_id', 'is_error', 'content'), [
      ['w1', true, PARALLEL_CALL_ERROR],
      ['w2', true, PARALLEL_CALL_ERROR],
    ])
    assert.deepEqual(fieldsOf((await http.view(t, 'lc2')).items, 'content'), [['A']])
  })

  it('Should answer a bad call with is_error and leave the list unchanged', async () => {
    const { t, res } = await http.secondRound(
      'lc3',
      [write(todo('A'))],
      [write(todo('B', 'started'))]
    )
    assert.equal(res.body.results[0].is_error, true)
    assert.equal(
      res.body.results[0].content,
      invalidKwargs(
        "{'todos': [{'content': 'B', 'status': 'started'}]}",
        "todos.0.status: Input should be 'pending', 'in_progress' or 'completed'"
      )
    )
    assert.deepEqual(fieldsOf((await http.view(t, 'lc3')).items, 'content'), [['A']])
  })

  it('Should report dropped todos and keep ids through a reorder, and remind after 3 rounds', async () => {
    const t = await http.reorder('lc4', (contents) => write(...contents.map((c) => todo(c))))
    assert.deepEqual(fieldsOf((await http.view(t, 'lc4')).items, 'id'), [['3'], ['1']])
    assert.deepEqual(await http.reminders(t, 'lc4', 3), [
      null,
      null,
      { text: '<reminder>Update your todo list with write_todos.</reminder>' },
    ])
  })
})
