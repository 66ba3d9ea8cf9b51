/**
 * Golden tests of the claude-tasks dialect against Claude Code
 * 2.1.332 as shipped (prompts, input repairs, steering text, TaskGet's open blockers).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem } from '../../core/items.js'
import { claudeTasks } from './index.js'
import {
  TASK_CREATE_PROMPT,
  TASK_GET_PROMPT,
  TASK_LIST_PROMPT,
  TASK_UPDATE_PROMPT,
} from './texts.js'
import type { CallOutcome, DialectState } from '../types.js'
import { formatTool } from '../../tools/formats.js'
import {
  assertListRefused,
  claudeUnparsable,
  dialectHttp,
  fieldsOf,
} from '../../../test/dialect-support.js'
import { makeTestApp, round } from '../../../test/helpers.js'

const REMINDER_BODY =
  "The task tools haven't been used recently. If you're working on tasks that would benefit from tracking progress, consider using TaskCreate to add new tasks and TaskUpdate to update task status (set to in_progress when starting, completed when done). Also consider cleaning up the task list if it has become stale. Only use these if relevant to the current work. This is just a gentle reminder - ignore if not applicable.\n"

const ACTIVE_FORM =
  'Present continuous form shown in spinner when in_progress (e.g., "Running tests")'
const METADATA = { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} }

/**
 * A tool whose input is a closed object (zod's strictObject) of these properties.
 * @param required - the required properties; none when absent
 */
const strictTool = (
  name: string,
  description: string,
  properties: object,
  required?: string[]
) => ({
  name,
  description,
  input_schema: {
    type: 'object',
    properties,
    ...(required && { required }),
    additionalProperties: false,
  },
})

/** The inputs of sdk-tools.d.ts (dialects.md §2.3) as JSON Schema, with strictObject's closure. */
const NATIVE_TOOLS = [
  strictTool(
    'TaskCreate',
    TASK_CREATE_PROMPT,
    {
      subject: { type: 'string', description: 'A brief title for the task' },
      description: { type: 'string', description: 'What needs to be done' },
      activeForm: { description: ACTIVE_FORM, type: 'string' },
      metadata: { description: 'Arbitrary metadata to attach to the task', ...METADATA },
    },
    ['subject', 'description']
  ),
  strictTool(
    'TaskGet',
    TASK_GET_PROMPT,
    { taskId: { type: 'string', description: 'The ID of the task to retrieve' } },
    ['taskId']
  ),
  strictTool(
    'TaskUpdate',
    TASK_UPDATE_PROMPT,
    {
      taskId: { type: 'string', description: 'The ID of the task to update' },
      subject: { description: 'New subject for the task', type: 'string' },
      description: { description: 'New description for the task', type: 'string' },
      activeForm: { description: ACTIVE_FORM, type: 'string' },
      status: {
        description: 'New status for the task',
        anyOf: [
          { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
          { type: 'string', const: 'deleted' },
        ],
      },
      addBlocks: {
        description: 'Task IDs that this task blocks',
        type: 'array',
        items: { type: 'string' },
      },
      addBlockedBy: {
        description: 'Task IDs that block this task',
        type: 'array',
        items: { type: 'string' },
      },
      owner: { description: 'New owner for the task', type: 'string' },
      metadata: {
        description: 'Metadata keys to merge into the task. Set a key to null to delete it.',
        ...METADATA,
      },
    },
    ['taskId']
  ),
  strictTool('TaskList', TASK_LIST_PROMPT, {}),
]

const CTX = { callsInRound: 1, indexInRound: 0 }
const EMPTY: DialectState = { items: [], data: {} }

/** A small driver: applies calls in turn, keeping the state. */
function session(initial: DialectState = EMPTY) {
  let state = initial
  const call = (name: string, input: unknown = {}): CallOutcome => {
    const outcome = claudeTasks.apply(state, name, input, CTX)
    state = outcome.state
    return outcome
  }
  return {
    call,
    create: (subject: string, extra: Record<string, unknown> = {}) =>
      call('TaskCreate', { subject, description: `Do ${subject}`, ...extra }),
    get state() {
      return state
    },
    item: (id: string) => state.items.find((item) => item.id === id),
  }
}

/** A session in which TaskCreate made tasks of these subjects, #1 on. */
function withTasks(...subjects: string[]) {
  const s = session()
  for (const subject of subjects) s.create(subject)
  return s
}

const ok = (outcome: CallOutcome) => {
  assert.equal(outcome.result.is_error, false)
  assert.deepEqual(outcome.dropped, [])
  return outcome.result
}

describe('claude-tasks tool definitions', () => {
  it('Should advertise the four native tools with their schemas', () => {
    assert.equal(claudeTasks.name, 'claude-tasks')
    assert.deepEqual(
      claudeTasks.tools.map((tool) => formatTool(tool, 'anthropic')),
      NATIVE_TOOLS
    )
  })

  it("Should describe each tool with Claude Code's prompt", () => {
    const [create, get, update, list] = claudeTasks.tools.map((tool) => tool.description)
    assert.ok(
      create.startsWith(
        'Use this tool to create a structured task list for your current coding session.'
      )
    )
    assert.ok(create.includes('All tasks are created with status `pending`.\n'))
    assert.ok(get.startsWith('Use this tool to retrieve a task by its ID from the task list.\n'))
    assert.ok(update.includes('Setting status to `deleted` permanently removes the task\n'))
    assert.ok(
      update.includes('Status progresses: `pending` \u2192 `in_progress` \u2192 `completed`')
    )
    assert.ok(list.startsWith('Use this tool to list all tasks in the task list.\n'))
    // a session without agent teams: no teammate workflow
    assert.ok(!list.includes('Teammate Workflow') && !create.includes('teammates'))
  })
})

describe('claude-tasks TaskCreate', () => {
  it('Should number tasks from 1 and answer with the native text and {task:{id,subject,description}}', () => {
    const s = session()
    assert.deepEqual(ok(s.create('Write tests')), {
      is_error: false,
      content: 'Task #1 created successfully: Write tests',
      structured: { task: { id: '1', subject: 'Write tests', description: 'Do Write tests' } },
    })
    assert.equal(ok(s.create('Ship')).content, 'Task #2 created successfully: Ship')
    assert.deepEqual(s.item('1'), {
      id: '1',
      content: 'Write tests',
      status: 'pending',
      description: 'Do Write tests',
      blocks: [],
      blocked_by: [],
    })
  })

  it('Should map activeForm and metadata onto the canonical item', () => {
    const s = session()
    s.create('Run tests', { activeForm: 'Running tests', metadata: { area: 'ci' } })
    assert.equal(s.item('1')?.active_form, 'Running tests')
    assert.deepEqual(s.item('1')?.metadata, { area: 'ci' })
  })

  it('Should never reuse an id after a delete, and follow ids an operator put in', () => {
    const s = withTasks('A', 'B', 'C')
    s.call('TaskUpdate', { taskId: '3', status: 'deleted' })
    assert.equal(ok(s.create('D')).content, 'Task #4 created successfully: D')
    s.call('TaskUpdate', { taskId: '4', status: 'deleted' })
    s.call('TaskUpdate', { taskId: '2', status: 'deleted' })
    assert.equal(ok(s.create('E')).content, 'Task #5 created successfully: E')
    const put = session({
      items: [makeItem({ id: '41', content: 'X', status: 'pending' })],
      data: {},
    })
    assert.equal(ok(put.create('Y')).content, 'Task #42 created successfully: Y')
  })
})

describe('claude-tasks TaskGet', () => {
  it("Should answer with the task's lines, blockers and blocked tasks when there are any", () => {
    const s = withTasks('A', 'B', 'C')
    assert.deepEqual(ok(s.call('TaskGet', { taskId: '1' })), {
      is_error: false,
      content: 'Task #1: A\nStatus: pending\nDescription: Do A',
      structured: {
        task: {
          id: '1',
          subject: 'A',
          description: 'Do A',
          status: 'pending',
          blocks: [],
          blockedBy: [],
        },
      },
    })
    s.call('TaskUpdate', { taskId: '2', addBlockedBy: ['1'], addBlocks: ['3'] })
    assert.equal(
      ok(s.call('TaskGet', { taskId: '2' })).content,
      'Task #2: B\nStatus: pending\nDescription: Do B\nBlocked by: #1\nBlocks: #3'
    )
  })

  it('Should answer an unknown task with the non-error text Task not found', () => {
    const s = withTasks('A')
    const before = s.state
    const outcome = s.call('TaskGet', { taskId: '9' })
    assert.deepEqual(ok(outcome), {
      is_error: false,
      content: 'Task not found',
      structured: { task: null },
    })
    assert.equal(outcome.state, before)
  })
})

describe('claude-tasks TaskUpdate', () => {
  it('Should update partially, listing only changed fields, with the status change', () => {
    const s = withTasks('A')
    assert.deepEqual(
      ok(
        s.call('TaskUpdate', {
          taskId: '1',
          subject: 'A',
          activeForm: 'Doing A',
          status: 'in_progress',
        })
      ),
      {
        is_error: false,
        content: 'Updated task #1 activeForm, status',
        structured: {
          success: true,
          taskId: '1',
          updatedFields: ['activeForm', 'status'],
          statusChange: { from: 'pending', to: 'in_progress' },
        },
      }
    )
    assert.equal(s.item('1')?.status, 'in_progress')
    assert.equal(s.item('1')?.description, 'Do A', 'untouched fields stay')
    assert.equal(
      ok(s.call('TaskUpdate', { taskId: '1', subject: 'A2', description: 'New', owner: 'ann' }))
        .content,
      'Updated task #1 subject, description, owner'
    )
    assert.equal(s.item('1')?.content, 'A2')
    assert.equal(s.item('1')?.owner, 'ann')
  })

  it('Should end the text in a space when nothing changed', () => {
    const s = withTasks('A')
    assert.deepEqual(ok(s.call('TaskUpdate', { taskId: '1', status: 'pending', subject: 'A' })), {
      is_error: false,
      content: 'Updated task #1 ',
      structured: { success: true, taskId: '1', updatedFields: [] },
    })
  })

  it('Should allow any status transition, pending straight to completed', () => {
    const s = withTasks('A')
    const result = ok(s.call('TaskUpdate', { taskId: '1', status: 'completed' }))
    assert.equal(result.content, 'Updated task #1 status')
    assert.deepEqual((result.structured as { statusChange: unknown }).statusChange, {
      from: 'pending',
      to: 'completed',
    })
  })

  it('Should write blocks and blockedBy on both tasks, once', () => {
    const s = withTasks('A', 'B', 'C')
    assert.equal(
      ok(s.call('TaskUpdate', { taskId: '2', addBlockedBy: ['1'] })).content,
      'Updated task #2 blockedBy'
    )
    assert.deepEqual(s.item('1')?.blocks, ['2'])
    assert.deepEqual(s.item('2')?.blocked_by, ['1'])
    assert.equal(
      ok(s.call('TaskUpdate', { taskId: '2', addBlocks: ['3'] })).content,
      'Updated task #2 blocks'
    )
    assert.deepEqual(s.item('2')?.blocks, ['3'])
    assert.deepEqual(s.item('3')?.blocked_by, ['2'])
    assert.equal(
      ok(s.call('TaskUpdate', { taskId: '2', addBlockedBy: ['1'], addBlocks: ['3'] })).content,
      'Updated task #2 ',
      'edges already present are not written again'
    )
    assert.deepEqual(s.item('1')?.blocks, ['2'])
  })

  it('Should list an edge to a missing task without writing it, as the native does', () => {
    const s = withTasks('A')
    assert.equal(
      ok(s.call('TaskUpdate', { taskId: '1', addBlocks: ['99'] })).content,
      'Updated task #1 blocks'
    )
    assert.deepEqual(s.item('1')?.blocks, [])
  })

  it('Should merge metadata key by key, null deleting a key, and list it whenever sent', () => {
    const s = session()
    s.create('A', { metadata: { a: 1, b: 2 } })
    assert.equal(
      ok(s.call('TaskUpdate', { taskId: '1', metadata: { b: null, c: { d: 3 } } })).content,
      'Updated task #1 metadata'
    )
    assert.deepEqual(s.item('1')?.metadata, { a: 1, c: { d: 3 } })
    assert.equal(
      ok(s.call('TaskUpdate', { taskId: '1', metadata: {} })).content,
      'Updated task #1 metadata'
    )
  })

  it('Should delete on status deleted and strip the id from every other task', () => {
    const s = withTasks('A', 'B', 'C')
    s.call('TaskUpdate', { taskId: '2', addBlockedBy: ['1'], addBlocks: ['3'] })
    assert.deepEqual(
      ok(s.call('TaskUpdate', { taskId: '2', status: 'deleted', subject: 'ignored' })),
      {
        is_error: false,
        content: 'Updated task #2 deleted',
        structured: {
          success: true,
          taskId: '2',
          updatedFields: ['deleted'],
          statusChange: { from: 'pending', to: 'deleted' },
        },
      }
    )
    assert.deepEqual(fieldsOf(s.state.items, 'id', 'blocks', 'blocked_by'), [
      ['1', [], []],
      ['3', [], []],
    ])
    assert.equal(ok(s.call('TaskGet', { taskId: '2' })).content, 'Task not found')
  })

  it('Should answer an unknown task with a non-error Task not found, state unchanged', () => {
    const s = withTasks('A')
    const before = s.state
    const outcome = s.call('TaskUpdate', { taskId: '7', status: 'completed' })
    assert.deepEqual(ok(outcome), {
      is_error: false,
      content: 'Task not found',
      structured: { success: false, taskId: '7', updatedFields: [], error: 'Task not found' },
    })
    assert.equal(outcome.state, before)
  })
})

describe('claude-tasks TaskList', () => {
  it('Should say No tasks found when empty', () => {
    assert.deepEqual(ok(session().call('TaskList')), {
      is_error: false,
      content: 'No tasks found',
      structured: { tasks: [] },
    })
  })

  it('Should show owner and only unresolved blockers', () => {
    const s = withTasks('A', 'B', 'C')
    s.call('TaskUpdate', { taskId: '3', addBlockedBy: ['1', '2'] })
    s.call('TaskUpdate', { taskId: '1', owner: 'ann', status: 'completed' })
    assert.deepEqual(ok(s.call('TaskList')), {
      is_error: false,
      content: '#1 [completed] A (ann)\n#2 [pending] B\n#3 [pending] C [blocked by #2]',
      structured: {
        tasks: [
          { id: '1', subject: 'A', status: 'completed', owner: 'ann', blockedBy: [] },
          { id: '2', subject: 'B', status: 'pending', blockedBy: [] },
          { id: '3', subject: 'C', status: 'pending', blockedBy: ['2'] },
        ],
      },
    })
    s.call('TaskUpdate', { taskId: '1', status: 'in_progress' })
    assert.equal(
      ok(s.call('TaskList')).content,
      '#1 [in_progress] A (ann)\n#2 [pending] B\n#3 [pending] C [blocked by #1, #2]'
    )
    assert.deepEqual(s.item('3')?.blocked_by, ['1', '2'], 'the stored edges are all kept')
  })

  it('Should hide tasks whose metadata marks them internal', () => {
    const s = session()
    s.create('A', { metadata: { _internal: true } })
    s.create('B')
    assert.equal(ok(s.call('TaskList')).content, '#2 [pending] B')
  })
})

describe('claude-tasks key repair and lenient parsing', () => {
  it('Should take id or task_id for taskId in TaskUpdate, and active_form for activeForm', () => {
    const s = session()
    s.create('A', { active_form: 'Aing' })
    assert.equal(s.item('1')?.active_form, 'Aing')
    assert.equal(
      ok(s.call('TaskUpdate', { task_id: '1', active_form: 'Doing A' })).content,
      'Updated task #1 activeForm'
    )
    assert.equal(
      ok(s.call('TaskUpdate', { id: '1', status: 'completed' })).content,
      'Updated task #1 status'
    )
  })

  it('Should accept id lists and metadata sent as JSON strings', () => {
    const s = withTasks('A')
    s.create('B', { metadata: '{"k":"v"}' })
    assert.equal(
      ok(s.call('TaskUpdate', { taskId: '2', addBlockedBy: '["1"]' })).content,
      'Updated task #2 blockedBy'
    )
    assert.deepEqual(s.item('2')?.metadata, { k: 'v' })
  })
})

describe('claude-tasks input repairs of Claude Code 2.1.332', () => {
  const created = (input: unknown) => {
    const s = session()
    const result = ok(s.call('TaskCreate', input))
    return { result, item: s.item('1')! }
  }

  it('Should repair TaskCreate {subject} without a description: the description is the subject', () => {
    const { result, item } = created({ subject: 'Write tests' })
    assert.equal(result.content, 'Task #1 created successfully: Write tests')
    assert.deepEqual(result.structured, {
      task: { id: '1', subject: 'Write tests', description: 'Write tests' },
    })
    assert.equal(item.description, 'Write tests')
  })

  it('Should take title or name for subject and content for description', () => {
    assert.equal(created({ title: 'A', content: 'do a' }).item.content, 'A')
    assert.equal(created({ title: 'A', content: 'do a' }).item.description, 'do a')
    assert.equal(created({ name: 'B' }).item.content, 'B')
    assert.equal(created({ name: 'B' }).item.description, 'B')
    // an alias never overrides the key itself
    assert.equal(created({ subject: 'S', title: 'T', description: 'd' }).item.content, 'S')
  })

  it('Should make a subject from a description alone, at most 80 characters cut at a word', () => {
    assert.equal(created({ description: 'Fix the login bug' }).item.content, 'Fix the login bug')
    const long = `${'word '.repeat(30)}end`
    const subject = created({ description: long }).item.content
    assert.ok(subject.length <= 80 && long.startsWith(subject) && !subject.endsWith(' '))
  })

  it('Should unwrap a task wrapper, an object or a string', () => {
    const wrapped = created({ task: { subject: 'A', description: 'a', activeForm: 'Aing' } })
    assert.deepEqual(
      [wrapped.item.content, wrapped.item.description, wrapped.item.active_form],
      ['A', 'a', 'Aing']
    )
    const text = created({ task: 'Refactor the parser' })
    assert.deepEqual(
      [text.item.content, text.item.description],
      ['Refactor the parser', 'Refactor the parser']
    )
  })

  it('Should strip unknown keys, and drop a non-string activeForm or non-object metadata', () => {
    const { item } = created({
      subject: 'A',
      description: 'a',
      status: 'in_progress',
      priority: 'high',
      activeForm: null,
      metadata: 7,
    })
    assert.equal(item.status, 'pending')
    assert.equal(item.active_form, undefined)
    assert.equal(item.metadata, undefined)
  })

  it('Should steer a call with tasks or todos to one TaskCreate per task', () => {
    const s = session()
    const outcome = s.call('TaskCreate', { tasks: [{ subject: 'A' }, { subject: 'B' }] })
    assert.equal(outcome.result.is_error, true)
    assert.equal(
      outcome.result.content,
      '<tool_use_error>InputValidationError: TaskCreate creates ONE task per call and has no `tasks` or `todos` parameter. Call TaskCreate once per task, passing `subject` (a brief title) and `description` (what needs to be done) as top-level string parameters.\n\n' +
        'TaskCreate failed due to the following issues:\nThe required parameter `subject` is missing\nThe required parameter `description` is missing\nAn unexpected parameter `tasks` was provided</tool_use_error>'
    )
    const todos = s.call('TaskCreate', { task: { todos: ['A'] } })
    assert.match(
      todos.result.content,
      /^<tool_use_error>InputValidationError: TaskCreate creates ONE task per call/
    )
    assert.deepEqual(s.state, EMPTY)
  })

  it('Should steer Agent-tool parameters to the Agent tool', () => {
    const outcome = session().call('TaskCreate', { prompt: 'Investigate', subagent_type: 'x' })
    assert.equal(outcome.result.is_error, true)
    assert.ok(
      outcome.result.content.startsWith(
        '<tool_use_error>InputValidationError: This call used Agent-tool parameters (`prompt`/`subagent_type`). TaskCreate adds an item to the task list and takes `subject` and `description` string parameters. To delegate work to a subagent, use the Agent tool instead.\n\nTaskCreate failed due to the following issues:\n'
      )
    )
  })

  it('Should not repair task_id in TaskGet, as the native refuses it', () => {
    const s = withTasks('A')
    const outcome = s.call('TaskGet', { task_id: '1' })
    assert.equal(outcome.result.is_error, true)
    assert.equal(
      outcome.result.content,
      '<tool_use_error>InputValidationError: TaskGet failed due to the following issues:\nThe required parameter `taskId` is missing\nAn unexpected parameter `task_id` was provided</tool_use_error>'
    )
    assert.equal(s.call('TaskGet', { id: '1' }).result.is_error, true)
  })

  it('Should list only the blockers that are not completed in TaskGet', () => {
    const s = withTasks('A', 'B', 'C')
    s.call('TaskUpdate', { taskId: '3', addBlockedBy: ['1', '2'] })
    s.call('TaskUpdate', { taskId: '1', status: 'completed' })
    const result = ok(s.call('TaskGet', { taskId: '3' }))
    assert.equal(result.content, 'Task #3: C\nStatus: pending\nDescription: Do C\nBlocked by: #2')
    assert.deepEqual((result.structured as { task: { blockedBy: string[] } }).task.blockedBy, ['2'])
    // the stored edge stays; only the answer leaves the resolved blocker out
    assert.deepEqual(s.item('3')?.blocked_by, ['1', '2'])
  })

  it('Should read an optional TaskUpdate field sent as null as absent (strict-mode callers)', () => {
    const s = withTasks('A')
    const result = ok(
      s.call('TaskUpdate', {
        taskId: '1',
        subject: null,
        description: null,
        activeForm: null,
        status: 'in_progress',
        addBlocks: null,
        addBlockedBy: null,
        owner: null,
      })
    )
    assert.equal(result.content, 'Updated task #1 status')
    assert.equal(s.item('1')?.content, 'A')
  })
})

describe('claude-tasks input errors, as Claude Code words them', () => {
  const errorOf = (name: string, input: unknown) => {
    const s = withTasks('A')
    const before = s.state
    const outcome = s.call(name, input)
    assert.equal(outcome.result.is_error, true)
    assert.equal(outcome.result.structured, null)
    assert.equal(outcome.state, before, 'state unchanged')
    return outcome.result.content
  }

  it('Should name missing and unexpected parameters', () => {
    assert.equal(
      errorOf('TaskCreate', { priority: 'high' }),
      '<tool_use_error>InputValidationError: TaskCreate failed due to the following issues:\nThe required parameter `subject` is missing\nThe required parameter `description` is missing\nAn unexpected parameter `priority` was provided</tool_use_error>'
    )
    assert.equal(
      errorOf('TaskList', { filter: 'open' }),
      '<tool_use_error>InputValidationError: TaskList failed due to the following issue:\nAn unexpected parameter `filter` was provided</tool_use_error>'
    )
    assert.equal(
      errorOf('TaskUpdate', { status: 'completed', blocks: ['1'] }),
      '<tool_use_error>InputValidationError: TaskUpdate failed due to the following issues:\nThe required parameter `taskId` is missing\nAn unexpected parameter `blocks` was provided</tool_use_error>'
    )
  })

  it('Should reject a number where the native wants a string id', () => {
    assert.equal(
      errorOf('TaskGet', { taskId: 1 }),
      '<tool_use_error>InputValidationError: TaskGet failed due to the following issue:\nThe parameter `taskId` type is expected as `string` but provided as `number`</tool_use_error>'
    )
  })

  it("Should fall back to zod's issue list for a status outside the enum", () => {
    const content = errorOf('TaskUpdate', { taskId: '1', status: 'done' })
    assert.match(
      content,
      /^<tool_use_error>InputValidationError: \[\n {2}\{\n {4}"code": "invalid_union"/
    )
    assert.ok(content.endsWith(']</tool_use_error>'))
  })

  it('Should answer unparseable arguments with the native JSON error', () => {
    assert.equal(
      claudeTasks.argumentsError('TaskCreate', '{"subject": "A'),
      claudeUnparsable('TaskCreate', '14 of 14', '{"subject": "A')
    )
  })
})

describe('claude-tasks reminder, render and operator lists', () => {
  it('Should reset the reminder only on TaskCreate and TaskUpdate', () => {
    assert.deepEqual(claudeTasks.reminder, { afterRounds: 10, repeatEvery: 10 })
    const resets = claudeTasks.tools.map((tool) => [
      tool.name,
      claudeTasks.resetsReminder?.(tool.name),
    ])
    assert.deepEqual(resets, [
      ['TaskCreate', true],
      ['TaskGet', false],
      ['TaskUpdate', true],
      ['TaskList', false],
    ])
  })

  it("Should remind with Claude Code's task text and one #id line per task", () => {
    const s = withTasks('Run tests', 'Ship')
    s.call('TaskUpdate', { taskId: '1', status: 'in_progress' })
    assert.equal(
      claudeTasks.reminderText(s.state.items),
      `<system-reminder>\n${REMINDER_BODY}\n\nHere are the existing tasks:\n\n#1. [in_progress] Run tests\n#2. [pending] Ship\n</system-reminder>`
    )
    assert.equal(
      claudeTasks.reminderText([]),
      `<system-reminder>\n${REMINDER_BODY}\n</system-reminder>`
    )
  })

  it('Should render the TaskList text', () => {
    const s = withTasks('A', 'B')
    s.call('TaskUpdate', { taskId: '2', addBlockedBy: ['1'], owner: 'bo' })
    assert.equal(
      claudeTasks.render(s.state.items),
      '#1 [pending] A\n#2 [pending] B (bo) [blocked by #1]'
    )
    assert.equal(claudeTasks.render([]), 'No tasks found')
  })

  it("Should refuse an operator's list with a status the tools do not know", () => {
    assertListRefused(
      claudeTasks,
      [makeItem({ id: '1', content: 'A', status: 'cancelled' })],
      'tasks[0].status: Invalid option: expected one of "pending"|"in_progress"|"completed"'
    )
    assertListRefused(
      claudeTasks,
      [
        makeItem({ id: '1', content: 'A', status: 'pending' }),
        makeItem({ id: '1', content: 'B', status: 'pending' }),
      ],
      "Duplicate task id '1'"
    )
  })

  it("Should write an operator's edges on both ends and drop edges to unknown tasks", () => {
    const checked = claudeTasks.checkList([
      makeItem({ id: '1', content: 'A', status: 'pending', blocks: ['2', '9'] }),
      makeItem({ id: '2', content: 'B', status: 'pending' }),
      makeItem({ id: '3', content: 'C', status: 'completed', blocked_by: ['2'] }),
    ])
    assert.ok(checked.ok)
    assert.deepEqual(fieldsOf(checked.items, 'id', 'blocks', 'blocked_by'), [
      ['1', ['2'], []],
      ['2', ['3'], ['1']],
      ['3', [], ['2']],
    ])
  })
})

describe('claude-tasks over HTTP', () => {
  const dialect = 'claude-tasks'
  const http = dialectHttp(dialect)
  const bash = (id: string) => ({ id, name: 'Bash', input: { command: 'ls' } })
  const taskCreate = (id: string, subject: string, description: string) => ({
    id,
    name: 'TaskCreate',
    input: { subject, description },
  })

  it('Should list the four tools in the anthropic format', async () => {
    const t = makeTestApp()
    assert.deepEqual(await http.tools('anthropic', t), {
      dialect,
      format: 'anthropic',
      tools: NATIVE_TOOLS,
    })
    const dialects = await t.call('GET', '/v1/dialects')
    const listed = dialects.body.dialects.find((d: { name: string }) => d.name === dialect)
    assert.deepEqual(listed.tools, ['TaskCreate', 'TaskGet', 'TaskUpdate', 'TaskList'])
  })

  it('Should apply the task tools in order within a round mixed with other tools', async () => {
    const { t, res } = await http.firstRound('ct1', [
      taskCreate('toolu_01', 'A', 'a'),
      bash('toolu_02'),
      taskCreate('toolu_03', 'B', 'b'),
      { id: 'toolu_04', name: 'TaskUpdate', input: { taskId: '2', addBlockedBy: ['1'] } },
      { id: 'toolu_05', name: 'TaskGet', input: { taskId: '9' } },
      { id: 'toolu_06', name: 'TaskList', input: {} },
    ])
    assert.deepEqual(fieldsOf(res.body.results, 'tool_use_id', 'is_error', 'content'), [
      ['toolu_01', false, 'Task #1 created successfully: A'],
      ['toolu_03', false, 'Task #2 created successfully: B'],
      ['toolu_04', false, 'Updated task #2 blockedBy'],
      ['toolu_05', false, 'Task not found'],
      ['toolu_06', false, '#1 [pending] A\n#2 [pending] B [blocked by #1]'],
    ])
    assert.deepEqual(res.body.results[0].structured, {
      task: { id: '1', subject: 'A', description: 'a' },
    })
    assert.deepEqual(res.body.dropped, [])
    const view = await http.view(t, 'ct1')
    assert.equal(view.rendered, '#1 [pending] A\n#2 [pending] B [blocked by #1]')
    assert.deepEqual(view.items[1].blocked_by, ['1'])
  })

  it('Should answer a bad call with is_error and leave the tasks unchanged', async () => {
    const { t, res } = await http.secondRound(
      'ct2',
      [taskCreate('a', 'A', 'a')],
      [
        { id: 'b', name: 'TaskUpdate', input: { taskId: '1', status: 'done' } },
        { id: 'c', name: 'TaskCreate', arguments: '{"subject":' },
      ]
    )
    assert.deepEqual(fieldsOf(res.body.results, 'is_error'), [[true], [true]])
    assert.deepEqual(fieldsOf((await http.view(t, 'ct2')).items, 'id', 'status'), [
      ['1', 'pending'],
    ])
  })

  it('Should remind after 10 rounds without TaskCreate or TaskUpdate, TaskList not counting', async () => {
    const t = await http.afterRound('ct3', [taskCreate('a', 'A', 'a')])
    const reminders: number[] = []
    for (let i = 1; i <= 20; i++) {
      const calls = i % 2 ? [{ id: `l${i}`, name: 'TaskList', input: {} }] : [bash(`b${i}`)]
      const res = await round(t, 'ct3', calls)
      assert.equal(res.body.rounds_since_todo, i)
      if (res.body.reminder) {
        reminders.push(i)
        assert.equal(
          res.body.reminder.text,
          `<system-reminder>\n${REMINDER_BODY}\n\nHere are the existing tasks:\n\n#1. [pending] A\n</system-reminder>`
        )
      }
    }
    assert.deepEqual(reminders, [10, 20])
    const reset = await round(t, 'ct3', [
      { id: 'u', name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
    ])
    assert.equal(reset.body.rounds_since_todo, 0)
  })

  it("Should take an operator's list and keep numbering past its ids", async () => {
    const t = makeTestApp()
    const detail = await http.refusedPut(t, 'ct4', {
      dialect,
      items: [{ id: '1', content: 'A', status: 'blocked' }],
    })
    assert.equal(
      detail,
      'tasks[0].status: Invalid option: expected one of "pending"|"in_progress"|"completed"'
    )
    const put = await t.call('PUT', '/v1/sessions/ct4/todos', {
      dialect,
      items: [
        { id: '5', content: 'A', status: 'pending' },
        { id: '6', content: 'B', status: 'pending', blocked_by: ['5'] },
      ],
    })
    assert.equal(put.status, 200)
    assert.deepEqual(put.body.items[0].blocks, ['6'])
    const res = await round(t, 'ct4', [taskCreate('a', 'C', 'c')])
    assert.equal(res.body.results[0].content, 'Task #7 created successfully: C')
    assert.equal(
      res.body.notice.rendered,
      '#5 [pending] A\n#6 [pending] B [blocked by #5]\n#7 [pending] C'
    )
  })
})
