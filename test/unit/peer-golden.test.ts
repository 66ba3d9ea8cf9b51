/**
 * The natives' own test cases that apply to a dialect, as golden tests:
 * - gemini-cli `packages/core/src/tools/write-todos.test.ts` → gemini-todos
 * - LangChain `libs/langchain_v1/tests/unit_tests/agents/middleware/implementations/test_todo.py`
 *   → langchain-todos (tool execution, validation errors, parallel calls)
 * - learn-claude-code `tests/test_todo_manager.py` (TodoManager of s03_todo_write.py) → s03
 * - Qwen Code `packages/core/src/tools/todoWrite.test.ts` → qwen-todos (validation, results; the
 *   plan-id, workflow, hook and file cases have no counterpart here)
 * - opencode `packages/opencode/test/tool/todo.test.ts` → opencode-todos (the result's todos;
 *   its permission request has no counterpart here)
 * Each case keeps the peer's name; the assertions are the peer's, on the service's result.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { geminiTodos } from '../../src/dialects/gemini-todos/index.js'
import { langchainTodos, PARALLEL_CALL_ERROR } from '../../src/dialects/langchain-todos/index.js'
import { opencodeTodos } from '../../src/dialects/opencode-todos/index.js'
import { qwenTodos } from '../../src/dialects/qwen-todos/index.js'
import { s03 } from '../../src/dialects/s03/index.js'
import type { CallOutcome, Dialect, DialectState } from '../../src/dialects/types.js'
import { applyRound } from '../../src/dialects/round.js'

const EMPTY: DialectState = { items: [], data: {} }
const ONE = { callsInRound: 1, indexInRound: 0 }
const call = (dialect: Dialect, tool: string, input: unknown, state = EMPTY): CallOutcome =>
  dialect.apply(state, tool, input, ONE)

describe('gemini-cli write-todos.test.ts', () => {
  const write = (params: unknown) => call(geminiTodos, 'write_todos', params)
  const rejects = (params: unknown, message: string) => {
    const outcome = write(params)
    assert.equal(outcome.result.is_error, true)
    assert.ok(outcome.result.content.includes(message), outcome.result.content)
  }

  it('validation: should not throw for valid parameters', () => {
    const outcome = write({
      todos: [
        { description: 'Task 1', status: 'pending' },
        { description: 'Task 2', status: 'in_progress' },
        { description: 'Task 3', status: 'completed' },
      ],
    })
    assert.equal(outcome.result.is_error, false)
  })

  it('validation: should not throw for an empty list', () => {
    assert.equal(write({ todos: [] }).result.is_error, false)
  })

  it('validation: should throw an error if todos is not an array', () => {
    rejects({ todos: 'not-an-array' }, 'params/todos must be array')
  })

  it('validation: should throw an error if a todo item is not an object', () => {
    rejects({ todos: ['not-an-object'] }, 'params/todos/0 must be object')
  })

  it('validation: should throw an error if a todo description is missing or empty', () => {
    rejects(
      { todos: [{ description: '  ', status: 'pending' }] },
      'Each todo must have a non-empty description string'
    )
  })

  it('validation: should throw an error if a todo status is invalid', () => {
    rejects(
      { todos: [{ description: 'Task 1', status: 'invalid-status' }] },
      'params/todos/0/status must be equal to one of the allowed values'
    )
  })

  it('validation: should throw an error if more than one task is in_progress', () => {
    rejects(
      {
        todos: [
          { description: 'Task 1', status: 'in_progress' },
          { description: 'Task 2', status: 'in_progress' },
        ],
      },
      'Invalid parameters: Only one task can be "in_progress" at a time.'
    )
  })

  it('execute: should return a success message for clearing the list', () => {
    const outcome = write({ todos: [] })
    assert.equal(outcome.result.content, 'Successfully cleared the todo list.')
    assert.deepEqual(outcome.result.structured, { todos: [] })
  })

  it('execute: should return a formatted todo list on success', () => {
    const params = {
      todos: [
        { description: 'First task', status: 'completed' },
        { description: 'Second task', status: 'in_progress' },
        { description: 'Third task', status: 'pending' },
      ],
    }
    const outcome = write(params)
    assert.equal(
      outcome.result.content,
      'Successfully updated the todo list. The current list is now:\n1. [completed] First task\n2. [in_progress] Second task\n3. [pending] Third task'
    )
    assert.deepEqual(outcome.result.structured, params)
  })
})

describe('LangChain test_todo.py', () => {
  for (const [todos, expected] of [
    [[], 'Updated todo list to []'],
    [
      [{ content: 'Task 1', status: 'pending' }],
      "Updated todo list to [{'content': 'Task 1', 'status': 'pending'}]",
    ],
    [
      [
        { content: 'Task 1', status: 'pending' },
        { content: 'Task 2', status: 'in_progress' },
      ],
      "Updated todo list to [{'content': 'Task 1', 'status': 'pending'}, {'content': 'Task 2', 'status': 'in_progress'}]",
    ],
    [
      [
        { content: 'Task 1', status: 'pending' },
        { content: 'Task 2', status: 'in_progress' },
        { content: 'Task 3', status: 'completed' },
      ],
      "Updated todo list to [{'content': 'Task 1', 'status': 'pending'}, {'content': 'Task 2', 'status': 'in_progress'}, {'content': 'Task 3', 'status': 'completed'}]",
    ],
  ] as const) {
    it(`test_todo_middleware_write_todos_tool_execution: ${todos.length} todos`, () => {
      const outcome = call(langchainTodos, 'write_todos', { todos })
      assert.equal(outcome.result.content, expected)
      assert.deepEqual((outcome.result.structured as { todos: unknown }).todos, todos)
    })
  }

  for (const invalid of [
    [{ content: 'Task 1', status: 'invalid_status' }],
    [{ status: 'pending' }],
  ]) {
    it(`test_todo_middleware_write_todos_tool_validation_errors: ${JSON.stringify(invalid)}`, () => {
      const outcome = call(langchainTodos, 'write_todos', { todos: invalid })
      assert.equal(outcome.result.is_error, true)
      // "1 validation error for write_todos": ToolNode prints that one error as one loc line
      const detail = outcome.result.content.split(' with error:\n ')[1].split('\n Please fix')[0]
      assert.equal(detail.split('\n').length, 1, detail)
    })
  }

  const roundOf = (names: string[]) =>
    applyRound(
      null,
      { tenant: 't', sessionId: 's' },
      {
        dialect: 'langchain-todos',
        tool_calls: names.map((name, i) => ({
          id: name === 'write_todos' ? `call_${i}` : 'call_other',
          name,
          input:
            name === 'write_todos'
              ? { todos: [{ content: `Task ${i}`, status: 'pending' }] }
              : { param: 'value' },
        })),
      },
      0
    )

  it('test_parallel_write_todos_calls_rejected', () => {
    const outcome = roundOf(['write_todos', 'write_todos'])
    assert.deepEqual(
      outcome.results.map((r) => [r.tool_use_id, r.is_error, r.content]),
      [
        ['call_0', true, PARALLEL_CALL_ERROR],
        ['call_1', true, PARALLEL_CALL_ERROR],
      ]
    )
    assert.equal(
      PARALLEL_CALL_ERROR,
      'Error: The `write_todos` tool should never be called multiple times in parallel. Please call it only once per model invocation to update the todo list.'
    )
    assert.deepEqual(outcome.session.items, [])
  })

  it('test_parallel_write_todos_with_other_tools', () => {
    const outcome = roundOf(['some_other_tool', 'write_todos', 'write_todos'])
    assert.deepEqual(
      outcome.results.map((r) => [r.tool_use_id, r.is_error]),
      [
        ['call_1', true],
        ['call_2', true],
      ]
    )
  })

  it('test_single_write_todos_call_allowed', () => {
    const outcome = roundOf(['write_todos'])
    assert.equal(outcome.results[0].is_error, false)
    assert.deepEqual(
      outcome.session.items.map((i) => [i.content, i.status]),
      [['Task 0', 'pending']]
    )
  })
})

describe('learn-claude-code tests/test_todo_manager.py', () => {
  const update = (items: unknown, state = EMPTY) => call(s03, 'todo', { items }, state)
  const ok = (items: unknown) => {
    const outcome = update(items)
    assert.equal(outcome.result.is_error, false, outcome.result.content)
    return outcome
  }
  const raises = (items: unknown, match: string) => {
    const outcome = update(items)
    assert.equal(outcome.result.is_error, true)
    assert.ok(outcome.result.content.includes(match), outcome.result.content)
  }

  it('TestRender.test_empty_renders_no_todos', () => {
    assert.equal(s03.render([]), 'No todos.')
  })

  it('TestRender.test_render_markers', () => {
    const output = ok([
      { id: '1', text: 'Plan', status: 'completed' },
      { id: '2', text: 'Build', status: 'in_progress' },
      { id: '3', text: 'Test', status: 'pending' },
    ]).result.content
    for (const line of ['[x] #1: Plan', '[>] #2: Build', '[ ] #3: Test']) {
      assert.ok(output.includes(line), line)
    }
  })

  it('TestRender.test_render_completion_count', () => {
    const outcome = ok([
      { id: '1', text: 'Done', status: 'completed' },
      { id: '2', text: 'Todo', status: 'pending' },
    ])
    assert.ok(s03.render(outcome.state.items).includes('(1/2 completed)'))
  })

  it('TestUpdateHappyPath.test_single_item', () => {
    const outcome = ok([{ id: '1', text: 'Hello', status: 'pending' }])
    assert.ok(outcome.result.content.includes('[ ] #1: Hello'))
    assert.equal(outcome.state.items.length, 1)
  })

  it('TestUpdateHappyPath.test_max_20_items', () => {
    const items = Array.from({ length: 20 }, (_, i) => ({
      id: String(i + 1),
      text: `Task ${i + 1}`,
      status: 'pending',
    }))
    assert.ok(ok(items).result.content.includes('(0/20 completed)'))
  })

  it('TestUpdateHappyPath.test_one_in_progress_allowed', () => {
    const outcome = ok([
      { id: '1', text: 'A', status: 'in_progress' },
      { id: '2', text: 'B', status: 'pending' },
    ])
    assert.ok(outcome.result.content.includes('[>] #1: A'))
  })

  it('TestUpdateDefaults.test_default_status_is_pending', () => {
    assert.equal(ok([{ id: '1', text: 'Foo' }]).state.items[0].status, 'pending')
  })

  it('TestUpdateDefaults.test_default_id_from_index', () => {
    const items = ok([{ text: 'First' }, { text: 'Second' }]).state.items
    assert.equal(items[0].id, '1')
    assert.equal(items[1].id, '2')
  })

  it('TestUpdateDefaults.test_status_case_insensitive', () => {
    assert.equal(ok([{ id: '1', text: 'Foo', status: 'PENDING' }]).state.items[0].status, 'pending')
  })

  it('TestUpdateDefaults.test_text_stripped', () => {
    assert.equal(
      ok([{ id: '1', text: '  spaced  ', status: 'pending' }]).state.items[0].content,
      'spaced'
    )
  })

  it('TestUpdateValidation.test_over_20_raises', () => {
    const items = Array.from({ length: 21 }, (_, i) => ({
      id: String(i),
      text: `T${i}`,
      status: 'pending',
    }))
    raises(items, 'Max 20')
  })

  it('TestUpdateValidation.test_empty_text_raises', () => {
    raises([{ id: '1', text: '', status: 'pending' }], 'text required')
  })

  it('TestUpdateValidation.test_whitespace_only_text_raises', () => {
    raises([{ id: '1', text: '   ', status: 'pending' }], 'text required')
  })

  it('TestUpdateValidation.test_invalid_status_raises', () => {
    raises([{ id: '1', text: 'Foo', status: 'done' }], 'invalid status')
  })

  it('TestUpdateValidation.test_two_in_progress_raises', () => {
    raises(
      [
        { id: '1', text: 'A', status: 'in_progress' },
        { id: '2', text: 'B', status: 'in_progress' },
      ],
      'Only one task'
    )
  })
})

describe('Qwen Code todoWrite.test.ts', () => {
  type Todo = { id: string; content: string; status: string; blockedBy?: string[] }
  const write = (todos: unknown, state = EMPTY) => call(qwenTodos, 'todo_write', { todos }, state)
  const validate = (todos: unknown) => {
    const outcome = write(todos)
    return outcome.result.is_error ? outcome.result.content : null
  }
  /** A session whose stored list (Qwen's todo file) is `todos`. */
  const stored = (todos: Todo[]) => write(todos).state

  it('validateToolParams: should validate correct parameters', () => {
    assert.equal(
      validate([
        { id: '1', content: 'Task 1', status: 'pending' },
        { id: '2', content: 'Task 2', status: 'in_progress' },
      ]),
      null
    )
  })

  it('validateToolParams: should accept empty todos array', () => {
    assert.equal(validate([]), null)
  })

  it('validateToolParams: should accept single todo', () => {
    assert.equal(validate([{ id: '1', content: 'Task 1', status: 'pending' }]), null)
  })

  it('validateToolParams: should reject todos with empty content', () => {
    const error = validate([
      { id: '1', content: '', status: 'pending' },
      { id: '2', content: 'Task 2', status: 'pending' },
    ])
    assert.ok(error?.includes('Each todo must have a non-empty "content" string'), error ?? '')
  })

  it('validateToolParams: should reject todos with empty id', () => {
    const error = validate([
      { id: '', content: 'Task 1', status: 'pending' },
      { id: '2', content: 'Task 2', status: 'pending' },
    ])
    assert.ok(error?.includes('non-empty "id" string'), error ?? '')
  })

  it('validateToolParams: should reject oversized todo and dependency ids', () => {
    const long = validate([{ id: 'x'.repeat(501), content: 'Task', status: 'pending' }])
    assert.ok(long?.includes('at most 500 characters'), long ?? '')
    const dependency = validate([
      { id: 'task', content: 'Task', status: 'pending', blockedBy: ['x'.repeat(501)] },
    ])
    assert.ok(dependency?.includes('at most 500 characters'), dependency ?? '')
  })

  it('validateToolParams: should reject todos with invalid status', () => {
    const error = validate([
      { id: '1', content: 'Task 1', status: 'invalid' },
      { id: '2', content: 'Task 2', status: 'pending' },
    ])
    assert.ok(
      error?.includes('Each todo must have a valid "status" (pending, in_progress, completed)'),
      error ?? ''
    )
  })

  it('validateToolParams: should reject todos with duplicate IDs', () => {
    const error = validate([
      { id: '1', content: 'Task 1', status: 'pending' },
      { id: '1', content: 'Task 2', status: 'pending' },
    ])
    assert.ok(error?.includes('unique'), error ?? '')
  })

  it('validateToolParams: should accept a valid dependency graph', () => {
    assert.equal(
      validate([
        { id: 'design', content: 'Design', status: 'completed' },
        { id: 'build', content: 'Build', status: 'pending', blockedBy: ['design'] },
      ]),
      null
    )
  })

  it('validateToolParams: should validate deep dependency chains without recursive traversal', () => {
    const todos = Array.from({ length: 3_000 }, (_, index) => ({
      id: `todo-${index}`,
      content: `Todo ${index}`,
      status: 'pending',
      ...(index === 0 ? {} : { blockedBy: [`todo-${index - 1}`] }),
    }))
    assert.equal(validate(todos), null)
  })

  for (const { name, todos, error } of [
    {
      name: 'duplicate dependency',
      todos: [
        { id: 'a', content: 'A', status: 'pending' },
        { id: 'b', content: 'B', status: 'pending', blockedBy: ['a', 'a'] },
      ],
      error: 'duplicate blockedBy',
    },
    {
      name: 'unknown dependency',
      todos: [{ id: 'a', content: 'A', status: 'pending', blockedBy: ['missing'] }],
      error: 'unknown dependency',
    },
    {
      name: 'self dependency',
      todos: [{ id: 'a', content: 'A', status: 'pending', blockedBy: ['a'] }],
      error: 'must not depend on itself',
    },
    {
      name: 'cycle',
      todos: [
        { id: 'a', content: 'A', status: 'pending', blockedBy: ['b'] },
        { id: 'b', content: 'B', status: 'pending', blockedBy: ['a'] },
      ],
      error: 'must not contain a cycle',
    },
  ]) {
    it(`validateToolParams: should reject a ${name}`, () => {
      const message = validate(todos)
      assert.ok(message?.includes(error), message ?? '')
    })
  }

  it('execute: should create new todos file when none exists', () => {
    const todos = [
      { id: '1', content: 'Task 1', status: 'pending' },
      { id: '2', content: 'Task 2', status: 'in_progress' },
    ]
    const outcome = write(todos)
    const text = outcome.result.content
    assert.ok(text.includes('Todos have been modified successfully'))
    assert.ok(text.includes('<system-reminder>'))
    assert.ok(text.includes('Your todo list has changed'))
    assert.ok(text.includes(JSON.stringify(todos)))
    const display = outcome.result.structured as { type: string; todos: unknown }
    assert.equal(display.type, 'todo_list')
    assert.deepEqual(display.todos, todos)
  })

  it('execute: should replace todos with new ones', () => {
    const state = stored([{ id: '1', content: 'Existing Task', status: 'completed' }])
    const todos = [
      { id: '1', content: 'Updated Task', status: 'completed' },
      { id: '2', content: 'New Task', status: 'pending' },
    ]
    const outcome = write(todos, state)
    assert.ok(outcome.result.content.includes('Todos have been modified successfully'))
    assert.ok(outcome.result.content.includes(JSON.stringify(todos)))
    assert.deepEqual((outcome.result.structured as { todos: unknown }).todos, todos)
    assert.deepEqual(
      outcome.state.items.map((item) => item.content),
      ['Updated Task', 'New Task']
    )
  })

  it('execute: preserves dependencies when a status update omits blockedBy', () => {
    const state = stored([
      { id: 'prepare', content: 'Prepare', status: 'completed' },
      { id: 'ship', content: 'Ship', status: 'pending', blockedBy: ['prepare'] },
      { id: 'note', content: 'Old note', status: 'pending', blockedBy: ['prepare'] },
    ])
    const outcome = write(
      [
        { id: 'prepare', content: 'Prepare', status: 'completed' },
        { id: 'ship', content: 'Ship', status: 'completed' },
        { id: 'note', content: 'Updated note', status: 'pending', blockedBy: [] },
      ],
      state
    )
    const todos = (outcome.result.structured as { todos: Todo[] }).todos
    assert.deepEqual(todos.find((todo) => todo.id === 'ship')?.blockedBy, ['prepare'])
    assert.deepEqual(todos.find((todo) => todo.id === 'note')?.blockedBy, [])
    assert.deepEqual(
      outcome.state.items.map((item) => [item.id, item.blocked_by]),
      [
        ['prepare', []],
        ['ship', ['prepare']],
        ['note', []],
      ]
    )
  })

  it('execute: should handle empty todos array', () => {
    const outcome = write([], stored([{ id: '1', content: 'Old Task', status: 'pending' }]))
    const text = outcome.result.content
    assert.ok(text.includes('Todo list has been cleared'))
    assert.ok(text.includes('<system-reminder>'))
    assert.ok(text.includes('Your todo list is now empty'))
    assert.ok(text.includes('no pending tasks'))
    const display = outcome.result.structured as { type: string; todos: unknown }
    assert.equal(display.type, 'todo_list')
    assert.deepEqual(display.todos, [])
  })
})

describe('opencode test/tool/todo.test.ts', () => {
  it('tool.todowrite: the result carries the todos as sent', () => {
    const todos = [{ content: 'Ship fix', status: 'in_progress', priority: 'high' }]
    const outcome = call(opencodeTodos, 'todowrite', { todos })
    assert.equal(outcome.result.is_error, false)
    assert.deepEqual((outcome.result.structured as { todos: unknown }).todos, todos)
  })
})
