/**
 * gemini-tracker: Gemini CLI's experimental task tracker, observed only. Rounds never run its
 * tools; its observer (through the guard, as ingest runs it) applies what the tracker answered,
 * with the tracker's own ids, and Gemini's AfterTool hooks feed it.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { observerOf, todoDialectOf } from '../observe/index.js'
import { getDialect } from '../registry.js'
import type { DialectState } from '../types.js'
import { fieldsOf } from '../../../test/dialect-support.js'
import { makeTestApp } from '../../../test/helpers.js'
import { postHooks, rows, view } from '../../../test/ingest-support.js'

const empty: DialectState = { items: [], data: {} }
const observer = observerOf('gemini-tracker')!

/** Observes one call answered with `text`. */
const seen = (name: string, input: unknown, text: string, state = empty, is_error = false) =>
  observer.observe({ name, input }, { is_error, text }, state)

/** The state after a call the observer must apply. */
function applied(name: string, input: unknown, text: string, state = empty): DialectState {
  const outcome = seen(name, input, text, state)
  assert.ok(outcome.applied, outcome.applied ? '' : outcome.reason)
  return outcome.state
}

const create = (title: string, id: string, extra: Record<string, unknown> = {}, state = empty) =>
  applied(
    'tracker_create_task',
    { title, description: `${title}, in detail`, type: 'task', ...extra },
    `Created task ${id}: ${title}`,
    state
  )

/** Two tasks, `b1` depending on `a1`. */
const two = () => create('B', 'b1', { dependencies: ['a1'] }, create('A', 'a1', { type: 'epic' }))

describe('gemini-tracker', () => {
  it("Should be the gemini family's dialect for the tracker tools, and nothing else's", () => {
    for (const tool of ['tracker_create_task', 'tracker_update_task', 'tracker_list_tasks']) {
      assert.equal(todoDialectOf('gemini', tool), 'gemini-tracker')
      assert.equal(todoDialectOf('claude', tool), undefined)
    }
    assert.equal(todoDialectOf('gemini', 'write_todos'), 'gemini-todos')
  })

  it('Should refuse every round call: the service never runs the tracker for a model', async () => {
    const dialect = getDialect('gemini-tracker')!
    const outcome = dialect.apply(
      empty,
      'tracker_create_task',
      { title: 'A', description: 'a', type: 'task' },
      { callsInRound: 1, indexInRound: 0 }
    )
    assert.equal(outcome.result.is_error, true)
    assert.match(outcome.result.content, /observed only/)
    assert.equal(outcome.state, empty)
    const t = makeTestApp()
    const res = await t.call('POST', '/v1/sessions/tracker-round/rounds', {
      dialect: 'gemini-tracker',
      tool_calls: [
        {
          id: 'c1',
          name: 'tracker_create_task',
          input: { title: 'A', description: 'a', type: 'task' },
        },
      ],
    })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.results[0].is_error, true)
    assert.deepEqual(res.body.todos ?? [], [])
  })

  it("Should create tasks with the tracker's ids, their type, parent and dependencies both ways", () => {
    const state = create('C', 'c1', { parentId: 'a1' }, two())
    assert.deepEqual(
      fieldsOf(state.items, 'id', 'content', 'status', 'description', 'blocked_by', 'blocks'),
      [
        ['a1', 'A', 'pending', 'A, in detail', [], ['b1']],
        ['b1', 'B', 'pending', 'B, in detail', ['a1'], []],
        ['c1', 'C', 'pending', 'C, in detail', [], []],
      ]
    )
    assert.deepEqual(
      state.items.map((item) => item.metadata),
      [{ type: 'epic' }, { type: 'task' }, { type: 'task', parent_id: 'a1' }]
    )
  })

  it('Should never make an id up: a create whose result names none changes nothing', () => {
    const outcome = seen(
      'tracker_create_task',
      { title: 'A', description: 'a', type: 'task' },
      'Done.'
    )
    assert.equal(outcome.applied, false)
  })

  it('Should map the statuses: open, in_progress, blocked, closed', () => {
    let state = two()
    const statuses = []
    for (const status of ['in_progress', 'blocked', 'closed', 'open']) {
      state = applied(
        'tracker_update_task',
        { id: 'a1', status },
        `Updated task a1. Status: ${status}`,
        state
      )
      statuses.push(state.items[0].status)
    }
    assert.deepEqual(statuses, ['in_progress', 'blocked', 'completed', 'pending'])
  })

  it('Should update title, description and replace the dependencies', () => {
    const state = applied(
      'tracker_update_task',
      { id: 'b1', title: 'B2', description: 'new', dependencies: [] },
      'Updated task b1. Status: open',
      two()
    )
    assert.deepEqual(
      fieldsOf(state.items, 'id', 'content', 'description', 'blocked_by', 'blocks'),
      [
        ['a1', 'A', 'A, in detail', [], []],
        ['b1', 'B2', 'new', [], []],
      ]
    )
  })

  it("Should change nothing for a failed call or the tracker's refusals", () => {
    const state = two()
    const refusals: [string, unknown, string][] = [
      ['tracker_update_task', { id: 'zz', status: 'closed' }, 'Task zz not found.'],
      [
        'tracker_update_task',
        { id: 'b1', status: 'closed' },
        'Cannot close task b1 because dependency a1 is still open.',
      ],
      [
        'tracker_add_dependency',
        { taskId: 'a1', dependencyId: 'b1' },
        'Circular dependency detected involving task a1.',
      ],
    ]
    for (const [name, input, text] of refusals) {
      assert.equal(seen(name, input, text, state).applied, false, text)
    }
    const failed = seen(
      'tracker_update_task',
      { id: 'a1', status: 'closed' },
      'Updated task a1. Status: closed',
      state,
      true
    )
    assert.equal(failed.applied, false)
    assert.equal(seen('tracker_get_task', { id: 'a1' }, 'Task a1: A', state).applied, false)
  })

  it('Should add a dependency the tracker linked', () => {
    const state = applied(
      'tracker_add_dependency',
      { taskId: 'a1', dependencyId: 'c9' },
      'Linked a1 -> c9.',
      two()
    )
    assert.deepEqual(state.items[0].blocked_by, ['c9'])
  })

  it('Should resync to an unfiltered listing, and update only the tasks a filtered one names', () => {
    const state = two()
    const whole = applied('tracker_list_tasks', {}, '- [b1] B (closed)\n- [d4] D (blocked)', state)
    assert.deepEqual(
      fieldsOf(whole.items, 'id', 'content', 'status', 'description', 'blocked_by'),
      [
        ['b1', 'B', 'completed', 'B, in detail', ['a1']],
        ['d4', 'D', 'blocked', undefined, []],
      ]
    )
    const filtered = applied(
      'tracker_list_tasks',
      { status: 'in_progress' },
      '- [a1] A (in_progress)',
      state
    )
    assert.deepEqual(rows(filtered.items), [
      ['a1', 'in_progress', 'A'],
      ['b1', 'pending', 'B'],
    ])
    const none = applied('tracker_list_tasks', {}, 'No tasks found matching the criteria.', state)
    assert.deepEqual(none.items, [])
    assert.equal(seen('tracker_list_tasks', {}, 'Task Tracker Graph:\n…', state).applied, false)
  })

  it("Should be fed by Gemini's AfterTool hooks, whose llmContent names the ids", async () => {
    const t = makeTestApp()
    const hook = (
      n: number,
      tool_name: string,
      tool_input: unknown,
      llmContent: unknown,
      error?: unknown
    ) => ({
      session_id: 'tracker-hooks',
      cwd: '/home/dev/project',
      hook_event_name: 'AfterTool',
      timestamp: `2026-12-02T05:18:1${n}.000Z`,
      tool_name,
      tool_input,
      tool_response: { llmContent, returnDisplay: { todos: [] }, ...(error ? { error } : {}) },
    })
    const hooks = [
      hook(
        1,
        'tracker_create_task',
        { title: 'A', description: 'a', type: 'task' },
        'Created task 02498b: A'
      ),
      hook(2, 'tracker_create_task', { title: 'B', description: 'b', type: 'bug' }, [
        { text: 'Created task 564e1f: B' },
      ]),
      hook(
        3,
        'tracker_update_task',
        { id: '02498b', status: 'closed' },
        'Updated task 02498b. Status: closed'
      ),
      hook(4, 'tracker_update_task', { id: '564e1f', status: 'closed' }, 'Error: no', {
        message: 'no',
      }),
    ]
    await postHooks(t, 'gemini-cli', hooks)
    const session = await view(t, 'gemini:tracker-hooks')
    assert.equal(session.dialect, 'gemini-tracker')
    assert.deepEqual(rows(session.items), [
      ['02498b', 'completed', 'A'],
      ['564e1f', 'pending', 'B'],
    ])
    const version = session.version
    await postHooks(t, 'gemini-cli', hooks)
    assert.equal((await view(t, 'gemini:tracker-hooks')).version, version)
  })
})
