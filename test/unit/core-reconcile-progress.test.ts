/**
 * core/identity's reconcileIds and core/progress's counters, called directly: the edge cases
 * the dialect tests only reach through whole rounds.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { reconcileIds, type Incoming } from '../../src/core/reconcile-ids.js'
import { makeItem, STATUSES, type Item, type Status } from '../../src/core/items.js'
import { computeProgress, currentItem } from '../../src/core/progress.js'

const stored = (...pairs: [string, string][]): Item[] =>
  pairs.map(([id, content]) => makeItem({ id, content, status: 'pending' }))

describe('reconcileIds', () => {
  const cases: {
    name: string
    before: Item[]
    incoming: Incoming[]
    nextId: number
    ids: string[]
    next: number
  }[] = [
    {
      name: 'fresh ids from the counter on an empty list',
      before: [],
      incoming: [{ content: 'a' }, { content: 'b' }],
      nextId: 1,
      ids: ['1', '2'],
      next: 3,
    },
    {
      name: 'ids from 1 when the counter is below 1',
      before: [],
      incoming: [{ content: 'a' }],
      nextId: 0,
      ids: ['1'],
      next: 2,
    },
    {
      name: 'no ids, and the counter unchanged, for an empty list',
      before: stored(['1', 'a']),
      incoming: [],
      nextId: 7,
      ids: [],
      next: 7,
    },
    {
      name: 'stored ids back to their items, whatever the order and content',
      before: stored(['1', 'a'], ['2', 'b']),
      incoming: [
        { id: '2', content: 'B' },
        { id: '1', content: 'A' },
      ],
      nextId: 3,
      ids: ['2', '1'],
      next: 3,
    },
    {
      name: 'items without ids the id of the same content before the one at their position',
      before: stored(['1', 'a'], ['2', 'b']),
      incoming: [{ content: 'b' }, { content: 'a' }],
      nextId: 3,
      ids: ['2', '1'],
      next: 3,
    },
    {
      name: 'a rewritten text the id at its position',
      before: stored(['1', 'a'], ['2', 'b']),
      incoming: [{ content: 'A' }, { content: 'B' }],
      nextId: 3,
      ids: ['1', '2'],
      next: 3,
    },
    {
      name: 'a fresh id to a position whose stored item matched elsewhere',
      before: stored(['1', 'a'], ['2', 'b']),
      incoming: [{ content: 'z' }, { content: 'a' }],
      nextId: 3,
      ids: ['3', '1'],
      next: 4,
    },
    {
      name: 'repeated contents the stored items in order, then fresh ids',
      before: stored(['1', 'x'], ['2', 'x']),
      incoming: [{ content: 'x' }, { content: 'x' }, { content: 'x' }],
      nextId: 3,
      ids: ['1', '2', '3'],
      next: 4,
    },
    {
      name: 'an id sent twice to the first; the second matches by content',
      before: stored(['1', 'a'], ['2', 'b']),
      incoming: [
        { id: '1', content: 'a' },
        { id: '1', content: 'b' },
      ],
      nextId: 3,
      ids: ['1', '2'],
      next: 3,
    },
    {
      name: 'an explicit id precedence over an earlier content match',
      before: stored(['1', 'a'], ['2', 'b']),
      incoming: [{ content: 'b' }, { id: '2', content: 'c' }],
      nextId: 3,
      ids: ['1', '2'],
      next: 3,
    },
    {
      name: 'fresh ids that skip the stored ones',
      before: stored(['3', 'c'], ['4', 'd']),
      incoming: [{ content: 'c' }, { content: 'd' }, { content: 'new' }],
      nextId: 3,
      ids: ['3', '4', '5'],
      next: 6,
    },
    {
      name: 'a new id of the caller to its item, and never hand it out again',
      before: [],
      incoming: [{ content: 'a' }, { id: '1', content: 'b' }],
      nextId: 1,
      ids: ['2', '1'],
      next: 3,
    },
    {
      name: 'a new id the caller sends twice to the first only',
      before: [],
      incoming: [
        { id: 'x', content: 'a' },
        { id: 'x', content: 'b' },
      ],
      nextId: 1,
      ids: ['x', '1'],
      next: 2,
    },
    {
      name: 'the stored id at the same position precedence over a new id of the caller',
      before: stored(['1', 'a']),
      incoming: [{ id: 'mine', content: 'A' }],
      nextId: 2,
      ids: ['1'],
      next: 2,
    },
  ]

  for (const c of cases) {
    it(`Should give ${c.name}`, () => {
      assert.deepEqual(reconcileIds(c.before, c.incoming, c.nextId), {
        ids: c.ids,
        nextId: c.next,
      })
    })
  }

  it('Should hand out unique ids, each stored one at most once, and never reuse a counter value', () => {
    const content = fc.constantFrom('a', 'b', 'c', 'd')
    const id = fc.constantFrom('1', '2', '3', '4', '5', '9', 'x')
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id, content }), { selector: (item) => item.id, maxLength: 5 }),
        fc.array(fc.record({ id: fc.option(id, { nil: undefined }), content }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 12 }),
        (before, incoming, nextId) => {
          const items = before.map((item) => makeItem({ ...item, status: 'pending' }))
          const result = reconcileIds(items, incoming, nextId)
          assert.equal(result.ids.length, incoming.length)
          assert.equal(new Set(result.ids).size, result.ids.length, 'ids are unique')
          const known = new Set<string>([
            ...before.map((item) => item.id),
            ...incoming.flatMap((item) => (item.id === undefined ? [] : [item.id])),
          ])
          for (const given of result.ids) {
            if (known.has(given)) continue
            // a fresh id: from the counter, below the counter it returns
            assert.ok(Number(given) >= Math.max(nextId, 1) && Number(given) < result.nextId)
          }
          assert.ok(result.nextId >= Math.max(nextId, 1))
        }
      ),
      { seed: 20261130, numRuns: 500 }
    )
  })

  it('Should keep every id, in order, when a rewrite holds the same contents in the same order (repeated contents too)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 8 }),
        fc.integer({ min: 0, max: 20 }),
        fc.boolean(),
        (contents, nextId, byPosition) => {
          const before = contents.map((content, i) =>
            makeItem({ id: String(i + 10), content, status: 'pending' })
          )
          const result = reconcileIds(
            before,
            contents.map((content) => ({ content })),
            nextId,
            { byPosition }
          )
          assert.deepEqual(result, {
            ids: before.map((item) => item.id),
            nextId: Math.max(nextId, 1),
          })
        }
      ),
      { seed: 20261201, numRuns: 300 }
    )
    // one item more, or an id of its own, is no longer the same rewrite: the general rules apply
    const before = stored(['1', 'a'], ['2', 'a'])
    assert.deepEqual(
      reconcileIds(before, [{ content: 'a' }, { content: 'a' }, { content: 'a' }], 3),
      {
        ids: ['1', '2', '3'],
        nextId: 4,
      }
    )
    assert.deepEqual(reconcileIds(before, [{ id: '2', content: 'a' }, { content: 'a' }], 3), {
      ids: ['2', '1'],
      nextId: 3,
    })
  })
})

describe('computeProgress and currentItem', () => {
  const list = (...statuses: Status[]) =>
    statuses.map((status, i) => makeItem({ id: String(i + 1), content: `t${i}`, status }))

  const cases: { statuses: Status[]; percent: number }[] = [
    { statuses: [], percent: 0 },
    { statuses: ['pending'], percent: 0 },
    { statuses: ['completed'], percent: 100 },
    { statuses: ['cancelled', 'cancelled'], percent: 0 },
    { statuses: ['completed', 'cancelled'], percent: 100 },
    { statuses: ['completed', 'pending', 'pending'], percent: 33 },
    // floor, not round
    { statuses: ['completed', 'completed', 'pending'], percent: 66 },
    { statuses: ['completed', 'blocked'], percent: 50 },
    { statuses: ['completed', 'in_progress', 'cancelled', 'blocked', 'pending'], percent: 25 },
    { statuses: [...Array(199).fill('completed'), 'pending'], percent: 99 },
  ]

  for (const { statuses, percent } of cases) {
    it(`Should count [${statuses.length > 5 ? `${statuses.length} items` : statuses.join(', ')}] at ${percent}%`, () => {
      const progress = computeProgress(list(...statuses))
      const count = (status: Status) => statuses.filter((s) => s === status).length
      assert.deepEqual(progress, {
        total: statuses.length,
        completed: count('completed'),
        in_progress: count('in_progress'),
        pending: count('pending'),
        cancelled: count('cancelled'),
        blocked: count('blocked'),
        percent,
      })
    })
  }

  it('Should count every status the items can have', () => {
    const progress = computeProgress(list(...STATUSES))
    for (const status of STATUSES) assert.equal(progress[status], 1, status)
  })

  it('Should name the first item in progress as current, or none', () => {
    const items = list('completed', 'in_progress', 'in_progress')
    assert.equal(currentItem(items), items[1])
    assert.equal(currentItem(list('pending', 'blocked', 'completed')), null)
    assert.equal(currentItem([]), null)
  })
})
