/**
 * Finding 4: event streams at scale. 1,000 viewer streams cut a tenant's writes from 1,125/s to
 * 32/s: each stream read and serialised every change itself, and added an abort listener to the
 * shutdown signal. One fan-out per topic reads each version once for every stream; streams per
 * tenant are capped (429); a client that stops reading is dropped once its backlog passes a
 * bound, and resumes with Last-Event-ID.
 */
import { getEventListeners } from 'node:events'
import { createParser } from 'eventsource-parser'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseAuthKeys } from '../../src/http/auth.js'
import { createMemoryStore } from '../../src/store/memory.js'
import type { SessionStore } from '../../src/store/types.js'
import { makeTestApp, round, type TestApp } from '../helpers.js'
import { sseReader } from '../sse.js'

const todo = (text: string, status = 'pending') => ({
  name: 'todo',
  input: { items: [{ id: '1', text, status }] },
})

/** A memory store that counts its reads. */
function countingStore() {
  const clock = { now: Date.parse('2026-11-30T12:00:00Z') }
  const inner = createMemoryStore({ ttlMs: 86_400_000, historyLimit: 50, now: () => clock.now })
  const reads = { get: 0, history: 0 }
  const store: SessionStore = Object.assign(Object.create(inner) as SessionStore, {
    get: (...args: Parameters<SessionStore['get']>) => (reads.get++, inner.get(...args)),
    history: (...args: Parameters<SessionStore['history']>) => (
      reads.history++,
      inner.history(...args)
    ),
  })
  return { store, reads }
}

const open = async (t: TestApp, path: string, headers: Record<string, string> = {}) => {
  const res = await t.app.request(path, { headers })
  if (res.status !== 200) assert.fail(`${res.status}: ${await res.text()}`)
  return sseReader(res.body!)
}

const metric = async (t: TestApp, name: string) => {
  const text = (await t.call('GET', '/metrics')).text
  const line = text.split('\n').find((l) => l.startsWith(name))
  return line ? Number(line.split(' ').pop()) : 0
}

describe('hostile 04: event streams at scale', () => {
  it('Should read a changed session once for 60 tenant streams, and send each the same summary', async () => {
    const { store, reads } = countingStore()
    const t = makeTestApp({ store })
    await round(t, 'a', [todo('x')])
    const streams = []
    for (let i = 0; i < 60; i++) streams.push(await open(t, '/v1/events'))
    for (const sse of streams) assert.equal((await sse.nextEvent())?.event, 'snapshot')
    const before = reads.get
    await round(t, 'a', [todo('x', 'in_progress')])
    const updates = await Promise.all(streams.map((sse) => sse.nextEvent()))
    assert.ok(reads.get - before <= 2, `${reads.get - before} reads for one change`)
    assert.equal(new Set(updates.map((u) => u?.data)).size, 1, 'one serialisation')
    const summary = JSON.parse(updates[0]!.data!)
    assert.equal(updates[0]?.event, 'update')
    assert.equal(summary.version, 2)
    assert.equal(summary.state, 'active')
    assert.equal(summary.items, undefined, 'a summary, not the whole view')
    await Promise.all(streams.map((sse) => sse.cancel()))
  })

  it('Should send a burst of changes to each stream as one chunk per window, one summary per session', async () => {
    const { store, reads } = countingStore()
    const t = makeTestApp({ store })
    for (let i = 0; i < 10; i++) await round(t, `s${i}`, [todo('x')])
    const readers = []
    for (let i = 0; i < 40; i++) {
      const res = await t.app.request('/v1/events')
      const reader = res.body!.getReader()
      assert.match(new TextDecoder().decode((await reader.read()).value), /event: snapshot/)
      readers.push(reader)
    }
    const before = reads.get
    // 50 rounds over 10 sessions, well inside one 100 ms window
    for (let n = 0; n < 50; n++) await round(t, `s${n % 10}`, [todo(`v${n}`)])
    const chunks = await Promise.all(readers.map((reader) => reader.read()))
    assert.ok(reads.get - before <= 20, `${reads.get - before} reads for 50 changes of 10 sessions`)
    for (const chunk of chunks) {
      const events: { id?: string; data: string }[] = []
      createParser({ onEvent: (event) => events.push(event) }).feed(
        new TextDecoder().decode(chunk.value)
      )
      const latest = new Map<string, number>()
      for (const event of events) {
        const summary = JSON.parse(event.data)
        latest.set(summary.session_id, summary.version)
      }
      // the latest summary of every session that changed, however many times it changed
      assert.ok(events.length <= 20, `${events.length} events in one chunk`)
      assert.equal(latest.size, 10)
    }
    assert.equal(new Set(chunks.map((c) => Buffer.from(c.value).toString('base64'))).size, 1)
    await Promise.all(readers.map((reader) => reader.cancel()))
  })

  it('Should lengthen the window when a topic writes more than its budget', async () => {
    // 20 streams × (one summary + the 4 KiB a write counts) is about 100 KB: 0.5 s of 200 KB/s
    const t = makeTestApp({ sseFanoutBytesPerSecond: 200_000 })
    await round(t, 'a', [todo('x')])
    const streams = []
    for (let i = 0; i < 20; i++) streams.push(await open(t, '/v1/events'))
    for (const sse of streams) await sse.nextEvent()
    await round(t, 'a', [todo('x', 'in_progress')])
    await Promise.all(streams.map((sse) => sse.nextEvent()))
    const sent = Date.now()
    await round(t, 'a', [todo('x', 'completed')])
    const next = await Promise.all(streams.map((sse) => sse.nextEvent()))
    assert.ok(Date.now() - sent >= 350, `the next window came after ${Date.now() - sent} ms`)
    assert.equal(JSON.parse(next[0]!.data!).version, 3)
    await Promise.all(streams.map((sse) => sse.cancel()))
  })

  it('Should read each version once for 60 streams of one session', async () => {
    const { store, reads } = countingStore()
    const t = makeTestApp({ store })
    await round(t, 's1', [todo('v1')])
    const streams = []
    for (let i = 0; i < 60; i++) streams.push(await open(t, '/v1/sessions/s1/events'))
    for (const sse of streams) assert.equal((await sse.nextEvent())?.id, '1')
    const before = { ...reads }
    for (const text of ['v2', 'v3', 'v4']) await round(t, 's1', [todo(text)])
    for (const sse of streams) {
      const got = [await sse.nextEvent(), await sse.nextEvent(), await sse.nextEvent()]
      assert.deepEqual(
        got.map((m) => [m?.id, JSON.parse(m!.data!).items[0].content]),
        [
          ['2', 'v2'],
          ['3', 'v3'],
          ['4', 'v4'],
        ]
      )
    }
    assert.ok(reads.get - before.get <= 3, `${reads.get - before.get} reads for three versions`)
    assert.ok(reads.history - before.history <= 3)
    await Promise.all(streams.map((sse) => sse.cancel()))
  })

  it('Should cap open streams per tenant with a 429 naming MAX_STREAMS_PER_TENANT', async () => {
    const t = makeTestApp({
      keys: parseAuthKeys('a:viewer:viewer-key-a,b:viewer:viewer-key-b'),
      limits: { maxStreamsPerTenant: 3 },
    })
    const a = { Authorization: 'Bearer viewer-key-a' }
    const held = [await open(t, '/v1/events', a), await open(t, '/v1/events', a)]
    const refusedSession = await t.call('GET', '/v1/sessions/none/events', undefined, a)
    assert.equal(refusedSession.status, 404, 'an unknown session is still a 404')
    held.push(await open(t, '/v1/events', a))
    const refused = await t.call('GET', '/v1/events', undefined, a)
    assert.equal(refused.status, 429)
    assert.match(refused.headers.get('content-type') ?? '', /problem\+json/)
    assert.ok(Number(refused.headers.get('retry-after')) > 0)
    assert.match(refused.body.detail, /at most 3 open event streams.*MAX_STREAMS_PER_TENANT/)
    // another tenant has its own budget
    const other = await open(t, '/v1/events', { Authorization: 'Bearer viewer-key-b' })
    // a closed stream frees its place
    await held.pop()!.cancel()
    const again = await open(t, '/v1/events', a)
    assert.equal((await again.nextEvent())?.event, 'snapshot')
    assert.equal(await metric(t, 'agent_todos_sse_refused_total{stream="tenant"}'), 1)
    await Promise.all([...held, other, again].map((sse) => sse.cancel()))
  })

  it('Should drop a client that stops reading once its backlog passes the bound; it resumes with Last-Event-ID', async () => {
    // a short window, so that each version goes out on its own
    const t = makeTestApp({ sseFlushMs: 5, limits: { maxStreamBacklogBytes: 256 * 1024 } })
    const big = 'y'.repeat(9000)
    const items = (v: number) =>
      Array.from({ length: 5 }, (_, i) => ({
        id: String(i + 1),
        content: `v${v} ${big}`,
        status: 'pending',
      }))
    await t.call('PUT', '/v1/sessions/s1/todos', { items: items(1) })
    const stuck = await t.app.request('/v1/sessions/s1/events')
    const reader = stuck.body!.getReader()
    const first = await reader.read()
    assert.match(new TextDecoder().decode(first.value), /event: snapshot/)
    // the client reads nothing more while versions of ~90 KB each pile up
    for (let v = 2; v <= 10; v++) {
      await t.call('PUT', '/v1/sessions/s1/todos', { items: items(v) })
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    // changes go out once per window (100 ms): wait for it
    for (let waited = 0; waited < 3000; waited += 20) {
      if ((await metric(t, 'agent_todos_sse_evicted_total{stream="session"}')) > 0) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.equal(await metric(t, 'agent_todos_sse_evicted_total{stream="session"}'), 1)
    assert.equal(await metric(t, 'agent_todos_sse_clients{stream="session"}'), 0)
    await assert.rejects(async () => {
      for (;;) if ((await reader.read()).done) return
    }, /backlog/)
    // it reconnects from the last version it got: the versions it missed, when they fit in its
    // backlog bound, else (here, 9 versions of ~90 KB against 256 KiB) the current state
    const resumed = await open(t, '/v1/sessions/s1/events', { 'Last-Event-ID': '1' })
    const restart = await resumed.nextEvent()
    assert.deepEqual([restart?.event, restart?.id], ['snapshot', '10'])
    const recent = await open(t, '/v1/sessions/s1/events', { 'Last-Event-ID': '8' })
    const ids = []
    for (let v = 9; v <= 10; v++) ids.push((await recent.nextEvent())?.id)
    assert.deepEqual(ids, ['9', '10'])
    await recent.cancel()
    await resumed.cancel()
  })

  it('Should add one shutdown listener for any number of streams, and close them all at shutdown', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const controller = new AbortController()
      const t = makeTestApp({
        shutdownSignal: controller.signal,
        limits: { maxStreamsPerTenant: 0 },
      })
      await round(t, 's1', [todo('a')])
      // the app's own (the event hub's, the MCP server's), before any stream opens
      const appListeners = getEventListeners(controller.signal, 'abort').length
      const streams = []
      for (let i = 0; i < 40; i++) streams.push(await open(t, '/v1/events'))
      for (let i = 0; i < 40; i++) streams.push(await open(t, '/v1/sessions/s1/events'))
      for (const sse of streams) await sse.nextEvent()
      assert.ok(appListeners <= 2)
      assert.ok(
        getEventListeners(controller.signal, 'abort').length <= Math.max(appListeners, 1),
        'no listener per stream'
      )
      controller.abort()
      for (const sse of streams) assert.equal(await sse.nextEvent(), null)
      await new Promise((resolve) => setImmediate(resolve))
      assert.deepEqual(
        warnings.filter((w) => w.name === 'MaxListenersExceededWarning'),
        []
      )
    } finally {
      process.off('warning', onWarning)
    }
  })
})
