/**
 * Observed lists obey the dialect. An observed Claude `TaskList` result with a repeated id, an
 * empty id or a task that blocks itself was stored as it came, and a later `TaskUpdate` of the
 * repeated id changed both tasks. An observed list is now held to the rules a list written here
 * keeps (ids unique and non-empty, no task blocking itself, the dialect's own `checkList`):
 * refused, or repaired where the repair is plain (a self-edge dropped).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeTestApp, type TestApp } from '../helpers.js'
import { ingest, view } from '../ingest-support.js'

const SESSION = 'claude:obey-1'
let seq = 0

/** One Claude Code PostToolUse hook of a Task tool. */
function taskHook(tool: string, input: unknown, response: unknown) {
  return {
    session_id: 'obey-1',
    hook_event_name: 'PostToolUse',
    tool_name: tool,
    tool_input: input,
    tool_response: response,
    tool_use_id: `toolu_01Obey${String(seq++).padStart(12, '0')}`,
  }
}

const create = (id: string, subject: string) =>
  taskHook('TaskCreate', { subject, description: subject }, { task: { id, subject } })
const list = (tasks: unknown[]) => taskHook('TaskList', {}, { tasks })

async function post(t: TestApp, hook: unknown, source = 'claude-code') {
  const res = await ingest(t, source, hook)
  assert.equal(res.status, 200, res.text)
}

const ids = async (t: TestApp, id = SESSION) =>
  (await view(t, id)).items.map((item: { id: string }) => item.id)

describe('hostile: observed lists obey the dialect', () => {
  it('Should not store a TaskList with a repeated id, so a later TaskUpdate changes one task', async () => {
    const t = makeTestApp()
    await post(t, create('1', 'Write the handler'))
    await post(t, create('2', 'Test it'))
    const before = await view(t, SESSION)
    await post(
      t,
      list([
        { id: '1', subject: 'Write the handler', status: 'pending', blockedBy: [] },
        { id: '1', subject: 'Write it again', status: 'pending', blockedBy: [] },
        { id: '2', subject: 'Test it', status: 'pending', blockedBy: [] },
      ])
    )
    const after = await view(t, SESSION)
    assert.equal(after.version, before.version)
    assert.deepEqual(after.items, before.items)
    await post(
      t,
      taskHook(
        'TaskUpdate',
        { taskId: '1', status: 'in_progress' },
        {
          success: true,
          taskId: '1',
          updatedFields: ['status'],
          statusChange: { from: 'pending', to: 'in_progress' },
        }
      )
    )
    const items = (await view(t, SESSION)).items
    assert.deepEqual(
      items.map((item: { id: string; status: string }) => [item.id, item.status]),
      [
        ['1', 'in_progress'],
        ['2', 'pending'],
      ]
    )
  })

  it('Should not store a TaskList with an empty id, nor a task created or updated under one', async () => {
    const t = makeTestApp()
    await post(t, create('1', 'Write the handler'))
    await post(
      t,
      list([
        { id: '1', subject: 'Write the handler', status: 'pending', blockedBy: [] },
        { id: '', subject: 'Nameless', status: 'pending', blockedBy: [] },
      ])
    )
    await post(t, create('', 'Nameless'))
    await post(
      t,
      taskHook(
        'TaskUpdate',
        { taskId: '', status: 'completed' },
        { success: true, taskId: '', updatedFields: ['status'] }
      )
    )
    assert.deepEqual(await ids(t), ['1'])
  })

  it('Should drop the edge of a task that blocks itself, from a TaskList and from a TaskUpdate', async () => {
    const t = makeTestApp()
    await post(t, create('1', 'Write the handler'))
    await post(t, create('2', 'Test it'))
    await post(
      t,
      list([
        { id: '1', subject: 'Write the handler', status: 'pending', blockedBy: ['1'] },
        { id: '2', subject: 'Test it', status: 'pending', blockedBy: ['1'] },
      ])
    )
    await post(
      t,
      taskHook(
        'TaskUpdate',
        { taskId: '2', addBlocks: ['2'] },
        { success: true, taskId: '2', updatedFields: ['blocks'] }
      )
    )
    const items = (await view(t, SESSION)).items
    for (const item of items as { id: string; blocks: string[]; blocked_by: string[] }[]) {
      assert.ok(!item.blocks.includes(item.id), `${item.id} blocks itself`)
      assert.ok(!item.blocked_by.includes(item.id), `${item.id} is blocked by itself`)
    }
    // the edge between two tasks stays
    assert.deepEqual(
      items.map((item: { blocked_by: string[] }) => item.blocked_by),
      [[], ['1']]
    )
  })

  it('Should not store a TodoWrite list with an empty item, which Claude’s own tool refuses', async () => {
    const t = makeTestApp()
    const todoWrite = (todos: unknown[]) => ({
      session_id: 'obey-2',
      hook_event_name: 'PostToolUse',
      tool_name: 'TodoWrite',
      tool_input: { todos },
      tool_response: { oldTodos: [], newTodos: todos },
      tool_use_id: `toolu_01Obey${String(seq++).padStart(12, '0')}`,
    })
    await post(t, todoWrite([{ content: 'Write it', status: 'pending', activeForm: 'Writing' }]))
    await post(
      t,
      todoWrite([
        { content: 'Write it', status: 'pending', activeForm: 'Writing' },
        { content: '', status: 'pending', activeForm: '' },
      ])
    )
    const items = (await view(t, 'claude:obey-2')).items
    assert.deepEqual(
      items.map((item: { content: string }) => item.content),
      ['Write it']
    )
  })

  it('Should not store a Gemini list with two items in progress, which write_todos refuses', async () => {
    const t = makeTestApp()
    const writeTodos = (todos: unknown[], timestamp: string) => ({
      session_id: 'obey-3',
      hook_event_name: 'AfterTool',
      timestamp,
      tool_name: 'write_todos',
      tool_input: { todos },
      tool_response: { llmContent: 'ok', returnDisplay: { todos } },
    })
    await post(
      t,
      writeTodos([{ description: 'One', status: 'in_progress' }], '2026-11-30T12:00:00Z'),
      'gemini-cli'
    )
    await post(
      t,
      writeTodos(
        [
          { description: 'One', status: 'in_progress' },
          { description: 'Two', status: 'in_progress' },
        ],
        '2026-11-30T12:00:01Z'
      ),
      'gemini-cli'
    )
    const items = (await view(t, 'gemini:obey-3')).items
    assert.deepEqual(
      items.map((item: { content: string }) => item.content),
      ['One']
    )
  })

  it('Should keep OpenHands task ids unique when its list repeats one', async () => {
    const t = makeTestApp()
    const batch = [
      {
        kind: 'ObservationEvent',
        id: 'e0000009-0000-4000-8000-000000000001',
        timestamp: '2026-12-01T08:47:00.000000',
        source: 'environment',
        tool_name: 'task_tracker',
        tool_call_id: 'call_oh_dup_1',
        observation: {
          kind: 'TaskTrackerObservation',
          is_error: false,
          command: 'plan',
          task_list: [
            { id: 'a', title: 'One', notes: '', status: 'todo' },
            { id: 'a', title: 'Two', notes: '', status: 'todo' },
          ],
        },
      },
    ]
    const res = await ingest(t, 'openhands/events/obey-4', batch)
    assert.equal(res.status, 200, res.text)
    const found = await ids(t, 'openhands:obey-4')
    assert.equal(new Set(found).size, found.length, `ids ${found}`)
  })
})
