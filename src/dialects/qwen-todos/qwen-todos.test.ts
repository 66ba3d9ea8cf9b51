import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Item } from '../../core/items.js'
import { qwenTodos, renderQwenTodos, UNCHANGED_TEXT, validateQwenTodos } from './index.js'
import { dialectKit, fieldsOf, jsonCall, todosParameters } from '../../../test/dialect-support.js'
import { round } from '../../../test/helpers.js'

/**
 * todo_write's parameters as Qwen Code 0.24.4 sent them to an OpenAI-compatible model (captured):
 * its `parametersJsonSchema` relaxed for function calling (no `$schema`, `uniqueItems`, or the
 * items' `additionalProperties: false`).
 */
const NATIVE_PARAMETERS = todosParameters(
  {
    properties: {
      content: { type: 'string', minLength: 1 },
      status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
      id: { type: 'string', maxLength: 500 },
      blockedBy: {
        type: 'array',
        items: { type: 'string', maxLength: 500 },
        description:
          'Todo IDs that must be completed before this item. Active-plan updates preserve omitted dependencies for existing IDs; use [] to remove them.',
      },
    },
    required: ['content', 'status', 'id'],
  },
  { description: 'The updated todo list' }
)

/** The result texts as Qwen Code 0.24.4 produced them (its todoWrite.ts run on these inputs). */
const modified = (json: string) =>
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable\n\n<system-reminder>\nYour todo list has changed. DO NOT mention this explicitly to the user. Here are the latest contents of your todo list:\n\n' +
  json +
  '. Continue on with the tasks at hand if applicable.\n</system-reminder>'
const CLEARED =
  'Todo list has been cleared.\n\n<system-reminder>\nYour todo list is now empty. DO NOT mention this explicitly to the user. You have no pending tasks in your todo list.\n</system-reminder>'
const UNCHANGED =
  'Todo list is already up to date. No changes were needed.\n\n<system-reminder>\nYour todo list was not modified because it is already current. Continue with your existing tasks.\n</system-reminder>'

const kit = dialectKit(qwenTodos, 'todo_write')
const { apply, errorOf, http, run } = kit
const todo = (id: string, content: string, status = 'pending', extra: object = {}) => ({
  id,
  content,
  status,
  ...extra,
})
/** A round's todo_write call of these todos. */
const write = (...todos: object[]) => ({ name: 'todo_write', input: { todos } })

describe('qwen-todos tool definition', () => {
  it('Should carry the native parametersJsonSchema and description', () => {
    kit.assertNativeTool({
      name: 'todo_write',
      parameters: NATIVE_PARAMETERS,
      starts:
        '\nUse this tool to create and manage a user-visible task list when explicit progress tracking improves clarity.\n\n## When to Use This Tool\n',
      ends: 'remove items that are no longer relevant. Do not mark incomplete or blocked work completed.\n',
    })
  })

  it('Should be served by GET /v1/tools', async () => {
    const { tools } = await http.tools('mcp')
    assert.equal(tools[0].name, 'todo_write')
    assert.deepEqual(tools[0].inputSchema, NATIVE_PARAMETERS)
  })
})

describe('qwen-todos results (texts of Qwen Code 0.24.4)', () => {
  it('Should answer a write with the JSON of the list as sent', () => {
    const [first] = run({ todos: [todo('1', 'A', 'in_progress'), todo('2', 'B', 'in_progress')] })
    assert.equal(first.result.is_error, false)
    assert.equal(
      first.result.content,
      modified(
        '[{"id":"1","content":"A","status":"in_progress"},{"id":"2","content":"B","status":"in_progress"}]'
      )
    )
    assert.deepEqual(first.result.structured, {
      type: 'todo_list',
      todos: [todo('1', 'A', 'in_progress'), todo('2', 'B', 'in_progress')],
      changes: {
        created: [todo('1', 'A', 'in_progress'), todo('2', 'B', 'in_progress')],
        completed: [],
      },
    })
  })

  it('Should echo keys in the order sent and keep keys the schema does not name', () => {
    const sent = { status: 'pending', content: 'é "q" \u2028 <x>', id: 'z', priority: 'high' }
    const [first, again] = run({ todos: [sent] }, { todos: [{ ...sent }] })
    assert.equal(
      first.result.content,
      modified('[{"status":"pending","content":"é \\"q\\" \u2028 <x>","id":"z","priority":"high"}]')
    )
    assert.equal(again.result.content, UNCHANGED)
  })

  it('Should say the list is up to date for an identical write, and for [] on an empty list', () => {
    const outcomes = run(
      { todos: [] },
      { todos: [todo('1', 'A')] },
      { todos: [todo('1', 'A')] },
      { todos: [] },
      { todos: [] }
    )
    assert.deepEqual(
      outcomes.map((o) => o.result.content),
      [
        UNCHANGED,
        modified('[{"id":"1","content":"A","status":"pending"}]'),
        UNCHANGED,
        CLEARED,
        UNCHANGED,
      ]
    )
    assert.equal(UNCHANGED_TEXT, UNCHANGED)
    assert.equal(outcomes[2].state, outcomes[1].state)
    assert.deepEqual(
      outcomes[3].dropped.map((item) => item.id),
      ['1']
    )
  })

  it('Should keep the model ids as item ids and blockedBy as blocked_by', () => {
    const [first] = run({
      todos: [
        todo('design', 'Design', 'completed'),
        todo('build', 'Build', 'pending', { blockedBy: ['design'] }),
      ],
    })
    assert.deepEqual(
      first.state.items.map((i) => [i.id, i.content, i.status, i.blocked_by, i.blocks]),
      [
        ['design', 'Design', 'completed', [], ['build']],
        ['build', 'Build', 'pending', ['design'], []],
      ]
    )
  })

  it('Should keep omitted dependencies of an active plan, and drop them with []', () => {
    const outcomes = run(
      {
        todos: [
          todo('1', 'A', 'in_progress'),
          todo('2', 'B', 'pending', { blockedBy: ['1'] }),
          todo('3', 'C', 'pending', { blockedBy: ['1', '2'] }),
        ],
      },
      { todos: [todo('1', 'A', 'completed'), todo('2', 'B', 'in_progress'), todo('3', 'C')] },
      { todos: [todo('2', 'B', 'completed'), todo('3', 'C', 'in_progress')] },
      { todos: [todo('2', 'B', 'completed'), todo('3', 'C', 'in_progress', { blockedBy: [] })] }
    )
    assert.deepEqual(
      outcomes.slice(1).map((o) => o.result.content),
      [
        '[{"id":"1","content":"A","status":"completed"},{"id":"2","content":"B","status":"in_progress","blockedBy":["1"]},{"id":"3","content":"C","status":"pending","blockedBy":["1","2"]}]',
        '[{"id":"2","content":"B","status":"completed","blockedBy":[]},{"id":"3","content":"C","status":"in_progress","blockedBy":["2"]}]',
        '[{"id":"2","content":"B","status":"completed","blockedBy":[]},{"id":"3","content":"C","status":"in_progress","blockedBy":[]}]',
      ].map(modified)
    )
  })

  it('Should not keep dependencies once every item of the plan is completed', () => {
    const outcomes = run(
      { todos: [todo('a', 'A', 'completed'), todo('b', 'B', 'completed', { blockedBy: ['a'] })] },
      { todos: [todo('a', 'A', 'completed'), todo('b', 'B', 'pending')] }
    )
    assert.equal(
      outcomes[1].result.content,
      modified(
        '[{"id":"a","content":"A","status":"completed"},{"id":"b","content":"B","status":"pending"}]'
      )
    )
  })

  it('Should drop a kept dependency that would make a cycle', () => {
    const outcomes = run(
      { todos: [todo('a', 'A'), todo('b', 'B', 'pending', { blockedBy: ['a'] })] },
      { todos: [todo('a', 'A', 'pending', { blockedBy: ['b'] }), todo('b', 'B')] }
    )
    assert.equal(
      outcomes[1].result.content,
      modified(
        '[{"id":"a","content":"A","status":"pending","blockedBy":["b"]},{"id":"b","content":"B","status":"pending"}]'
      )
    )
  })
})

describe('qwen-todos errors (validateTodos, in its order)', () => {
  it('Should give the exact texts', () => {
    const idError = 'Each todo must have a non-empty "id" string of at most 500 characters.'
    for (const id of ['', '  ', 'x'.repeat(501)]) {
      assert.equal(errorOf({ todos: [todo(id, 'A')] }), idError)
    }
    const cases: [todos: object[], error: string][] = [
      [[todo('1', ' ')], 'Each todo must have a non-empty "content" string.'],
      [
        [todo('1', 'A', 'cancelled')],
        'Each todo must have a valid "status" (pending, in_progress, completed).',
      ],
      [[todo('1', 'A'), todo('1', 'B')], 'Todo IDs must be unique within the array.'],
      [
        [todo('1', 'A'), todo('2', 'B', 'pending', { blockedBy: ['9'] })],
        'Todo "2" references unknown dependency "9".',
      ],
      [
        [todo('1', 'A', 'pending', { blockedBy: [''] })],
        'Each todo "blockedBy" value must be an array of non-empty Todo IDs of at most 500 characters.',
      ],
      [
        [todo('a', 'A'), todo('b', 'B', 'pending', { blockedBy: ['a', 'a'] })],
        'Todo "b" must not contain duplicate blockedBy references.',
      ],
      [[todo('a', 'A', 'pending', { blockedBy: ['a'] })], 'Todo "a" must not depend on itself.'],
      [
        [
          todo('a', 'A', 'pending', { blockedBy: ['b'] }),
          todo('b', 'B', 'pending', { blockedBy: ['a'] }),
        ],
        'Todo dependencies must not contain a cycle.',
      ],
    ]
    for (const [todos, error] of cases) assert.equal(errorOf({ todos }), error)
  })

  it('Should check each item fully before the next, and ids before content', () => {
    assert.equal(
      errorOf({ todos: [todo('1', '', 'done'), todo('', 'B')] }),
      'Each todo must have a non-empty "content" string.'
    )
    assert.equal(
      errorOf({ todos: [{ content: '', status: 'x' }] }),
      'Each todo must have a non-empty "id" string of at most 500 characters.'
    )
  })

  it('Should refuse a list that is no array, a list sent as a JSON string included', () => {
    assert.equal(errorOf({}), 'Parameter "todos" must be an array.')
    assert.equal(errorOf({ todos: '[]' }), 'Parameter "todos" must be an array.')
    assert.equal(errorOf({ todos: [null] }), 'Each todo must be an object.')
    assert.equal(errorOf(null), "Cannot read properties of null (reading 'todos')")
    assert.equal(
      qwenTodos.argumentsError('todo_write', '{"todos": ['),
      'Parameter "todos" must be an array.'
    )
  })

  it('Should accept 500-character ids and several in_progress', () => {
    assert.equal(
      validateQwenTodos([todo('x'.repeat(500), 'A', 'in_progress'), todo('2', 'B', 'in_progress')]),
      null
    )
  })
})

describe('qwen-todos strict-mode nulls', () => {
  it('Should read blockedBy: null as absent, as strict-mode callers mean it', () => {
    const outcome = apply({ todos: [todo('1', 'A', 'pending', { blockedBy: null })] })
    assert.equal(outcome.result.is_error, false)
    assert.equal(outcome.result.content, modified('[{"id":"1","content":"A","status":"pending"}]'))
  })
})

describe('qwen-todos list rules and rendering', () => {
  const item = (id: string, content: string, status: Item['status'], blocked_by: string[] = []) =>
    makeItem({ id, content, status, blocked_by })

  it("Should check a person's list by Qwen's rules", () => {
    kit.assertListRefused(
      [item('1', 'A', 'pending'), item('2', 'B', 'blocked')],
      'Each todo must have a valid "status" (pending, in_progress, completed).'
    )
    kit.assertListRefused(
      [item('1', 'A', 'pending', ['7'])],
      'Todo "1" references unknown dependency "7".'
    )
    const ok = qwenTodos.checkList([item('1', 'A', 'pending'), item('2', 'B', 'pending', ['1'])])
    assert.ok(ok.ok)
    assert.deepEqual(ok.items[0].blocks, ['2'])
  })

  it('Should render the JSON of the list', () => {
    assert.equal(
      renderQwenTodos([item('1', 'A', 'completed'), item('2', 'B', 'in_progress', ['1'])]),
      '[{"id":"1","content":"A","status":"completed"},{"id":"2","content":"B","status":"in_progress","blockedBy":["1"]}]'
    )
    assert.equal(renderQwenTodos([]), '[]')
  })
})

describe('qwen-todos over HTTP', () => {
  it('Should apply todo_write from OpenAI arguments and keep the model ids', async () => {
    const { t, res } = await http.firstRound('qw1', [
      jsonCall('c1', 'todo_write', { todos: [todo('t-1', 'Research', 'in_progress')] }),
      { id: 'c2', name: 'read_file', arguments: '{}' },
    ])
    assert.equal(res.body.results.length, 1)
    assert.equal(
      res.body.results[0].content,
      modified('[{"id":"t-1","content":"Research","status":"in_progress"}]')
    )
    assert.deepEqual(fieldsOf((await http.view(t, 'qw1')).items, 'id'), [['t-1']])
  })

  it("Should compare with a person's edit, not with the last write", async () => {
    const t = await http.afterRound('qw2', [write(todo('1', 'A'))])
    const put = await t.call('PUT', '/v1/sessions/qw2/todos', {
      items: [{ id: '1', content: 'A', status: 'in_progress' }],
    })
    assert.equal(put.status, 200)
    const res = await round(t, 'qw2', [write(todo('1', 'A', 'in_progress'))])
    assert.equal(res.body.results[0].content, UNCHANGED)
    const detail = await http.refusedPut(t, 'qw2', {
      items: [{ id: '1', content: 'A', status: 'cancelled' }],
    })
    assert.equal(detail, 'Each todo must have a valid "status" (pending, in_progress, completed).')
  })

  it('Should remind after 3 rounds without todo_write', async () => {
    const t = await http.afterRound('qw3', [write(todo('1', 'A'))])
    assert.deepEqual(await http.reminders(t, 'qw3', 3), [
      null,
      null,
      { text: '<reminder>Update your todo list with todo_write.</reminder>' },
    ])
  })
})
