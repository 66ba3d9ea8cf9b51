import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Item } from '../../src/core/items.js'
import { observerOf, todoDialectOf } from '../../src/dialects/observe/index.js'
import type { ObserveOutcome } from '../../src/dialects/observe/types.js'
import type { DialectState } from '../../src/dialects/types.js'

const empty: DialectState = { items: [], data: {} }
const ok = { is_error: false }
const rows = (items: readonly Item[]) => items.map((i) => [i.id, i.status, i.content])

function applied(outcome: ObserveOutcome): DialectState {
  assert.ok(outcome.applied, outcome.applied ? '' : outcome.reason)
  return outcome.state
}

const todo = (content: string, status: string, activeForm = `${content}…`) => ({
  content,
  status,
  activeForm,
})

describe('observe: claude-todowrite', () => {
  const observer = observerOf('claude-todowrite')!
  const observe = (input: unknown, structured: unknown, state = empty, result = ok) =>
    observer.observe({ name: 'TodoWrite', input }, { ...result, structured }, state)

  it('Should take the list from newTodos over the input (a hook may have rewritten it)', () => {
    const state = applied(
      observe(
        { todos: [todo('Model', 'pending')] },
        { oldTodos: [], newTodos: [todo('Stored', 'in_progress')] }
      )
    )
    assert.deepEqual(rows(state.items), [['1', 'in_progress', 'Stored']])
    assert.equal(state.items[0].active_form, 'Stored…')
  })

  it('Should fall back to the input when the result has no structure, and read the CLI 1.0 shape', () => {
    const state = applied(
      observe(
        { todos: [{ content: 'Old shape', status: 'in_progress', priority: 'high', id: '7' }] },
        undefined
      )
    )
    assert.deepEqual(rows(state.items), [['1', 'in_progress', 'Old shape']])
    assert.equal(state.items[0].active_form, undefined)
  })

  it('Should change nothing for a failed call or one without a list', () => {
    assert.equal(
      observe({ todos: [todo('a', 'pending')] }, undefined, empty, { is_error: true }).applied,
      false
    )
    assert.equal(observe({ nope: 1 }, { unrelated: true }).applied, false)
    assert.equal(observe({ todos: [{ status: 'pending' }] }, undefined).applied, false)
  })

  it('Should keep ids by content, keep an all-completed list, then start a new plan with fresh ids', () => {
    let state = applied(
      observe({}, { oldTodos: [], newTodos: [todo('A', 'in_progress'), todo('B', 'pending')] })
    )
    state = applied(
      observe(
        {},
        { oldTodos: [], newTodos: [todo('B', 'in_progress'), todo('A', 'completed')] },
        state
      )
    )
    assert.deepEqual(rows(state.items), [
      ['2', 'in_progress', 'B'],
      ['1', 'completed', 'A'],
    ])
    state = applied(
      observe(
        {},
        { oldTodos: [], newTodos: [todo('A', 'completed'), todo('B', 'completed')] },
        state
      )
    )
    assert.deepEqual(rows(state.items), [
      ['1', 'completed', 'A'],
      ['2', 'completed', 'B'],
    ])
    // Claude cleared its store: oldTodos is [] and positions do not carry ids over
    const next = applied(
      observe(
        {},
        { oldTodos: [], newTodos: [todo('C', 'in_progress'), todo('B', 'completed')] },
        state
      )
    )
    assert.deepEqual(rows(next.items), [
      ['3', 'in_progress', 'C'],
      ['2', 'completed', 'B'],
    ])
  })

  it('Should map tool names of each agent family to its dialect', () => {
    assert.equal(todoDialectOf('claude', 'TodoWrite'), 'claude-todowrite')
    assert.equal(todoDialectOf('claude', 'TaskUpdate'), 'claude-tasks')
    assert.equal(todoDialectOf('claude', 'TaskStop'), undefined)
    assert.equal(todoDialectOf('claude', 'Task'), undefined)
    assert.equal(todoDialectOf('codex', 'update_plan'), 'codex-plan')
    assert.equal(todoDialectOf('codex', 'todo_list'), 'codex-plan')
    assert.equal(todoDialectOf('gemini', 'write_todos'), 'gemini-todos')
    assert.equal(todoDialectOf('claude', 'write_todos'), undefined)
    assert.equal(todoDialectOf('openhands', 'task_tracker'), 'openhands-tracker')
  })
})

describe('observe: claude-tasks', () => {
  const observer = observerOf('claude-tasks')!
  const observe = (
    name: string,
    input: unknown,
    structured: unknown,
    state: DialectState,
    text?: string,
    is_error = false
  ) => observer.observe({ name, input }, { is_error, structured, text }, state)
  const create = (id: string, subject: string, state: DialectState, extra: object = {}) =>
    applied(
      observe(
        'TaskCreate',
        { subject, description: `${subject} in detail`, activeForm: `${subject}…`, ...extra },
        { task: { id, subject, description: `${subject} in detail` } },
        state
      )
    )

  it('Should adopt the id of the result (structured, else the text), never its own', () => {
    let state = create('7', 'Seven', empty)
    state = applied(
      observe(
        'TaskCreate',
        { subject: 'Eight', description: 'd' },
        undefined,
        state,
        'Task #8 created successfully: Eight'
      )
    )
    assert.deepEqual(rows(state.items), [
      ['7', 'pending', 'Seven'],
      ['8', 'pending', 'Eight'],
    ])
    assert.equal(state.data.high_water_mark, 8)
    assert.equal(state.items[0].active_form, 'Seven…')
    assert.equal(state.items[0].description, 'Seven in detail')
    // no id anywhere: nothing is invented
    assert.equal(
      observe('TaskCreate', { subject: 'X', description: 'y' }, undefined, state, 'ok').applied,
      false
    )
    assert.equal(
      observe('TaskCreate', { subject: 'X', description: 'y' }, undefined, state, undefined, true)
        .applied,
      false
    )
  })

  it('Should take the saved subject and description of the result over the input', () => {
    const state = applied(
      observe(
        'TaskCreate',
        { description: 'Only a description' },
        { task: { id: '1', subject: 'Only a description', description: 'Only a description' } },
        empty
      )
    )
    assert.deepEqual(rows(state.items), [['1', 'pending', 'Only a description']])
  })

  it('Should repair TaskUpdate keys and apply only the fields the result says changed', () => {
    let state = create('1', 'One', empty)
    state = applied(
      observe(
        'TaskUpdate',
        {
          task_id: '1',
          status: 'completed',
          active_form: 'Doing one',
          subject: 'Renamed by the model',
        },
        // a hook rewrote the call: the subject did not change, the status went to in_progress
        {
          success: true,
          taskId: '1',
          updatedFields: ['activeForm', 'status'],
          statusChange: { from: 'pending', to: 'in_progress' },
        },
        state
      )
    )
    assert.deepEqual(rows(state.items), [['1', 'in_progress', 'One']])
    assert.equal(state.items[0].active_form, 'Doing one')
  })

  it('Should apply an update from its input when the result is only text', () => {
    let state = create('1', 'One', empty)
    state = applied(
      observe(
        'TaskUpdate',
        { id: '1', status: 'completed' },
        undefined,
        state,
        'Updated task #1 status'
      )
    )
    assert.equal(state.items[0].status, 'completed')
    assert.equal(
      observe('TaskUpdate', { taskId: '1', status: 'pending' }, undefined, state, 'Task not found')
        .applied,
      false
    )
  })

  it('Should change nothing for success: false, and remove a deleted task with its edges on both sides', () => {
    let state = create('1', 'One', empty)
    state = create('2', 'Two', state)
    assert.equal(
      observe(
        'TaskUpdate',
        { taskId: '9', status: 'completed' },
        { success: false, taskId: '9', updatedFields: [], error: 'Task not found' },
        state
      ).applied,
      false
    )
    state = applied(
      observe(
        'TaskUpdate',
        { taskId: '1', addBlocks: ['2'] },
        { success: true, taskId: '1', updatedFields: ['blocks'] },
        state
      )
    )
    assert.deepEqual(
      state.items.map((i) => [i.id, i.blocks, i.blocked_by]),
      [
        ['1', ['2'], []],
        ['2', [], ['1']],
      ]
    )
    state = applied(
      observe(
        'TaskUpdate',
        { taskId: '1', status: 'deleted' },
        {
          success: true,
          taskId: '1',
          updatedFields: ['deleted'],
          statusChange: { from: 'pending', to: 'deleted' },
        },
        state
      )
    )
    assert.deepEqual(
      state.items.map((i) => [i.id, i.blocks, i.blocked_by]),
      [['2', [], []]]
    )
  })

  it('Should merge metadata with null deleting a key', () => {
    let state = create('1', 'One', empty, { metadata: { a: 1, b: 2 } })
    state = applied(
      observe(
        'TaskUpdate',
        { taskId: '1', metadata: { a: null, c: 3 } },
        { success: true, taskId: '1', updatedFields: ['metadata'] },
        state
      )
    )
    assert.deepEqual(state.items[0].metadata, { b: 2, c: 3 })
  })

  it('Should resync from TaskList, keeping the edges it hides (resolved blockers)', () => {
    let state = create('1', 'One', empty)
    state = create('2', 'Two', state)
    state = applied(
      observe(
        'TaskUpdate',
        { taskId: '2', addBlockedBy: ['1'] },
        { success: true, taskId: '2', updatedFields: ['blockedBy'] },
        state
      )
    )
    state = applied(
      observe(
        'TaskUpdate',
        { taskId: '1', status: 'completed' },
        { success: true, taskId: '1', updatedFields: ['status'] },
        state
      )
    )
    state = applied(
      observe(
        'TaskList',
        {},
        {
          tasks: [
            { id: '1', subject: 'One', status: 'completed', blockedBy: [] },
            {
              id: '2',
              subject: 'Two, renamed',
              status: 'in_progress',
              owner: 'agent-a',
              blockedBy: [],
            },
            { id: '3', subject: 'Three, created elsewhere', status: 'pending', blockedBy: ['2'] },
          ],
        },
        state
      )
    )
    assert.deepEqual(
      state.items.map((i) => [i.id, i.status, i.content, i.owner, i.blocks, i.blocked_by]),
      [
        ['1', 'completed', 'One', undefined, ['2'], []],
        ['2', 'in_progress', 'Two, renamed', 'agent-a', ['3'], ['1']],
        ['3', 'pending', 'Three, created elsewhere', undefined, [], ['2']],
      ]
    )
    assert.equal(state.data.high_water_mark, 3)
    assert.equal(observe('TaskGet', { taskId: '1' }, { task: null }, state).applied, false)
  })
})

describe('observe: codex-plan', () => {
  const observer = observerOf('codex-plan')!
  const plan = (...steps: [string, string][]) => ({
    plan: steps.map(([step, status]) => ({ step, status })),
  })

  it('Should apply update_plan as an object or as the arguments text, with every status', () => {
    let state = applied(
      observer.observe(
        { name: 'update_plan', input: plan(['Read', 'completed'], ['Fix', 'in_progress']) },
        { ...ok, text: 'Plan updated' },
        empty
      )
    )
    assert.deepEqual(rows(state.items), [
      ['1', 'completed', 'Read'],
      ['2', 'in_progress', 'Fix'],
    ])
    state = applied(
      observer.observe(
        {
          name: 'update_plan',
          input: JSON.stringify(plan(['Read', 'completed'], ['Fix', 'completed'])),
        },
        ok,
        state
      )
    )
    assert.deepEqual(rows(state.items), [
      ['1', 'completed', 'Read'],
      ['2', 'completed', 'Fix'],
    ])
    // the app-server spelling
    const camel = applied(
      observer.observe({ name: 'update_plan', input: plan(['Ship', 'inProgress']) }, ok, empty)
    )
    assert.equal(camel.items[0].status, 'in_progress')
    assert.equal(
      observer.observe(
        { name: 'update_plan', input: plan(['x', 'doing']) },
        { ...ok, text: 'failed to parse function arguments: unknown variant `doing`' },
        empty
      ).applied,
      false
    )
  })

  it('Should keep a known status of a step that the todo_list snapshot only calls not done', () => {
    const state = applied(
      observer.observe(
        {
          name: 'update_plan',
          input: plan(['Read', 'completed'], ['Fix', 'in_progress'], ['Ship', 'pending']),
        },
        ok,
        empty
      )
    )
    const next = applied(
      observer.observe(
        {
          name: 'todo_list',
          input: {
            items: [
              { text: 'Read', completed: true },
              { text: 'Fix', completed: false },
              { text: 'Ship', completed: true },
            ],
          },
        },
        ok,
        state
      )
    )
    assert.deepEqual(rows(next.items), [
      ['1', 'completed', 'Read'],
      ['2', 'in_progress', 'Fix'],
      ['3', 'completed', 'Ship'],
    ])
    const fresh = applied(
      observer.observe(
        { name: 'todo_list', input: { items: [{ text: 'New', completed: false }] } },
        ok,
        empty
      )
    )
    assert.deepEqual(rows(fresh.items), [['1', 'pending', 'New']])
  })
})

describe('observe: gemini-todos', () => {
  const observer = observerOf('gemini-todos')!
  const todos = (...t: [string, string][]) => ({
    todos: t.map(([description, status]) => ({ description, status })),
  })

  it("Should take the hook's returnDisplay, else the call's todos, with all five statuses", () => {
    const fromDisplay = applied(
      observer.observe(
        { name: 'write_todos', input: todos(['Model', 'pending']) },
        { ...ok, structured: { llmContent: '…', returnDisplay: todos(['Shown', 'blocked']) } },
        empty
      )
    )
    assert.deepEqual(rows(fromDisplay.items), [['1', 'blocked', 'Shown']])
    const fromInput = applied(
      observer.observe(
        { name: 'write_todos', input: todos(['a', 'cancelled'], ['b', 'in_progress']) },
        ok,
        empty
      )
    )
    assert.deepEqual(rows(fromInput.items), [
      ['1', 'cancelled', 'a'],
      ['2', 'in_progress', 'b'],
    ])
    assert.equal(
      observer.observe(
        { name: 'write_todos', input: todos(['a', 'pending']) },
        { is_error: true },
        empty
      ).applied,
      false
    )
  })
})

describe('observe: openhands-tracker', () => {
  const observer = observerOf('openhands-tracker')!
  const task = (title: string, status: string, extra: object = {}) => ({
    title,
    notes: '',
    status,
    ...extra,
  })

  it("Should take the observation's list, keep the agent's ids and notes, and resync on view", () => {
    const state = applied(
      observer.observe(
        { name: 'task_tracker', input: { command: 'plan', task_list: [task('Model', 'todo')] } },
        {
          ...ok,
          structured: {
            kind: 'TaskTrackerObservation',
            command: 'plan',
            task_list: [
              task('A', 'done', { id: 'a1' }),
              task('B', 'in_progress', { notes: 'why' }),
            ],
          },
        },
        empty
      )
    )
    assert.deepEqual(rows(state.items), [
      ['a1', 'completed', 'A'],
      ['1', 'in_progress', 'B'],
    ])
    assert.equal(state.items[1].notes, 'why')
    const viewed = applied(
      observer.observe(
        { name: 'task_tracker', input: { command: 'view' } },
        { ...ok, structured: { command: 'view', task_list: [task('A', 'done', { id: 'a1' })] } },
        state
      )
    )
    assert.deepEqual(rows(viewed.items), [['a1', 'completed', 'A']])
    const fromAction = applied(
      observer.observe(
        {
          name: 'task_tracker',
          input: { command: 'plan', task_list: [task('Only action', 'todo')] },
        },
        ok,
        empty
      )
    )
    assert.deepEqual(rows(fromAction.items), [['1', 'pending', 'Only action']])
    assert.equal(
      observer.observe(
        { name: 'task_tracker', input: { command: 'plan', task_list: [task('x', 'todo')] } },
        { is_error: true },
        empty
      ).applied,
      false
    )
  })

  it('Should leave existing items alone when nothing says what the list is', () => {
    const state = { items: [makeItem({ id: '1', content: 'x', status: 'pending' })], data: {} }
    assert.equal(
      observer.observe({ name: 'task_tracker', input: { command: 'view' } }, ok, state).applied,
      false
    )
  })
})

describe('observe: opencode-todos', () => {
  const observer = observerOf('opencode-todos')!
  const todo3 = (content: string, status: string, priority = 'medium') => ({
    content,
    status,
    priority,
  })
  const snapshot = (todos: unknown, seq?: string, state = empty) =>
    observer.observe(
      { name: 'todowrite', input: { todos } },
      { ...ok, structured: { todos, seq } },
      state
    )

  it('Should map the four statuses, keep any other word pending with it in metadata, and keep items by content', () => {
    assert.equal(todoDialectOf('opencode', 'todowrite'), 'opencode-todos')
    const first = applied(
      snapshot([todo3('A', 'in_progress', 'high'), todo3('B', 'doing', 'urgent')], '236100000001')
    )
    assert.deepEqual(rows(first.items), [
      ['1', 'in_progress', 'A'],
      ['2', 'pending', 'B'],
    ])
    assert.deepEqual(first.items[1].metadata, { priority: 'urgent', status: 'doing' })
    const second = applied(
      snapshot([todo3('B', 'completed'), todo3('A', 'cancelled', 'high')], '236100000002', first)
    )
    assert.deepEqual(rows(second.items), [
      ['2', 'completed', 'B'],
      ['1', 'cancelled', 'A'],
    ])
    // an older snapshot (out of order) is not applied over a newer one
    const older = snapshot([todo3('A', 'pending')], '236100000001', second)
    assert.equal(older.applied, false)
    // Kilo takes the list as a JSON text too; a failed call changes nothing
    const text = applied(
      observer.observe(
        { name: 'todowrite', input: { todos: JSON.stringify([todo3('C', 'pending')]) } },
        ok,
        empty
      )
    )
    assert.deepEqual(rows(text.items), [['1', 'pending', 'C']])
    assert.equal(
      observer.observe({ name: 'todowrite', input: { todos: [] } }, { is_error: true }, first)
        .applied,
      false
    )
  })
})
