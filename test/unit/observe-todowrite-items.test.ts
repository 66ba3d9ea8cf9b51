import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { STATUSES } from '../../src/core/items.js'
import { todoWriteItems } from '../../src/dialects/claude-todowrite/observe.js'
import { canonicalStatus } from '../../src/dialects/observe/types.js'

describe('observe: TodoWrite items and statuses', () => {
  it('Should read each status as agents spell it', () => {
    for (const status of STATUSES) assert.equal(canonicalStatus(status), status)
    const spelled: [unknown, string | undefined][] = [
      ['inProgress', 'in_progress'],
      ['in-progress', 'in_progress'],
      ['In Progress', 'in_progress'],
      ['IN_PROGRESS', 'in_progress'],
      ['todo', 'pending'],
      ['not_started', 'pending'],
      ['notStarted', 'pending'],
      ['done', 'completed'],
      ['Completed', 'completed'],
      ['canceled', 'cancelled'],
      ['pending ', undefined],
      ['finished', undefined],
      ['', undefined],
      [1, undefined],
      [null, undefined],
    ]
    for (const [value, expected] of spelled)
      assert.equal(canonicalStatus(value), expected, String(value))
  })

  it('Should take activeForm, else active_form, only as a string, and leave the entries as they were', () => {
    const entries = [
      { content: 'A', status: 'in_progress', activeForm: 'Doing A' },
      { content: 'B', status: 'inProgress', active_form: 'Doing B' },
      { content: 'C', status: 'done', activeForm: 'Doing C', active_form: 'not this' },
      { content: 'D', status: 'weird', activeForm: 7, active_form: 'not this either' },
      { content: 'E' },
    ]
    const before = JSON.stringify(entries)
    assert.deepEqual(todoWriteItems(entries), [
      { content: 'A', status: 'in_progress', active_form: 'Doing A' },
      { content: 'B', status: 'in_progress', active_form: 'Doing B' },
      { content: 'C', status: 'completed', active_form: 'Doing C' },
      { content: 'D', status: 'pending' },
      { content: 'E', status: 'pending' },
    ])
    assert.equal(JSON.stringify(entries), before)
    assert.deepEqual(todoWriteItems(JSON.stringify(entries.slice(0, 1))), [
      { content: 'A', status: 'in_progress', active_form: 'Doing A' },
    ])
    assert.equal(todoWriteItems([{ status: 'pending' }]), undefined)
    assert.equal(todoWriteItems({ content: 'A' }), undefined)
  })
})
