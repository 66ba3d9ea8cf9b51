import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { advanceReminder } from '../../core/reminder.js'
import { parseS03Items, renderS03, s03 } from './index.js'
import { formatTool } from '../../tools/formats.js'
import { makeTestApp, round } from '../../../test/helpers.js'

const REFERENCE_TOOL = {
  name: 'todo',
  description: 'Update task list. Track progress on multi-step tasks.',
  input_schema: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            text: { type: 'string' },
            status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
          },
          required: ['id', 'text', 'status'],
        },
      },
    },
    required: ['items'],
  },
}

const apply = (items: unknown) =>
  s03.apply({ items: [], data: {} }, 'todo', { items }, { callsInRound: 1, indexInRound: 0 })

const errorOf = (items: unknown) => {
  const outcome = apply(items)
  assert.equal(outcome.result.is_error, true)
  return outcome.result.content
}

describe('s03 tool definition', () => {
  it('Should equal the reference tool exactly, byte for byte', () => {
    assert.equal(
      JSON.stringify(formatTool(s03.tools[0], 'anthropic')),
      JSON.stringify(REFERENCE_TOOL)
    )
  })
})

describe('s03 validation, in the reference order', () => {
  it('Should reject more than 20 items before anything else', () => {
    const items = Array.from({ length: 21 }, () => ({ status: 'bogus' }))
    assert.equal(errorOf(items), 'Error: Max 20 todos allowed')
    assert.equal(
      apply(Array.from({ length: 20 }, (_, i) => ({ text: `t${i}` }))).result.is_error,
      false
    )
  })

  it('Should require text, naming the item id', () => {
    assert.equal(
      errorOf([{ id: 'a', text: '   ', status: 'pending' }]),
      'Error: Item a: text required'
    )
    assert.equal(errorOf([{ text: 'ok' }, { status: 'pending' }]), 'Error: Item 2: text required')
  })

  it('Should reject an unknown status, lower-cased, quoting it', () => {
    assert.equal(
      errorOf([{ id: '1', text: 'x', status: 'Done' }]),
      "Error: Item 1: invalid status 'done'"
    )
    assert.equal(errorOf([{ id: '1', text: 'x', status: '' }]), "Error: Item 1: invalid status ''")
  })

  it('Should check text before status within an item', () => {
    assert.equal(errorOf([{ id: '7', text: '', status: 'nope' }]), 'Error: Item 7: text required')
  })

  it('Should allow only one item in progress, after the per-item checks', () => {
    const two = [
      { id: '1', text: 'a', status: 'in_progress' },
      { id: '2', text: 'b', status: 'in_progress' },
    ]
    assert.equal(errorOf(two), 'Error: Only one task can be in_progress at a time')
    assert.equal(
      errorOf([...two, { id: '3', text: '', status: 'pending' }]),
      'Error: Item 3: text required'
    )
  })

  it('Should default id to the 1-based position, status to pending, and trim text', () => {
    const outcome = apply([{ text: '  Write tests  ' }, { text: 'Ship', status: 'IN_PROGRESS' }])
    assert.equal(outcome.result.is_error, false)
    assert.deepEqual(
      outcome.state.items.map((i) => [i.id, i.content, i.status]),
      [
        ['1', 'Write tests', 'pending'],
        ['2', 'Ship', 'in_progress'],
      ]
    )
  })

  it('Should not check ids for uniqueness', () => {
    const outcome = apply([
      { id: '1', text: 'a' },
      { id: '1', text: 'b' },
    ])
    assert.equal(outcome.result.content, '[ ] #1: a\n[ ] #1: b\n\n(0/2 completed)')
  })

  it('Should answer the inputs the lesson never meets in the same voice', () => {
    assert.equal(
      s03.apply({ items: [], data: {} }, 'todo', {}, { callsInRound: 1, indexInRound: 0 }).result
        .content,
      'Error: items must be a list'
    )
    assert.equal(errorOf('not json'), 'Error: items must be a list')
    assert.equal(errorOf({ a: 1 }), 'Error: items must be a list')
    assert.equal(errorOf([{ text: 'a' }, 'b']), 'Error: Item 2: must be an object')
    assert.equal(errorOf([null]), 'Error: Item 1: must be an object')
    assert.equal(errorOf([[1]]), 'Error: Item 1: must be an object')
    assert.equal(errorOf([{ id: 'x', text: true }]), 'Error: Item x: text required')
    assert.equal(errorOf([{ id: 'x', text: ['a'] }]), 'Error: Item x: text required')
    assert.equal(
      errorOf([{ id: 'x', text: 'a', status: true }]),
      "Error: Item x: invalid status 'true'"
    )
    assert.equal(
      errorOf([{ id: 'x', text: 'a', status: { s: 1 } }]),
      `Error: Item x: invalid status '{"s":1}'`
    )
    assert.equal(errorOf([{ id: 'x', text: 'a', status: 3 }]), "Error: Item x: invalid status '3'")
    assert.equal(errorOf([{ id: { a: 1 }, text: '' }]), 'Error: Item 1: text required')
  })

  it('Should read numbers as their decimal strings and null as missing', () => {
    const outcome = apply([
      { id: 5, text: 42, status: null },
      { id: null, text: 'b' },
    ])
    assert.deepEqual(
      outcome.state.items.map((i) => [i.id, i.content, i.status]),
      [
        ['5', '42', 'pending'],
        ['2', 'b', 'pending'],
      ]
    )
  })

  it('Should accept the list sent as a JSON string', () => {
    const outcome = apply(JSON.stringify([{ id: '1', text: 'a', status: 'completed' }]))
    assert.equal(outcome.result.content, '[x] #1: a\n\n(1/1 completed)')
  })

  it('Should leave the list unchanged when a call fails', () => {
    const state = apply([{ id: '1', text: 'keep' }]).state
    const failed = s03.apply(
      state,
      'todo',
      { items: [{ text: '' }] },
      { callsInRound: 1, indexInRound: 0 }
    )
    assert.equal(failed.state, state)
    assert.deepEqual(failed.dropped, [])
  })
})

describe('s03 render', () => {
  it('Should render markers, ids, a blank line and the count, with no trailing newline', () => {
    const { items } = apply([
      { id: '1', text: 'Create the script file', status: 'completed' },
      { id: '2', text: 'Write the first function', status: 'in_progress' },
      { id: '3', text: 'Write the second function', status: 'pending' },
    ]).state
    assert.equal(
      renderS03(items),
      '[x] #1: Create the script file\n[>] #2: Write the first function\n[ ] #3: Write the second function\n\n(1/3 completed)'
    )
  })

  it('Should render an empty list as No todos.', () => {
    assert.equal(renderS03([]), 'No todos.')
    assert.equal(apply([]).result.content, 'No todos.')
  })

  it('Should expose the parser for direct use', () => {
    assert.deepEqual(parseS03Items([{ text: '' }]), { ok: false, message: 'Item 1: text required' })
  })
})

describe('s03 nag reminder', () => {
  it('Should follow the reference counter over 6 rounds', () => {
    let counters = { rounds_since_todo: 0, rounds_since_reminder: null as number | null }
    const used = [true, false, false, false, false, true]
    const seen = used.map((u) => {
      const next = advanceReminder(s03.reminder, {}, counters, u)
      counters = next.counters
      return [next.counters.rounds_since_todo, next.due]
    })
    assert.deepEqual(seen, [
      [0, false],
      [1, false],
      [2, false],
      [3, true],
      [4, true],
      [0, false],
    ])
  })

  it('Should send the reminder text over the rounds API, every round until todo is called', async () => {
    const t = makeTestApp()
    const todo = { id: 'a', name: 'todo', input: { items: [{ id: '1', text: 'x' }] } }
    const bash = { id: 'b', name: 'bash' }
    const replies = []
    for (const calls of [
      [todo],
      [bash],
      [bash],
      [bash],
      [bash],
      [{ ...todo, input: { items: 'oops' } }],
      [bash],
    ]) {
      replies.push((await round(t, 'nag', calls)).body)
    }
    assert.deepEqual(
      replies.map((r) => [r.rounds_since_todo, r.reminder?.text ?? null]),
      [
        [0, null],
        [1, null],
        [2, null],
        [3, '<reminder>Update your todos.</reminder>'],
        [4, '<reminder>Update your todos.</reminder>'],
        [0, null],
        [1, null],
      ]
    )
    assert.equal(replies[5].results[0].is_error, true, 'a failed call still resets the counter')
  })

  it('Should honour per-session settings', async () => {
    const t = makeTestApp()
    const bash = { name: 'bash' }
    await round(t, 'quiet', [bash], { settings: { reminder: false } })
    for (let i = 0; i < 5; i++) assert.equal((await round(t, 'quiet', [bash])).body.reminder, null)
    await round(t, 'eager', [bash], { settings: { reminder_after_rounds: 1 } })
    assert.equal((await t.call('GET', '/v1/sessions/eager')).body.reminder_due, true)
    assert.notEqual((await round(t, 'eager', [bash])).body.reminder, null)
  })
})
