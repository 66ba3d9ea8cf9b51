/**
 * Golden tests of the openhands-tracker dialect against the released OpenHands software agent SDK
 * task_tracker (OpenHands/software-agent-sdk, `openhands-tools/openhands/tools/task_tracker/definition.py`).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Status } from '../../core/items.js'
import { openhandsTracker, parseTaskTracker, renderTaskList } from './index.js'
import type { DialectState } from '../types.js'
import { dialectKit, fieldsOf, jsonCall } from '../../../test/dialect-support.js'
import { makeTestApp } from '../../../test/helpers.js'

/**
 * The released SDK's `to_openai_tool()` parameters of `task_tracker`: `TaskTrackerAction` with the
 * `summary` every tool gets, first (`to_openai_tool()` of the released SDK).
 */
const NATIVE_PARAMETERS = {
  type: 'object',
  properties: {
    summary: {
      type: 'string',
      description:
        "A concise summary (approximately 10 words) describing what this specific action does. Focus on the key operation and target. Example: 'List all Python files in current directory'",
    },
    command: {
      type: 'string',
      enum: ['view', 'plan'],
      description:
        'The command to execute. `view` shows the current task list. `plan` creates or updates the task list based on provided requirements and progress. Always `view` the current list before making changes.',
    },
    task_list: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          title: { type: 'string', description: 'A brief title for the task.' },
          notes: { type: 'string', description: 'Additional details or notes about the task.' },
          status: {
            type: 'string',
            enum: ['todo', 'in_progress', 'done'],
            description: "The current status of the task. One of 'todo', 'in_progress', or 'done'.",
          },
        },
        required: ['title'],
      },
      description: 'The full task list. Required parameter of `plan` command.',
    },
  },
  description: 'An action where the agent writes or updates a task list for task management.',
}

const NO_LIST = 'No task list found. Use the "plan" command to create one.'
const URL = 'https://errors.pydantic.dev/2.12/v'

const kit = dialectKit(openhandsTracker, 'task_tracker')
const { apply, errorOf, http } = kit

/**
 * The SDK agent's text for a call that fails pydantic's validation of TaskTrackerAction: the count,
 * each error (its location, its message, the page of its docs), then the parameters the call sent.
 */
function validationErrors(errors: [loc: string, message: string, docs: string][], sent: string) {
  const count = errors.length === 1 ? '1 validation error' : `${errors.length} validation errors`
  const lines = errors.map(
    ([loc, message, docs]) =>
      `${loc}\n  ${message}\n    For further information visit ${URL}/${docs}`
  )
  return `Error validating tool 'task_tracker': ${count} for TaskTrackerAction\n${lines.join('\n')}. Parameters provided: ${sent}`
}
const plan = (task_list: unknown, state?: DialectState) =>
  apply({ command: 'plan', task_list }, state)
/** A round's task_tracker call planning this task list. */
const track = (task_list: object[]) => ({
  name: 'task_tracker',
  input: { command: 'plan', task_list },
})

describe('openhands-tracker tool definition', () => {
  it('Should carry the SDK schema and description', () => {
    const description = kit.assertNativeTool({
      name: 'task_tracker',
      parameters: NATIVE_PARAMETERS,
      starts: 'This tool provides structured task management capabilities',
      ends: 'ensures comprehensive requirement fulfillment.',
    })
    assert.ok(description.includes('```javascript\nfor (let i = 0;'))
    // the released prompt has no "Task identity" guideline (that was the unmerged PR #4470)
    assert.ok(!description.includes('Task identity'))
    assert.ok(
      description.includes(
        '7. Task completion - Update status to done and identify any additional work\n   that emerged during implementation\n\n## Situations'
      )
    )
  })

  it('Should be served by GET /v1/tools in the OpenAI format', async () => {
    await http.assertServedOpenai({ name: 'task_tracker', parameters: NATIVE_PARAMETERS })
  })
})

describe('openhands-tracker plan and view texts', () => {
  it('Should answer a plan with the item count', () => {
    const outcome = plan([{ title: 'A' }])
    assert.equal(outcome.result.content, 'Task list has been updated with 1 item(s).')
    assert.equal(plan([]).result.content, 'Task list has been updated with 0 item(s).')
  })

  it('Should view the list with icons and indented notes, without ids', () => {
    const state = plan([
      { title: 'Design API', status: 'done', notes: 'REST, JSON' },
      { title: 'Implement', status: 'in_progress' },
      { title: 'Test' },
    ]).state
    const outcome = apply({ command: 'view' }, state)
    assert.equal(outcome.result.is_error, false)
    assert.equal(
      outcome.result.content,
      '# Task List\n\n1. ✅ Design API\n   REST, JSON\n\n2. 🔄 Implement\n\n3. ⏳ Test'
    )
    assert.deepEqual(outcome.result.structured, {
      command: 'view',
      task_list: [
        { title: 'Design API', notes: 'REST, JSON', status: 'done' },
        { title: 'Implement', notes: '', status: 'in_progress' },
        { title: 'Test', notes: '', status: 'todo' },
      ],
    })
    assert.equal(outcome.state, state)
  })

  it('Should view by default and say when there is no list', () => {
    assert.equal(apply({}).result.content, NO_LIST)
    assert.equal(apply({ command: 'view' }).result.is_error, false)
    assert.equal(apply({ command: null }).result.content, NO_LIST)
  })

  it('Should map statuses both ways: todo/pending, in_progress, done/completed', () => {
    const outcome = plan([
      { id: '1', title: 'a', status: 'todo' },
      { id: '2', title: 'b', status: 'in_progress' },
      { id: '3', title: 'c', status: 'done' },
    ])
    assert.deepEqual(
      outcome.state.items.map((i) => i.status),
      ['pending', 'in_progress', 'completed']
    )
    assert.deepEqual(
      (outcome.result.structured as { task_list: { status: string }[] }).task_list.map(
        (t) => t.status
      ),
      ['todo', 'in_progress', 'done']
    )
  })

  it('Should ignore a sent id, as the released TaskItem has none, and keep stable ids internal', () => {
    const first = plan([{ id: 'x9', title: 'Keep' }, { title: 'New' }])
    assert.deepEqual(
      first.state.items.map((i) => i.id),
      ['1', '2']
    )
    assert.deepEqual((first.result.structured as { task_list: unknown[] }).task_list, [
      { title: 'Keep', notes: '', status: 'todo' },
      { title: 'New', notes: '', status: 'todo' },
    ])
    // matched by title, so a reordering keeps each task's internal id
    const second = plan(
      [{ title: 'New', status: 'in_progress' }, { id: 'zz', title: 'Keep' }, { title: 'Third' }],
      first.state
    )
    assert.deepEqual(
      second.state.items.map((i) => [i.id, i.content]),
      [
        ['2', 'New'],
        ['1', 'Keep'],
        ['3', 'Third'],
      ]
    )
  })

  it('Should read a null notes or status as absent, as strict-mode callers send them', () => {
    const outcome = plan([{ title: 'A', notes: null, status: null }])
    assert.equal(outcome.result.is_error, false)
    assert.deepEqual(
      outcome.state.items.map((i) => [i.content, i.status, i.notes]),
      [['A', 'pending', undefined]]
    )
    const view = apply({ summary: null, command: 'view', task_list: null }, outcome.state)
    assert.equal(view.result.content, '# Task List\n\n1. ⏳ A')
  })

  it('Should accept a task_list sent as a JSON string, as the SDK repairs it', () => {
    const outcome = apply({
      command: 'plan',
      task_list: JSON.stringify([{ title: 'A', status: 'done' }]) + '</parameter>',
    })
    assert.equal(outcome.result.content, 'Task list has been updated with 1 item(s).')
    assert.deepEqual(
      outcome.state.items.map((i) => [i.content, i.status]),
      [['A', 'completed']]
    )
  })

  it('Should ignore the harness fields security_risk and summary', () => {
    const outcome = apply({
      command: 'plan',
      task_list: [{ title: 'A' }],
      security_risk: 'LOW',
      summary: 'plan',
    })
    assert.equal(outcome.result.is_error, false)
  })
})

describe('openhands-tracker validation errors (pydantic, as the SDK agent reports them)', () => {
  it('Should report a missing title', () => {
    assert.equal(
      errorOf({ command: 'plan', task_list: [{ status: 'todo' }] }),
      validationErrors(
        [
          [
            'task_list.0.title',
            "Field required [type=missing, input_value={'status': 'todo'}, input_type=dict]",
            'missing',
          ],
        ],
        "['command', 'task_list']"
      )
    )
  })

  it('Should report an unknown command and an unknown status as literal errors', () => {
    assert.equal(
      errorOf({ command: 'list' }),
      validationErrors(
        [
          [
            'command',
            "Input should be 'view' or 'plan' [type=literal_error, input_value='list', input_type=str]",
            'literal_error',
          ],
        ],
        "['command']"
      )
    )
    assert.equal(
      errorOf({ command: 'plan', task_list: [{ title: 'A', status: 'pending' }] }),
      validationErrors(
        [
          [
            'task_list.0.status',
            "Input should be 'todo', 'in_progress' or 'done' [type=literal_error, input_value='pending', input_type=str]",
            'literal_error',
          ],
        ],
        "['command', 'task_list']"
      )
    )
  })

  it('Should forbid extra arguments and count several errors', () => {
    assert.equal(
      errorOf({ command: 'plan', task_list: [3], tasks: 'x'.repeat(60) }),
      validationErrors(
        [
          [
            'task_list.0',
            'Input should be a valid dictionary or instance of TaskItem [type=model_type, input_value=3, input_type=int]',
            'model_type',
          ],
          [
            'tasks',
            "Extra inputs are not permitted [type=extra_forbidden, input_value='xxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxx', input_type=str]",
            'extra_forbidden',
          ],
        ],
        "['command', 'task_list', 'tasks']"
      )
    )
  })

  it('Should report a task_list that is no list', () => {
    assert.match(
      errorOf({ command: 'plan', task_list: 'not json' }),
      /^Error validating tool 'task_tracker': 1 validation error for TaskTrackerAction\ntask_list\n {2}Input should be a valid list \[type=list_type, input_value='not json', input_type=str\]/
    )
  })

  it('Should report unparseable arguments with the json module message', () => {
    assert.equal(
      openhandsTracker.argumentsError('task_tracker', '{"command": "plan", "task_list": [}'),
      "Error validating tool 'task_tracker': Expecting value: line 1 column 35 (char 34). Arguments: unparseable JSON"
    )
    assert.equal(
      openhandsTracker.argumentsError('task_tracker', '{"command": "plan"'),
      "Error validating tool 'task_tracker': Expecting ',' delimiter: line 1 column 19 (char 18). Arguments: unparseable JSON"
    )
  })

  it('Should expose the parser for callers that need the action', () => {
    assert.deepEqual(parseTaskTracker({ command: 'plan', task_list: [{ title: 'A' }] }), {
      ok: true,
      command: 'plan',
      taskList: [{ title: 'A', notes: '', status: 'todo' }],
    })
  })
})

describe('openhands-tracker identity and dropped items', () => {
  it('Should keep ids across a reordering rewrite and report dropped unfinished tasks', () => {
    const first = plan([
      { title: 'A', status: 'in_progress' },
      { title: 'B' },
      { title: 'C' },
      { title: 'D', status: 'done' },
    ])
    const ids = first.state.items.map((i) => i.id)
    assert.deepEqual(ids, ['1', '2', '3', '4'])
    const second = plan(
      [
        { title: 'C', status: 'in_progress' },
        { title: 'A', status: 'done' },
      ],
      first.state
    )
    assert.deepEqual(fieldsOf(second.state.items, 'id', 'content'), [
      ['3', 'C'],
      ['1', 'A'],
    ])
    assert.deepEqual(fieldsOf(second.dropped, 'id', 'content'), [['2', 'B']])
  })
})

describe('openhands-tracker list rules and rendering', () => {
  const item = (id: string, content: string, status: Status, notes?: string) =>
    makeItem({ id, content, status, notes })

  it('Should accept the three mappable statuses and refuse the others', () => {
    assert.equal(
      openhandsTracker.checkList([item('1', 'a', 'pending'), item('2', 'b', 'completed')]).ok,
      true
    )
    const bad = openhandsTracker.checkList([item('1', 'a', 'cancelled')])
    assert.equal(bad.ok, false)
    assert.match(
      (bad as { message: string }).message,
      /task_list\.0\.status\n {2}Input should be 'todo', 'in_progress' or 'done' \[type=literal_error, input_value='cancelled'/
    )
  })

  it('Should render the view text', () => {
    assert.equal(
      renderTaskList([item('7', 'Ship', 'pending', 'after review')]),
      '# Task List\n\n1. ⏳ Ship\n   after review'
    )
    assert.equal(renderTaskList([]), NO_LIST)
  })
})

describe('openhands-tracker over HTTP', () => {
  it('Should apply task_tracker in a round mixed with other tools', async () => {
    const { res } = await http.firstRound('oh1', [
      { id: 't1', name: 'terminal', arguments: '{"command":"ls"}' },
      jsonCall('t2', 'task_tracker', {
        command: 'plan',
        task_list: [{ title: 'Read', status: 'done' }, { title: 'Fix' }],
      }),
      { id: 't3', name: 'task_tracker', arguments: '{"command":"view"}' },
    ])
    assert.deepEqual(fieldsOf(res.body.results, 'tool_use_id', 'is_error', 'content'), [
      ['t2', false, 'Task list has been updated with 2 item(s).'],
      ['t3', false, '# Task List\n\n1. ✅ Read\n\n2. ⏳ Fix'],
    ])
    assert.equal(res.body.progress.completed, 1)
  })

  it('Should answer a bad call with is_error and leave the list unchanged', async () => {
    const { t, res } = await http.secondRound(
      'oh2',
      [track([{ title: 'A' }])],
      [track([{ status: 'done' }])]
    )
    assert.equal(res.body.results[0].is_error, true)
    assert.match(
      res.body.results[0].content,
      /^Error validating tool 'task_tracker': 1 validation error/
    )
    const session = await http.view(t, 'oh2')
    assert.deepEqual(fieldsOf(session.items, 'content'), [['A']])
    assert.equal(session.rendered, '# Task List\n\n1. ⏳ A')
  })

  it('Should report dropped tasks and keep ids through a reorder, and remind after 3 rounds', async () => {
    const t = await http.reorder('oh3', (contents) => track(contents.map((title) => ({ title }))))
    assert.deepEqual(await http.reminders(t, 'oh3', 3, 'terminal'), [
      null,
      null,
      { text: '<reminder>Update your task list with task_tracker.</reminder>' },
    ])
  })

  it('Should keep operator notes and refuse a cancelled item on PUT', async () => {
    const t = makeTestApp()
    const ok = await t.call('PUT', '/v1/sessions/oh4/todos', {
      dialect: 'openhands-tracker',
      items: [{ id: 'q1', content: 'Review', status: 'in_progress', notes: 'by Friday' }],
    })
    assert.equal(ok.status, 200)
    assert.equal(ok.body.rendered, '# Task List\n\n1. 🔄 Review\n   by Friday')
    const detail = await http.refusedPut(t, 'oh4', {
      items: [{ id: 'q1', content: 'Review', status: 'cancelled' }],
    })
    assert.match(detail, /Input should be 'todo', 'in_progress' or 'done'/)
  })
})
