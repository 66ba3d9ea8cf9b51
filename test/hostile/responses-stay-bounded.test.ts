/**
 * Finding 3: bounded responses. The history of a large session was one 443 MB body; the tenant
 * snapshot of large sessions carried whole sessions. A history page holds at most 2 MiB and
 * names the page before it; listings and tenant snapshots stop at 2 MiB and carry summaries.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, type TestApp } from '../helpers.js'
import { sseReader } from '../sse.js'

const PAGE_BYTES = 2 * 1024 * 1024
const filler = 'x'.repeat(9000)

/** A list of about 800 KB (90 items of 9,000 characters), the first in progress. */
const bigList = (tag: string, metadata?: Record<string, unknown>, length = 90) =>
  Array.from({ length }, (_, i) => ({
    id: String(i + 1),
    content: `${tag} ${i} ${filler}`,
    status: i === 0 ? 'in_progress' : 'pending',
    ...(i === 0 && metadata ? { metadata } : {}),
  }))

async function put(
  t: TestApp,
  id: string,
  tag: string,
  metadata?: Record<string, unknown>,
  length?: number
) {
  const res = await t.call('PUT', `/v1/sessions/${id}/todos`, {
    dialect: 'claude-tasks',
    items: bigList(tag, metadata, length),
  })
  assert.equal(res.status, 200, res.text.slice(0, 300))
}

describe('hostile 03: bounded responses', () => {
  it('Should page a large history by version, at most 2 MiB a page, every version once', async () => {
    const t = makeTestApp()
    for (let v = 1; v <= 12; v++) await put(t, 'big', `v${v}`)
    const seen: number[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const path: string = `/v1/sessions/big/history${cursor ? `?cursor=${cursor}` : ''}`
      const res = await t.call('GET', path)
      assert.equal(res.status, 200)
      assert.ok(
        Buffer.byteLength(res.text) <= PAGE_BYTES + 1024,
        `page of ${Buffer.byteLength(res.text)} bytes`
      )
      const versions: number[] = res.body.entries.map((e: { version: number }) => e.version)
      assert.ok(versions.length > 0)
      assert.deepEqual(
        versions,
        [...versions].sort((a, b) => a - b),
        'oldest first within a page'
      )
      if (seen.length) assert.ok(versions[versions.length - 1] < seen[0], 'pages go back in time')
      assert.ok(res.body.entries[0].items[0].content.startsWith(`v${versions[0]} `))
      seen.unshift(...versions)
      cursor = res.body.next_cursor
      pages++
    } while (cursor && pages < 20)
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    assert.ok(pages >= 5, `${pages} pages for about 10 MB`)
  })

  it('Should honour limit and say when older entries remain', async () => {
    const t = makeTestApp()
    for (let v = 1; v <= 5; v++) {
      await t.call('PUT', '/v1/sessions/small/todos', {
        items: [{ id: '1', content: `v${v}`, status: 'pending' }],
      })
    }
    const first = await t.call('GET', '/v1/sessions/small/history?limit=2')
    assert.deepEqual(
      first.body.entries.map((e: { version: number }) => e.version),
      [4, 5]
    )
    assert.equal(typeof first.body.next_cursor, 'string')
    const second = await t.call(
      'GET',
      `/v1/sessions/small/history?limit=2&cursor=${first.body.next_cursor}`
    )
    assert.deepEqual(
      second.body.entries.map((e: { version: number }) => e.version),
      [2, 3]
    )
    const third = await t.call(
      'GET',
      `/v1/sessions/small/history?limit=2&cursor=${second.body.next_cursor}`
    )
    assert.deepEqual(
      third.body.entries.map((e: { version: number }) => e.version),
      [1]
    )
    assert.equal(third.body.next_cursor, null)
    const all = await t.call('GET', '/v1/sessions/small/history')
    assert.equal(all.body.entries.length, 5)
    assert.equal(all.body.next_cursor, null)
    const bad = await t.call('GET', '/v1/sessions/small/history?cursor=bm9wZQ')
    assert.equal(bad.status, 400)
    assert.equal(bad.body.type.endsWith('invalid-cursor'), true)
  })

  it('Should cut listings and tenant snapshots at 2 MiB, and send summaries in snapshots', async () => {
    const t = makeTestApp()
    // each session's current item carries about 700 KB of metadata
    const blob = { blob: 'm'.repeat(700_000) }
    for (let i = 0; i < 8; i++) {
      await put(t, `s${i}`, `s${i}`, blob, 5)
      t.clock.now += 1000
    }
    const ids: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await t.call('GET', `/v1/sessions?limit=200${cursor ? `&cursor=${cursor}` : ''}`)
      assert.equal(res.status, 200)
      assert.ok(
        Buffer.byteLength(res.text) <= PAGE_BYTES + 1024,
        `${Buffer.byteLength(res.text)} bytes`
      )
      ids.push(...res.body.sessions.map((s: { session_id: string }) => s.session_id))
      cursor = res.body.next_cursor
      pages++
    } while (cursor && pages < 20)
    assert.deepEqual(ids, ['s7', 's6', 's5', 's4', 's3', 's2', 's1', 's0'])
    assert.ok(pages >= 3)

    const res = await t.app.request('/v1/events')
    const sse = sseReader(res.body!)
    const snapshot = await sse.nextEvent()
    assert.equal(snapshot?.event, 'snapshot')
    assert.ok(Buffer.byteLength(snapshot.data!) <= PAGE_BYTES + 1024)
    const sessions = JSON.parse(snapshot.data!).sessions
    assert.ok(sessions.length >= 1 && sessions.length < 8, `${sessions.length} in the snapshot`)
    assert.equal(sessions[0].session_id, 's7', 'the newest first')
    for (const summary of sessions) {
      assert.equal(summary.items, undefined, 'a summary, not the whole session')
      assert.equal(summary.state, 'active')
    }
    await sse.cancel()
  })
})
