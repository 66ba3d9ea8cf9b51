import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Item } from '../../core/items.js'
import { decodeTodoWrite, opencodeTodos, renderOpencodeTodos } from './index.js'
import { dialectKit, fieldsOf, jsonCall, todosParameters } from '../../../test/dialect-support.js'

/**
 * opencode 1.18.33's todowrite schema: its effect Schema through `ToolJsonSchema.fromSchema`
 * (`$ref` to `Todo` inlined, `additionalProperties: true` removed), without `$schema`.
 */
const NATIVE_PARAMETERS = todosParameters(
  {
    properties: {
      content: { type: 'string', description: 'Brief description of the task' },
      status: {
        type: 'string',
        description: 'Current status of the task: pending, in_progress, completed, cancelled',
      },
      priority: { type: 'string', description: 'Priority level of the task: high, medium, low' },
    },
    required: ['content', 'status', 'priority'],
  },
  { description: 'The updated todo list' }
)

const kit = dialectKit(opencodeTodos, 'todowrite')
const { apply, errorOf, http } = kit
const todo = (content: string, status = 'pending', priority = 'medium') => ({
  content,
  status,
  priority,
})
const invalid = (detail: string) =>
  `The todowrite tool was called with invalid arguments: ${detail}.\nPlease rewrite the input so it satisfies the expected schema.`
describe('opencode-todos tool definition', () => {
  it('Should carry the derived schema and the native description', () => {
    const description = kit.assertNativeTool({
      name: 'todowrite',
      parameters: NATIVE_PARAMETERS,
      starts:
        'Create and maintain a structured task list for the current coding session. Tracks progress, organizes multi-step work, and surfaces status to the user.\n\n## When to use\nUse proactively when:\n',
      ends: '-> one command\n\nWhen in doubt, use it.\n',
    })
    assert.ok(
      description.includes('\n- `in_progress` - actively working (exactly ONE at a time)\n')
    )
  })

  it('Should be served by GET /v1/tools', async () => {
    const [tool] = (await http.tools('anthropic')).tools
    assert.deepEqual([tool.name, tool.input_schema], ['todowrite', NATIVE_PARAMETERS])
  })
})

describe('opencode-todos results', () => {
  it('Should answer with JSON.stringify(todos, null, 2) and store any status or priority word', () => {
    const outcome = apply({
      todos: [todo('Ship', 'doing', 'urgent'), todo('Test', 'cancelled', 'low')],
    })
    assert.equal(outcome.result.is_error, false)
    assert.equal(
      outcome.result.content,
      '[\n  {\n    "content": "Ship",\n    "status": "doing",\n    "priority": "urgent"\n  },\n  {\n    "content": "Test",\n    "status": "cancelled",\n    "priority": "low"\n  }\n]'
    )
    assert.deepEqual(fieldsOf(outcome.state.items, 'id', 'content', 'status', 'metadata'), [
      ['1', 'Ship', 'pending', { priority: 'urgent', status: 'doing' }],
      ['2', 'Test', 'cancelled', { priority: 'low' }],
    ])
  })

  it('Should print the decoded todos: schema key order, extra keys dropped', () => {
    const outcome = apply({
      todos: [{ priority: 'high', extra: 1, status: 'in_progress', content: 'é "q"\n' }],
      other: true,
    })
    assert.equal(
      outcome.result.content,
      '[\n  {\n    "content": "é \\"q\\"\\n",\n    "status": "in_progress",\n    "priority": "high"\n  }\n]'
    )
    assert.deepEqual(outcome.result.structured, {
      todos: [{ content: 'é "q"\n', status: 'in_progress', priority: 'high' }],
    })
  })

  it('Should answer [] with []', () => {
    assert.equal(apply({ todos: [] }).result.content, '[]')
  })

  it('Should keep identity by content, then position, and report dropped items', () => {
    const first = apply({ todos: [todo('A', 'in_progress'), todo('B'), todo('C')] })
    const second = apply({ todos: [todo('C', 'in_progress'), todo('A', 'completed')] }, first.state)
    assert.deepEqual(fieldsOf(second.state.items, 'id', 'content'), [
      ['3', 'C'],
      ['1', 'A'],
    ])
    assert.deepEqual(fieldsOf(second.dropped, 'content'), [['B']])
  })
})

describe('opencode-todos errors (effect Schema decode, as opencode words them)', () => {
  it('Should name a missing key with its path', () => {
    assert.equal(errorOf({}), invalid('SchemaError(Missing key\n  at ["todos"])'))
    assert.equal(
      errorOf({ todos: [{ content: 'a', status: 'b' }] }),
      invalid('SchemaError(Missing key\n  at ["todos"][0]["priority"])')
    )
    assert.equal(
      errorOf({ todos: [todo('a'), { status: 5 }] }),
      invalid('SchemaError(Missing key\n  at ["todos"][1]["content"])')
    )
  })

  it('Should name the expected type and the value sent', () => {
    assert.equal(
      errorOf({ todos: 'x' }),
      invalid('SchemaError(Expected array, got "x"\n  at ["todos"])')
    )
    assert.equal(
      errorOf({ todos: '[]' }),
      invalid('SchemaError(Expected array, got "[]"\n  at ["todos"])')
    )
    assert.equal(
      errorOf({ todos: null }),
      invalid('SchemaError(Expected array, got null\n  at ["todos"])')
    )
    assert.equal(
      errorOf({ todos: { a: [1, 'x'] } }),
      invalid('SchemaError(Expected array, got {"a":[1,"x"]}\n  at ["todos"])')
    )
    assert.equal(
      errorOf({ todos: [todo('a'), 'q'] }),
      invalid('SchemaError(Expected Todo, got "q"\n  at ["todos"][1])')
    )
    assert.equal(
      errorOf({ todos: [{ content: 1, status: 'b', priority: 'c' }] }),
      invalid('SchemaError(Expected string, got 1\n  at ["todos"][0]["content"])')
    )
    assert.equal(errorOf(null), invalid('SchemaError(Expected object, got null)'))
    assert.equal(errorOf([]), invalid('SchemaError(Expected object, got [])'))
  })

  it("Should hand malformed arguments to opencode's invalid tool, with Bun's JSON.parse words", () => {
    // as opencode 1.18.33 answered these arguments
    const invalidTool = (raw: string, message: string) =>
      `The arguments provided to the tool are invalid: Invalid input for tool todowrite: JSON parsing failed: Text: ${raw}.\nError message: JSON Parse error: ${message}`
    for (const [raw, message] of [
      ['{"todos": [', 'Unexpected EOF'],
      ['{"todos": "abc', 'Unterminated string'],
      ['{"todos": []} x', 'Unable to parse JSON string'],
      ['{"todos": "\\q"}', 'Invalid escape character q'],
    ]) {
      assert.equal(opencodeTodos.argumentsError('todowrite', raw), invalidTool(raw, message))
    }
  })

  it('Should decode only what the schema names', () => {
    assert.deepEqual(decodeTodoWrite({ todos: [{ ...todo('a'), id: 'x' }] }), {
      ok: true,
      todos: [todo('a')],
    })
  })
})

describe('opencode-todos list rules and rendering', () => {
  const item = (id: string, content: string, status: Item['status'], metadata?: object) =>
    makeItem({ id, content, status, metadata: metadata as Record<string, unknown> | undefined })

  it('Should render the todos the items stand for', () => {
    assert.equal(
      renderOpencodeTodos([
        item('1', 'A', 'pending', { status: 'doing', priority: 'high' }),
        item('2', 'B', 'blocked'),
      ]),
      '[\n  {\n    "content": "A",\n    "status": "doing",\n    "priority": "high"\n  },\n  {\n    "content": "B",\n    "status": "blocked",\n    "priority": "medium"\n  }\n]'
    )
    assert.equal(renderOpencodeTodos([]), '[]')
    assert.equal(
      renderOpencodeTodos([item('1', 'A', 'completed', { status: 'doing', priority: 'high' })]),
      '[\n  {\n    "content": "A",\n    "status": "completed",\n    "priority": "high"\n  }\n]'
    )
  })

  it("Should take any person's list, as opencode takes any strings", () => {
    assert.equal(opencodeTodos.checkList([item('1', 'A', 'blocked')]).ok, true)
  })
})

describe('opencode-todos over HTTP', () => {
  it('Should apply todowrite from OpenAI arguments and remind after 3 rounds without it', async () => {
    const { t, res } = await http.firstRound('oc1', [
      jsonCall('c1', 'todowrite', { todos: [todo('Research', 'in_progress', 'high')] }),
    ])
    assert.equal(
      res.body.results[0].content,
      '[\n  {\n    "content": "Research",\n    "status": "in_progress",\n    "priority": "high"\n  }\n]'
    )
    assert.deepEqual(await http.reminders(t, 'oc1', 3), [
      null,
      null,
      { text: '<reminder>Update your todo list with todowrite.</reminder>' },
    ])
  })

  it('Should answer a bad call with is_error and keep the list', async () => {
    const { t, res } = await http.secondRound(
      'oc2',
      [{ name: 'todowrite', input: { todos: [todo('A')] } }],
      [{ name: 'todowrite', input: { todos: [{ content: 'B' }] } }]
    )
    assert.equal(res.body.results[0].is_error, true)
    assert.equal(
      res.body.results[0].content,
      invalid('SchemaError(Missing key\n  at ["todos"][0]["status"])')
    )
    assert.deepEqual(fieldsOf((await http.view(t, 'oc2')).items, 'content'), [['A']])
  })
})
