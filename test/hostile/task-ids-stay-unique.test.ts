/**
 * Finding 12.8, claude-tasks ids are unique: a PUT with the item id "9007199254740992" followed
 * by two TaskCreates gave three tasks all numbered #9007199254740992 (one update changed all
 * three), because `highest + 1` rounds past Number.MAX_SAFE_INTEGER. Now ids beyond it are
 * refused on PUT, and TaskCreate never issues an id it cannot tell apart.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newSession } from '../../src/core/session.js'
import { makeItem } from '../../src/core/items.js'
import { makeTestApp, round, type TestApp } from '../helpers.js'

const put = (t: TestApp, ids: string[]) =>
  t.call('PUT', '/v1/sessions/s1/todos', {
    dialect: 'claude-tasks',
    items: ids.map((id) => ({ id, content: `task ${id}`, status: 'pending' })),
  })

const createTwo = (t: TestApp) =>
  round(
    t,
    's1',
    [
      { name: 'TaskCreate', input: { subject: 'x', description: 'd' } },
      { name: 'TaskCreate', input: { subject: 'y', description: 'd' } },
    ],
    { dialect: 'claude-tasks' }
  )

async function ids(t: TestApp): Promise<string[]> {
  const session = await t.call('GET', '/v1/sessions/s1')
  return session.body.items.map((item: any) => item.id)
}

describe('Hostile 12.8: claude-tasks ids', () => {
  it('Should refuse a PUT of an id beyond Number.MAX_SAFE_INTEGER with 422', async () => {
    const t = makeTestApp()
    for (const id of ['9007199254740992', '9007199254740993abc', '1' + '0'.repeat(30)]) {
      const res = await put(t, ['1', id])
      assert.equal(res.status, 422, id)
      assert.equal(res.body.type, 'https://agent-todos.dev/problems/dialect-rule')
      assert.match(res.body.detail, /9007199254740991/)
    }
    assert.equal((await t.call('GET', '/v1/sessions/s1')).status, 404)
  })

  it('Should issue ids up to the largest exact integer once each, then refuse TaskCreate', async () => {
    const t = makeTestApp()
    assert.equal((await put(t, ['9007199254740990'])).status, 200)
    const res = await createTwo(t)
    assert.deepEqual(
      res.body.results.map((r: any) => [r.is_error, r.structured?.task?.id ?? null]),
      [
        [false, '9007199254740991'],
        [true, null],
      ]
    )
    assert.match(res.body.results[1].content, /no task id left/)
    const list = await ids(t)
    assert.deepEqual(list, ['9007199254740990', '9007199254740991'])
    assert.equal(new Set(list).size, list.length)
  })

  it('Should never issue a duplicate id on a list stored before the check', async () => {
    const t = makeTestApp()
    const key = { tenant: 'default', sessionId: 's1' }
    const session = {
      ...newSession(key, 'claude-tasks', {}, t.clock.now),
      version: 1,
      items: [makeItem({ id: '9007199254740992', content: 'old', status: 'pending' })],
    }
    await t.store.update(key, () => ({ value: null, write: { session, source: 'put' } }))
    const res = await createTwo(t)
    assert.deepEqual(
      res.body.results.map((r: any) => r.is_error),
      [true, true]
    )
    assert.deepEqual(await ids(t), ['9007199254740992'])
  })
})
