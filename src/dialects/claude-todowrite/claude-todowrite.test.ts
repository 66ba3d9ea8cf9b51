/**
 * Golden tests of the claude-todowrite dialect against Claude Code
 * 2.1.332 as shipped (its prompt, its validation texts).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem, type Item } from '../../core/items.js'
import { claudeTodoWrite } from './index.js'
import { TODO_WRITE_PROMPT } from './texts.js'
import type { DialectState } from '../types.js'
import { formatTool } from '../../tools/formats.js'
import {
  claudeUnparsable,
  dialectKit,
  fieldsOf,
  todosParameters,
} from '../../../test/dialect-support.js'
import { makeTestApp, round } from '../../../test/helpers.js'

const SUCCESS =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable'

/** Claude Code sends TodoWrite's long prompt as its description, not the one-line summary. */
const DESCRIPTION = TODO_WRITE_PROMPT

const REMINDER_BODY =
  "The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, consider using the TodoWrite tool to track progress. Also consider cleaning up the todo list if has become stale and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a gentle reminder - ignore if not applicable.\n"

/** The reference's JSON Schema of TodoWrite (dialects.md §2.1), as a tool definition. */
const NATIVE_TOOL = {
  name: 'TodoWrite',
  description: DESCRIPTION,
  input_schema: todosParameters(
    {
      properties: {
        content: { type: 'string', minLength: 1 },
        status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
        activeForm: { type: 'string', minLength: 1 },
      },
      required: ['content', 'status', 'activeForm'],
    },
    { description: 'The updated todo list' },
    { additionalProperties: false }
  ),
}

const EMPTY: DialectState = { items: [], data: {} }

type Status = 'pending' | 'in_progress' | 'completed'
const todo = (content: string, status: Status = 'pending') => ({
  content,
  status,
  activeForm: `${content}ing`,
})

const kit = dialectKit(claudeTodoWrite, 'TodoWrite')
const { apply, http } = kit
const write = (state: DialectState, todos: unknown) => apply({ todos }, state)

const idsAndContent = (items: readonly Item[]) => items.map((item) => [item.id, item.content])

describe('claude-todowrite tool definition', () => {
  it('Should advertise TodoWrite with the native description and input schema', () => {
    assert.equal(claudeTodoWrite.name, 'claude-todowrite')
    assert.deepEqual(formatTool(claudeTodoWrite.tools[0], 'anthropic'), NATIVE_TOOL)
  })

  it("Should describe TodoWrite with Claude Code's prompt, rules included", () => {
    const description = claudeTodoWrite.tools[0].description
    assert.ok(
      description.startsWith(
        'Use this tool to create and manage a structured task list for your current coding session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.\n'
      )
    )
    for (const rule of [
      '   - Exactly ONE task must be in_progress at any time (not less, not more)\n',
      '   - in_progress: Currently working on (limit to ONE task at a time)\n',
      '* Uses the Edit tool to add a comment to the calculateTotal function *\n',
      '     - activeForm: "Fixing authentication bug"\n',
    ]) {
      assert.ok(description.includes(rule), rule)
    }
    assert.ok(
      description.endsWith(
        'When in doubt, use this tool. Being proactive with task management demonstrates attentiveness and ensures you complete all requirements successfully.\n'
      )
    )
    assert.equal(description.length, 9114)
  })
})

describe('claude-todowrite writes', () => {
  it('Should answer with the fixed success text and {oldTodos, newTodos}', () => {
    const first = write(EMPTY, [todo('Run tests', 'in_progress'), todo('Ship')])
    assert.deepEqual(first.result, {
      is_error: false,
      content: SUCCESS,
      structured: { oldTodos: [], newTodos: [todo('Run tests', 'in_progress'), todo('Ship')] },
    })
    assert.deepEqual(first.state.items, [
      makeItem({
        id: '1',
        content: 'Run tests',
        status: 'in_progress',
        active_form: 'Run testsing',
      }),
      makeItem({ id: '2', content: 'Ship', status: 'pending', active_form: 'Shiping' }),
    ])
    const second = write(first.state, [todo('Run tests', 'completed'), todo('Ship', 'in_progress')])
    assert.equal(second.result.content, SUCCESS)
    assert.deepEqual(second.result.structured, {
      oldTodos: [todo('Run tests', 'in_progress'), todo('Ship')],
      newTodos: [todo('Run tests', 'completed'), todo('Ship', 'in_progress')],
    })
  })

  it('Should clear the list for the model once every item is completed, the session keeping the finished list', () => {
    const before = write(EMPTY, [todo('A', 'in_progress'), todo('B')])
    const after = write(before.state, [todo('A', 'completed'), todo('B', 'completed')])
    assert.equal(after.result.content, SUCCESS)
    assert.deepEqual(after.result.structured, {
      oldTodos: [todo('A', 'in_progress'), todo('B')],
      newTodos: [todo('A', 'completed'), todo('B', 'completed')],
    })
    // the session shows done with the list it finished
    assert.deepEqual(
      after.state.items.map((item) => [item.id, item.content, item.status]),
      [
        ['1', 'A', 'completed'],
        ['2', 'B', 'completed'],
      ]
    )
    assert.deepEqual(after.dropped, [], 'clearing a finished list drops nothing unfinished')
    // Claude Code's store is empty now: the next write's oldTodos and the reminder say so
    const next = write(after.state, [todo('C')])
    assert.deepEqual(next.result.structured, { oldTodos: [], newTodos: [todo('C')] })
    assert.deepEqual(idsAndContent(next.state.items), [['3', 'C']])
    assert.deepEqual(next.dropped, [])
    assert.equal(
      claudeTodoWrite.reminderText(after.state.items),
      `<system-reminder>\n${REMINDER_BODY}\n</system-reminder>`
    )
  })

  it('Should keep the id of an item written again word for word after a clear, and only that', () => {
    const done = write(EMPTY, [todo('A', 'completed'), todo('B', 'completed')])
    const next = write(done.state, [todo('X'), todo('B', 'in_progress')])
    assert.deepEqual(next.result.structured, {
      oldTodos: [],
      newTodos: [todo('X'), todo('B', 'in_progress')],
    })
    // X is new although it sits where A was; B is B again
    assert.deepEqual(idsAndContent(next.state.items), [
      ['3', 'X'],
      ['2', 'B'],
    ])
  })

  it('Should report an unfinished item a rewrite leaves out in dropped, not a completed one', () => {
    const before = write(EMPTY, [todo('A', 'completed'), todo('B', 'in_progress'), todo('C')])
    const after = write(before.state, [todo('C', 'in_progress')])
    assert.deepEqual(idsAndContent(after.dropped), [['2', 'B']])
    assert.equal(after.dropped[0].status, 'in_progress')
    assert.deepEqual(idsAndContent(after.state.items), [['3', 'C']])
  })

  it('Should still report what an all-completed write left out unfinished', () => {
    const before = write(EMPTY, [todo('A', 'in_progress'), todo('B')])
    const after = write(before.state, [todo('A', 'completed')])
    assert.deepEqual(idsAndContent(after.state.items), [['1', 'A']])
    assert.deepEqual(idsAndContent(after.dropped), [['2', 'B']])
  })

  it('Should keep ids across a reordering rewrite and give new items fresh ids', () => {
    const first = write(EMPTY, [todo('A'), todo('B'), todo('C')])
    assert.deepEqual(idsAndContent(first.state.items), [
      ['1', 'A'],
      ['2', 'B'],
      ['3', 'C'],
    ])
    const reordered = write(first.state, [
      todo('C', 'in_progress'),
      todo('New'),
      todo('A'),
      todo('B'),
    ])
    assert.deepEqual(idsAndContent(reordered.state.items), [
      ['3', 'C'],
      ['4', 'New'],
      ['1', 'A'],
      ['2', 'B'],
    ])
    assert.deepEqual(reordered.dropped, [])
  })

  it('Should keep an id for an item reworded in place and never reuse ids after a clear', () => {
    const first = write(EMPTY, [todo('A'), todo('B')])
    const reworded = write(first.state, [todo('A'), todo('B, better')])
    assert.deepEqual(idsAndContent(reworded.state.items), [
      ['1', 'A'],
      ['2', 'B, better'],
    ])
    const cleared = write(reworded.state, [todo('A', 'completed'), todo('B, better', 'completed')])
    const fresh = write(cleared.state, [todo('Next')])
    assert.deepEqual(idsAndContent(fresh.state.items), [['3', 'Next']])
  })

  it('Should accept an empty list, storing nothing', () => {
    const before = write(EMPTY, [todo('A')])
    const after = write(before.state, [])
    assert.equal(after.result.content, SUCCESS)
    assert.deepEqual(after.state.items, [])
    assert.deepEqual(idsAndContent(after.dropped), [['1', 'A']])
  })
})

describe('claude-todowrite lenient parsing', () => {
  it('Should accept a list sent as a JSON string', () => {
    const outcome = write(EMPTY, JSON.stringify([todo('A')]))
    assert.equal(outcome.result.is_error, false)
    assert.deepEqual(idsAndContent(outcome.state.items), [['1', 'A']])
  })

  it('Should strip unknown item keys', () => {
    const outcome = write(EMPTY, [{ ...todo('A'), id: 'x', priority: 'high' }])
    assert.equal(outcome.result.is_error, false)
    assert.deepEqual(outcome.result.structured, { oldTodos: [], newTodos: [todo('A')] })
  })

  it('Should refuse active_form as the native does: stripped, so activeForm is missing', () => {
    const outcome = write(EMPTY, [{ content: 'A', status: 'pending', active_form: 'Aing' }])
    assert.equal(outcome.result.is_error, true)
    assert.equal(
      outcome.result.content,
      '<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe required parameter `todos[0].activeForm` is missing</tool_use_error>'
    )
  })
})

describe('claude-todowrite input errors, as Claude Code words them', () => {
  const errorOf = (input: unknown) => {
    const before = write(EMPTY, [todo('Keep')]).state
    const outcome = apply(input, before)
    assert.equal(outcome.result.is_error, true)
    assert.equal(outcome.result.structured, null)
    assert.equal(outcome.state, before, 'state unchanged')
    assert.deepEqual(outcome.dropped, [])
    return outcome.result.content
  }

  it('Should name a missing field with its path', () => {
    assert.equal(
      errorOf({ todos: [{ content: 'A', status: 'pending' }] }),
      '<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe required parameter `todos[0].activeForm` is missing</tool_use_error>'
    )
  })

  it('Should reject unknown top-level keys and wrong types, several issues at once', () => {
    assert.equal(
      errorOf({ todos: 'not a list', merge: true }),
      '<tool_use_error>InputValidationError: TodoWrite failed due to the following issues:\nAn unexpected parameter `merge` was provided\nThe parameter `todos` type is expected as `array` but provided as `string`</tool_use_error>'
    )
    assert.equal(
      errorOf({}),
      '<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe required parameter `todos` is missing</tool_use_error>'
    )
  })

  it("Should fall back to zod's issue list for an empty content or a bad status", () => {
    assert.equal(
      errorOf({ todos: [{ content: '', status: 'pending', activeForm: 'x' }] }),
      `<tool_use_error>InputValidationError: ${JSON.stringify(
        [
          {
            origin: 'string',
            code: 'too_small',
            minimum: 1,
            inclusive: true,
            path: ['todos', 0, 'content'],
            message: 'Content cannot be empty',
          },
        ],
        null,
        2
      )}</tool_use_error>`
    )
    const status = errorOf({ todos: [{ content: 'A', status: 'done', activeForm: 'x' }] })
    assert.match(status, /^<tool_use_error>InputValidationError: \[\n/)
    assert.ok(
      status.includes(
        'Invalid option: expected one of \\"pending\\"|\\"in_progress\\"|\\"completed\\"'
      )
    )
    assert.ok(
      errorOf({ todos: [{ content: 'A', status: 'pending', activeForm: '' }] }).includes(
        'Active form cannot be empty'
      )
    )
  })

  it('Should list every issue when missing parameters and other issues mix', () => {
    assert.equal(
      errorOf({ todos: [{ content: '', status: 'done' }], merge: true }),
      '<tool_use_error>InputValidationError: TodoWrite failed due to the following issues:\n' +
        'The required parameter `todos[0].activeForm` is missing\n' +
        'An unexpected parameter `merge` was provided\n' +
        'The parameter `todos[0].content` is invalid: Content cannot be empty\n' +
        'The parameter `todos[0].status` is invalid: Invalid option: expected one of "pending"|"in_progress"|"completed"</tool_use_error>'
    )
  })

  it('Should quote unparsable arguments escaped: control characters, backticks, angle brackets', () => {
    assert.equal(
      claudeTodoWrite.argumentsError('TodoWrite', '{"todos": [\n\t`<x>`'),
      claudeUnparsable('TodoWrite', '18 of 18', '{"todos": [\\u{A}\\u{9}\'\u2039x\u203A\'')
    )
    const long = `{"todos": "${'x'.repeat(300)}`
    const quoted = claudeTodoWrite.argumentsError('TodoWrite', long)
    assert.ok(quoted.includes(`You sent (first 200 of ${long.length} bytes): {"todos": "xxx`))
  })

  it('Should answer unparseable arguments with the native JSON error', () => {
    assert.equal(
      claudeTodoWrite.argumentsError('TodoWrite', '{"todos": ['),
      claudeUnparsable('TodoWrite', '11 of 11', '{"todos": [')
    )
  })
})

describe('claude-todowrite reminder, render and operator lists', () => {
  const items = write(EMPTY, [
    todo('Run tests'),
    todo('Fix bug', 'in_progress'),
    todo('Ship', 'completed'),
  ]).state.items

  it("Should remind with Claude Code's text and the list, inside <system-reminder>", () => {
    assert.deepEqual(claudeTodoWrite.reminder, { afterRounds: 10, repeatEvery: 10 })
    assert.equal(claudeTodoWrite.resetsReminder, undefined)
    assert.equal(
      claudeTodoWrite.reminderText(items),
      `<system-reminder>\n${REMINDER_BODY}\n\nHere are the existing contents of your todo list:\n\n[1. [pending] Run tests\n2. [in_progress] Fix bug\n3. [completed] Ship]\n</system-reminder>`
    )
    assert.equal(
      claudeTodoWrite.reminderText([]),
      `<system-reminder>\n${REMINDER_BODY}\n</system-reminder>`
    )
  })

  it('Should render the list in the numbered reminder form', () => {
    assert.equal(
      claudeTodoWrite.render(items),
      '1. [pending] Run tests\n2. [in_progress] Fix bug\n3. [completed] Ship'
    )
    assert.equal(claudeTodoWrite.render([]), 'The todo list is empty.')
  })

  it("Should accept an operator's list by TodoWrite's rules, defaulting the active form", () => {
    const checked = claudeTodoWrite.checkList([
      makeItem({ id: 'a', content: 'Do it', status: 'pending' }),
    ])
    assert.deepEqual(checked, {
      ok: true,
      items: [makeItem({ id: 'a', content: 'Do it', status: 'pending', active_form: 'Do it' })],
    })
  })

  it("Should refuse a list that breaks TodoWrite's rules", () => {
    kit.assertListRefused(
      [makeItem({ id: 'a', content: '', status: 'pending' })],
      'todos[0].content: Content cannot be empty'
    )
    kit.assertListRefused(
      [
        makeItem({ id: 'a', content: 'A', status: 'pending' }),
        makeItem({ id: 'b', content: 'B', status: 'cancelled' }),
      ],
      'todos[1].status: Invalid option: expected one of "pending"|"in_progress"|"completed"'
    )
    kit.assertListRefused(
      [
        makeItem({ id: 'a', content: 'A', status: 'pending' }),
        makeItem({ id: 'a', content: 'B', status: 'pending' }),
      ],
      "Duplicate todo id 'a'"
    )
  })
})

describe('claude-todowrite over HTTP', () => {
  const dialect = 'claude-todowrite'
  /** A round's TodoWrite call of these todos. */
  const todoWrite = (id: string, ...todos: object[]) => ({
    id,
    name: 'TodoWrite',
    input: { todos },
  })

  it('Should list TodoWrite in the anthropic format', async () => {
    assert.deepEqual(await http.tools('anthropic'), {
      dialect,
      format: 'anthropic',
      tools: [NATIVE_TOOL],
    })
  })

  it('Should answer TodoWrite in a round mixed with other tools, and render the session', async () => {
    const { t, res } = await http.firstRound('cc1', [
      { id: 'toolu_01', name: 'Read', input: { file_path: '/a' } },
      todoWrite('toolu_02', todo('A', 'in_progress'), todo('B')),
      { id: 'toolu_03', name: 'Bash', input: { command: 'ls' } },
    ])
    assert.equal(res.body.dialect, dialect)
    assert.deepEqual(res.body.results, [
      {
        tool_use_id: 'toolu_02',
        name: 'TodoWrite',
        is_error: false,
        content: SUCCESS,
        structured: { oldTodos: [], newTodos: [todo('A', 'in_progress'), todo('B')] },
      },
    ])
    assert.equal(res.body.used_todo, true)
    assert.deepEqual(res.body.dropped, [])
    const view = await http.view(t, 'cc1')
    assert.equal(view.rendered, '1. [in_progress] A\n2. [pending] B')
    assert.equal(view.current.id, '1')
    const text = await t.call('GET', '/v1/sessions/cc1/render')
    assert.equal(text.text, '1. [in_progress] A\n2. [pending] B')
  })

  it('Should report dropped items and keep ids over HTTP', async () => {
    const { t, res } = await http.secondRound(
      'cc2',
      [todoWrite('a', todo('A'), todo('B'), todo('C'))],
      [todoWrite('b', todo('C', 'in_progress'), todo('A'))]
    )
    assert.deepEqual(fieldsOf(res.body.dropped, 'id', 'content', 'status'), [['2', 'B', 'pending']])
    assert.deepEqual(idsAndContent((await http.view(t, 'cc2')).items), [
      ['3', 'C'],
      ['1', 'A'],
    ])
  })

  it('Should show a session whose last write completed everything as done, with that list', async () => {
    const { t } = await http.secondRound(
      'cc-done',
      [todoWrite('a', todo('A'), todo('B'))],
      [todoWrite('b', todo('A', 'completed'), todo('B', 'completed'))]
    )
    const view = await http.view(t, 'cc-done')
    assert.equal(view.state, 'done')
    assert.deepEqual(idsAndContent(view.items), [
      ['1', 'A'],
      ['2', 'B'],
    ])
    assert.equal(view.progress.completed, 2)
    assert.equal(view.progress.total, 2)
    const done = await t.call('GET', '/v1/sessions?state=done')
    assert.deepEqual(fieldsOf(done.body.sessions, 'session_id', 'state'), [['cc-done', 'done']])
    const active = await t.call('GET', '/v1/sessions?state=active')
    assert.deepEqual(active.body.sessions, [])
    // the model's next write starts from Claude Code's cleared store
    const next = await round(t, 'cc-done', [todoWrite('c', todo('C', 'in_progress'))])
    assert.deepEqual(next.body.results[0].structured, {
      oldTodos: [],
      newTodos: [todo('C', 'in_progress')],
    })
    assert.equal((await http.view(t, 'cc-done')).state, 'active')
  })

  it('Should answer a bad call with is_error and leave the list unchanged', async () => {
    const { t, res } = await http.secondRound(
      'cc3',
      [todoWrite('a', todo('A'))],
      [
        todoWrite('b', { content: 'A', status: 'pending' }),
        { id: 'c', name: 'TodoWrite', arguments: '{"todos": [' },
      ]
    )
    assert.equal(res.status, 200)
    assert.deepEqual(fieldsOf(res.body.results, 'is_error'), [[true], [true]])
    assert.ok(
      res.body.results[0].content.startsWith('<tool_use_error>InputValidationError: TodoWrite')
    )
    assert.ok(res.body.results[1].content.includes('could not be parsed as JSON'))
    const view = await http.view(t, 'cc3')
    assert.deepEqual(idsAndContent(view.items), [['1', 'A']])
    assert.equal(view.items[0].active_form, 'Aing')
  })

  it('Should remind after 10 rounds without TodoWrite, then every 10 rounds', async () => {
    const t = await http.afterRound('cc4', [todoWrite('a', todo('A', 'in_progress'))])
    const reminders: number[] = []
    for (let i = 1; i <= 21; i++) {
      const res = await round(t, 'cc4', [{ id: `b${i}`, name: 'Bash' }])
      if (res.body.reminder) {
        reminders.push(i)
        assert.equal(
          res.body.reminder.text,
          `<system-reminder>\n${REMINDER_BODY}\n\nHere are the existing contents of your todo list:\n\n[1. [in_progress] A]\n</system-reminder>`
        )
      }
    }
    assert.deepEqual(reminders, [10, 20])
    const reset = await round(t, 'cc4', [todoWrite('c', todo('A'))])
    assert.equal(reset.body.rounds_since_todo, 0)
    assert.equal(reset.body.reminder, null)
  })

  it("Should refuse an operator's list that breaks TodoWrite's rules with 422", async () => {
    const t = makeTestApp()
    const detail = await http.refusedPut(t, 'cc5', {
      dialect,
      items: [{ id: '1', content: 'A', status: 'blocked' }],
    })
    assert.equal(
      detail,
      'todos[0].status: Invalid option: expected one of "pending"|"in_progress"|"completed"'
    )
    const ok = await t.call('PUT', '/v1/sessions/cc5/todos', {
      dialect,
      items: [{ id: '7', content: 'A', status: 'pending' }],
    })
    assert.equal(ok.status, 200)
    assert.equal(ok.body.items[0].active_form, 'A')
    const next = await round(t, 'cc5', [todoWrite('a', todo('A'), todo('B'))])
    assert.deepEqual(idsAndContent(next.body.dropped), [])
    assert.deepEqual(idsAndContent((await http.view(t, 'cc5')).items), [
      ['7', 'A'],
      ['1', 'B'],
    ])
  })
})
