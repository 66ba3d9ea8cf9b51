/**
 * Finding 12.2, a size cap per session: metadata was outside every limit, so 30 TaskUpdates of
 * 1 MB metadata made a 30 MB session (571 MB on disk) whose rounds then blocked the event loop
 * for everyone; 150k duplicate ids in addBlocks cost 0.92 s per request. Now MAX_SESSION_BYTES
 * (default 1 MiB of items + dialect_state JSON) is checked before every write, and
 * addBlocks / addBlockedBy name at most MAX_ITEMS ids per call, once each.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, round, type TestApp } from '../helpers.js'

const tasks = (t: TestApp, sessionId: string, calls: { name: string; input: unknown }[]) =>
  round(t, sessionId, calls, { dialect: 'claude-tasks' })

/** The bytes MAX_SESSION_BYTES counts: the stored items and dialect state as JSON. */
async function storedBytes(t: TestApp, sessionId: string): Promise<number> {
  const session = await t.store.get({ tenant: 'default', sessionId })
  assert.ok(session)
  return (
    Buffer.byteLength(JSON.stringify(session.items)) +
    Buffer.byteLength(JSON.stringify(session.dialect_state))
  )
}

const create = (subject: string, extra: Record<string, unknown> = {}) => ({
  name: 'TaskCreate',
  input: { subject, description: 'd', ...extra },
})

describe('Hostile 12.2: session size', () => {
  it('Should keep 30 TaskUpdates of ~1 MB metadata from growing the session past 1 MiB', async () => {
    const t = makeTestApp()
    assert.equal((await tasks(t, 's1', [create('a')])).status, 200)
    const errors: string[] = []
    for (let i = 0; i < 30; i++) {
      const res = await tasks(t, 's1', [
        {
          name: 'TaskUpdate',
          input: { taskId: '1', metadata: { [`k${i}`]: 'x'.repeat(900_000) } },
        },
      ])
      assert.equal(res.status, 200)
      if (res.body.results[0].is_error) errors.push(res.body.results[0].content)
    }
    // the first fits (0.9 MB); each later one would add another 0.9 MB
    assert.equal(errors.length, 29)
    for (const error of errors) assert.match(error, /MAX_SESSION_BYTES/)
    const bytes = await storedBytes(t, 's1')
    assert.ok(bytes <= 1_048_576, `${bytes} bytes stored`)
    const session = await t.call('GET', '/v1/sessions/s1')
    assert.equal(session.status, 200)
    assert.deepEqual(Object.keys(session.body.items[0].metadata), ['k0'])
    assert.equal((await t.call('GET', '/v1/sessions/s1/history')).status, 200)
  })

  it('Should fail only the call that would pass the cap, leaving the state as before it', async () => {
    const t = makeTestApp({ limits: { maxSessionBytes: 2000 } })
    const res = await tasks(t, 's1', [
      create('a'),
      create('b', { description: 'x'.repeat(3000) }),
      create('c'),
    ])
    assert.deepEqual(
      res.body.results.map((r: any) => [r.is_error, /MAX_SESSION_BYTES/.test(r.content)]),
      [
        [false, false],
        [true, true],
        [false, false],
      ]
    )
    const session = await t.call('GET', '/v1/sessions/s1')
    assert.deepEqual(
      session.body.items.map((item: any) => item.content),
      ['a', 'c']
    )
    assert.ok((await storedBytes(t, 's1')) <= 2000)
  })

  it('Should count the stored JSON exactly (UTF-8 bytes), not its cheap upper bound', async () => {
    const t = makeTestApp({ limits: { maxSessionBytes: 10_000, maxContentLength: 20_000 } })
    // 4,000 × 'é' is 8,000 bytes, well over the cap by the bound (6 bytes a character)
    const fits = await tasks(t, 's1', [create('é'.repeat(4000))])
    assert.equal(fits.body.results[0].is_error, false)
    const over = await tasks(t, 's2', [create('é'.repeat(5000))])
    assert.equal(over.body.results[0].is_error, true)
    assert.match(over.body.results[0].content, /would be 10\d{3} bytes; at most 10000/)
  })

  it('Should check every call of a round on a long list, also after earlier calls passed', async () => {
    const t = makeTestApp({ limits: { maxSessionBytes: 12_000 } })
    const forty = Array.from({ length: 40 }, (_, i) => create(`task ${i + 1}`))
    assert.equal((await tasks(t, 's1', forty)).body.results.at(-1).is_error, false)
    let deep: unknown = 1
    for (let i = 0; i < 32; i++) deep = { a: deep }
    const res = await tasks(t, 's1', [
      { name: 'TaskUpdate', input: { taskId: '5', status: 'in_progress' } },
      { name: 'TaskUpdate', input: { taskId: '5', metadata: { deep } } },
      { name: 'TaskUpdate', input: { taskId: '6', description: 'x'.repeat(9_000) } },
      { name: 'TaskUpdate', input: { taskId: '7', description: 'x'.repeat(5_000) } },
      { name: 'TaskUpdate', input: { taskId: '8', description: 'x'.repeat(5_000) } },
    ])
    assert.deepEqual(
      res.body.results.map((r: any) => /MAX_\w+/.exec(r.content)?.[0] ?? r.is_error),
      [false, 'MAX_JSON_DEPTH', 'MAX_SESSION_BYTES', false, 'MAX_SESSION_BYTES']
    )
    assert.ok((await storedBytes(t, 's1')) <= 12_000)
  })

  it('Should answer a PUT past MAX_SESSION_BYTES with 422 naming it', async () => {
    const t = makeTestApp({ limits: { maxSessionBytes: 10_000 } })
    const items = Array.from({ length: 5 }, (_, i) => ({
      id: String(i + 1),
      content: 'x'.repeat(2500),
      status: 'pending',
    }))
    const res = await t.call('PUT', '/v1/sessions/s1/todos', { items, dialect: 'claude-tasks' })
    assert.equal(res.status, 422)
    assert.equal(res.body.type, 'https://agent-todos.dev/problems/limit-exceeded')
    assert.match(res.body.detail, /MAX_SESSION_BYTES/)
    assert.equal((await t.call('GET', '/v1/sessions/s1')).status, 404)
    const ok = await t.call('PUT', '/v1/sessions/s1/todos', { items: items.slice(0, 3) })
    assert.equal(ok.status, 200)
  })

  it('Should refuse 150k duplicate ids in addBlocks at once, and dedupe a list within the cap', async () => {
    const t = makeTestApp()
    await tasks(t, 's1', [create('a'), create('b'), create('c')])
    const flood = await tasks(t, 's1', [
      { name: 'TaskUpdate', input: { taskId: '1', addBlocks: Array(150_000).fill('2') } },
      { name: 'TaskUpdate', input: { taskId: '1', addBlockedBy: Array(501).fill('3') } },
    ])
    assert.equal(flood.status, 200)
    for (const result of flood.body.results) {
      assert.equal(result.is_error, true)
      assert.match(result.content, /at most 500 are allowed per call \(MAX_ITEMS\)/)
    }
    const session = await t.call('GET', '/v1/sessions/s1')
    assert.deepEqual(session.body.items[0].blocks, [])
    const deduped = await tasks(t, 's1', [
      { name: 'TaskUpdate', input: { taskId: '1', addBlocks: ['2', '2', '3', '2', '9', '3'] } },
      { name: 'TaskUpdate', input: { taskId: '3', addBlockedBy: ['2', '2'] } },
    ])
    assert.deepEqual(
      deduped.body.results.map((r: any) => r.content),
      ['Updated task #1 blocks', 'Updated task #3 blockedBy']
    )
    const after = await t.call('GET', '/v1/sessions/s1')
    assert.deepEqual(
      after.body.items.map((item: any) => [item.id, item.blocks, item.blocked_by]),
      [
        ['1', ['2', '3'], []],
        ['2', ['3'], ['1']],
        ['3', [], ['1', '2']],
      ]
    )
  })

  it('Should cap addBlocks at a configured MAX_ITEMS', async () => {
    const t = makeTestApp({ limits: { maxItems: 3 } })
    await tasks(t, 's1', [create('a'), create('b')])
    const res = await tasks(t, 's1', [
      { name: 'TaskUpdate', input: { taskId: '1', addBlocks: ['2', '3', '4', '5'] } },
      { name: 'TaskUpdate', input: { taskId: '1', addBlocks: ['2', '3', '4'] } },
    ])
    assert.deepEqual(
      res.body.results.map((r: any) => r.is_error),
      [true, false]
    )
    assert.match(res.body.results[0].content, /at most 3 are allowed per call \(MAX_ITEMS\)/)
  })
})
