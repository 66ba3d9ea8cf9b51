/**
 * One ingest request must cost what it is charged. A 1 MiB NDJSON body (an Agent SDK stream of
 * thousands of TodoWrite results) was cut into one store update per result: about 2,000 versions
 * for one unit of RATE_LIMIT_PER_MINUTE, the whole again each time it was posted, going on after
 * the client had gone. A delivery is now applied in at most MAX_DELIVERY_UPDATES updates (a
 * version per list up to that, results that change nothing ride along), touches at most
 * MAX_DELIVERY_SESSIONS sessions, stops when its client goes away, and spends a write of the
 * tenant's budget per store update.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_DELIVERY_SESSIONS, MAX_DELIVERY_UPDATES } from '../../src/ingest/delivery.js'
import { createMemoryStore } from '../../src/store/memory.js'
import type { SessionStore } from '../../src/store/types.js'
import { makeTestApp } from '../helpers.js'
import { ingest, view } from '../ingest-support.js'

const SID = 'a1b2c3d4-e5f6-4711-8899-aabbccddeeff'

/** A memory store that counts its updates, and runs `onUpdate` before each. */
function countingStore(onUpdate: (n: number) => void = () => {}) {
  const clock = { now: Date.parse('2026-11-30T12:00:00Z') }
  const inner = createMemoryStore({ ttlMs: 86_400_000, historyLimit: 50, now: () => clock.now })
  const counts = { updates: 0 }
  const store: SessionStore = Object.assign(Object.create(inner) as SessionStore, {
    update: (...args: Parameters<SessionStore['update']>) => {
      onUpdate(++counts.updates)
      return inner.update(...args)
    },
  })
  return { store, counts }
}

/** One TodoWrite call and its result, as `claude -p --output-format stream-json` writes them. */
function todoWrite(callId: string, content: string, agent?: string): string[] {
  const todos = [{ content, status: 'in_progress', activeForm: `Doing ${content}` }]
  const frame = { session_id: SID, parent_tool_use_id: agent ?? null }
  return [
    JSON.stringify({
      type: 'assistant',
      ...frame,
      message: { content: [{ type: 'tool_use', id: callId, name: 'TodoWrite', input: { todos } }] },
    }),
    JSON.stringify({
      type: 'user',
      ...frame,
      message: { content: [{ type: 'tool_result', tool_use_id: callId, content: 'ok' }] },
      tool_use_result: { oldTodos: [], newTodos: todos },
    }),
  ]
}

/** A stream of at most `bytes` whose every TodoWrite result is a new list (`same`: one list). */
function bigStream(bytes: number, same = false): { body: string; lists: number } {
  const lines = [
    JSON.stringify({ type: 'system', subtype: 'init', session_id: SID, uuid: 'init-1' }),
  ]
  const end = JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: false,
    session_id: SID,
    uuid: 'result-1',
  })
  let size = lines[0].length + end.length + 2
  let lists = 0
  for (;;) {
    const pair = todoWrite(
      `toolu_01Big${String(lists).padStart(13, '0')}`,
      same ? 'One' : `S${lists}`
    )
    size += pair[0].length + pair[1].length + 2
    if (size > bytes) break
    lines.push(...pair)
    lists++
  }
  lines.push(end)
  return { body: lines.join('\n') + '\n', lists }
}

describe('hostile: an ingest request costs what it is charged', () => {
  it(`Should store a 1 MiB stream of thousands of lists in at most ${MAX_DELIVERY_UPDATES} updates, and the same body again in one`, async () => {
    const { store, counts } = countingStore()
    const t = makeTestApp({ store })
    const { body, lists } = bigStream(1024 * 1024 - 1024)
    assert.ok(lists > 1500, `${lists} lists`)
    const first = await ingest(t, 'claude-agent-sdk', body)
    assert.equal(first.status, 200, first.text)
    assert.ok(counts.updates <= MAX_DELIVERY_UPDATES, `${counts.updates} updates`)
    assert.ok(first.body.version <= MAX_DELIVERY_UPDATES, `version ${first.body.version}`)
    const session = await view(t, `claude:${SID}`)
    assert.deepEqual(
      session.items.map((item: { content: string }) => item.content),
      [`S${lists - 1}`]
    )
    assert.equal(session.ended.outcome, 'completed')
    for (let i = 0; i < 3; i++) {
      counts.updates = 0
      const again = await ingest(t, 'claude-agent-sdk', body)
      assert.deepEqual([again.body.version, again.body.applied], [first.body.version, 0])
      assert.equal(counts.updates, 1)
    }
  })

  it('Should apply thousands of results that change no list in two updates and one version', async () => {
    const { store, counts } = countingStore()
    const t = makeTestApp({ store })
    const { body, lists } = bigStream(512 * 1024, true)
    assert.ok(lists > 500, `${lists} lists`)
    const res = await ingest(t, 'claude-agent-sdk', body)
    assert.equal(res.status, 200, res.text)
    // the first list creates the session; everything after changes nothing but the end
    assert.ok(counts.updates <= 2, `${counts.updates} updates`)
    assert.equal(res.body.version, 2)
  })

  it(`Should refuse a body that touches more than ${MAX_DELIVERY_SESSIONS} sessions with a 400 problem, storing nothing`, async () => {
    const { store, counts } = countingStore()
    const t = makeTestApp({ store })
    const lines: string[] = []
    // the main session lists its subagents: it is the 17th
    for (let i = 0; i < MAX_DELIVERY_SESSIONS; i++) {
      lines.push(...todoWrite(`toolu_01Agent${i}`, `A${i}`, `toolu_01Parent${i}`))
    }
    const res = await ingest(t, 'claude-agent-sdk', lines.join('\n'))
    assert.equal(res.status, 400, res.text)
    assert.equal(res.body.type, 'https://agent-todos.dev/problems/too-many-sessions')
    assert.match(res.body.detail, new RegExp(`at most ${MAX_DELIVERY_SESSIONS}`))
    assert.equal(counts.updates, 0)
    // one fewer fits: a main session and its subagents
    const fits = await ingest(t, 'claude-agent-sdk', lines.slice(0, -2).join('\n'))
    assert.equal(fits.status, 200, fits.text)
    assert.equal((await view(t, `claude:${SID}`)).observed.subagents.length, 15)
  })

  it('Should stop applying a delivery once its client has gone away', async () => {
    const controller = new AbortController()
    // the client goes away while the first update is stored
    const { store, counts } = countingStore((n) => n === 1 && controller.abort())
    const t = makeTestApp({ store })
    const lines: string[] = []
    for (let i = 0; i < 20; i++) lines.push(...todoWrite(`toolu_01Gone${i}`, `G${i}`))
    await Promise.resolve(
      t.app.request('/v1/ingest/claude-agent-sdk', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-ndjson' },
        body: lines.join('\n'),
        signal: controller.signal,
      })
    ).catch(() => undefined)
    assert.equal(counts.updates, 1)
    assert.equal((await store.get({ tenant: 'default', sessionId: `claude:${SID}` }))?.version, 1)
  })

  describe('the write budget', () => {
    /** The app behind a write limit of `perMinute`. */
    function limitedApp(perMinute: number) {
      const { store, counts } = countingStore()
      const t = makeTestApp({ store, rateLimitPerMinute: perMinute })
      const post = (lines: string[]) =>
        t.app.request('/v1/ingest/claude-agent-sdk', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-ndjson' },
          body: lines.join('\n'),
        })
      return { post, counts }
    }
    const remaining = (res: Response) =>
      Number(/remaining=(\d+)/.exec(res.headers.get('RateLimit') ?? '')?.[1])

    it('Should spend one write per store update a delivery makes', async () => {
      const { post, counts } = limitedApp(20)
      const lines: string[] = []
      for (let i = 0; i < 5; i++) lines.push(...todoWrite(`toolu_01Five${i}`, `F${i}`))
      const five = await post(lines)
      assert.equal(five.status, 200, await five.text())
      assert.equal(counts.updates, 5)
      const next = await post(todoWrite('toolu_01Sixth', 'F5'))
      assert.equal(next.status, 200)
      // 5 + 1 of 20
      assert.equal(remaining(next), 14)
    })

    it('Should refuse, storing nothing, a body whose sessions the budget does not hold', async () => {
      const { post, counts } = limitedApp(3)
      const lines = [
        ...todoWrite('toolu_01Sub0', 'A', 'toolu_01P0'),
        ...todoWrite('toolu_01Sub1', 'B', 'toolu_01P1'),
        ...todoWrite('toolu_01Main', 'M'),
      ]
      // the main session and two subagents' lists: three writes, then a fourth
      assert.equal((await post(todoWrite('toolu_01First', 'first'))).status, 200)
      const refused = await post(lines)
      assert.equal(refused.status, 429)
      assert.equal(counts.updates, 1)
    })
  })
})
