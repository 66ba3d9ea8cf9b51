/**
 * Listings, the tenant stream's snapshot and history pages must cost what they return, for the
 * largest allowed sessions: with 100 sessions of ~1 MB (each within MAX_SESSION_BYTES), a
 * listing once parsed all 100 MB (SQLite held `/livez` 1.85 s per listing; Redis read them
 * concurrently past its command timeout and answered 503 every time), and a history page parsed
 * nine 1 MB lists to send two. Now every store keeps a brief beside each session and lists from
 * it, and history stops at its page's byte budget.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeItem, type Item } from '../../src/core/items.js'
import { newSession, type Session, type SessionKey } from '../../src/core/session.js'
import { createMemoryStore } from '../../src/store/memory.js'
import { createRedisStore } from '../../src/store/redis/index.js'
import { createSqliteStore } from '../../src/store/sqlite.js'
import type { SessionStore, StoreOptions } from '../../src/store/types.js'
import { makeTestApp } from '../helpers.js'
import {
  dropKeys,
  missingRedis,
  probeRedis,
  TEST_REDIS_URL,
  uniquePrefix,
} from '../redis-support.js'

const TENANT = 'default'
const SESSIONS = 100
/** Parses of more than this many characters read a session or a list, not a brief. */
const LARGE = 64 * 1024

/** A list of about 1 MB of JSON: 99 items of 9,800 characters (MAX_CONTENT_LENGTH 10,000). */
const largeList = (tag: string): Item[] =>
  Array.from({ length: 100 }, (_, i) =>
    makeItem({
      id: String(i + 1),
      // the item in progress is the listing's `current`: short, as a listing line is
      content: i === 0 ? `${tag}: the step in progress` : `${tag} ${i} `.padEnd(9800, 'x'),
      status: i === 0 ? 'in_progress' : i < 40 ? 'completed' : 'pending',
    })
  )

const writeList = (store: SessionStore, key: SessionKey, items: Item[], at: number) =>
  store.update(key, (current) => {
    const base = current ?? newSession(key, 'claude-todowrite', {}, at)
    const next: Session = { ...base, items, version: base.version + 1, updated_at: at }
    return { value: next.version, write: { session: next, source: 'put' as const } }
  })

/** Runs `fn` and returns the sizes of the strings JSON.parse was given meanwhile. */
async function parsesDuring<T>(fn: () => Promise<T>): Promise<{ result: T; large: number[] }> {
  const parse = JSON.parse
  const large: number[] = []
  JSON.parse = function spied(text: string, reviver?: Parameters<typeof parse>[1]) {
    if (typeof text === 'string' && text.length > LARGE) large.push(text.length)
    return parse(text, reviver) as unknown
  } as typeof JSON.parse
  try {
    return { result: await fn(), large }
  } finally {
    JSON.parse = parse
  }
}

/** A GET whose reply is read inside the spy and parsed after it (the test's parse is not the server's). */
async function get(store: SessionStore, now: () => number, path: string) {
  const t = makeTestApp({ store, now })
  const { result, large } = await parsesDuring(async () => {
    const res = await t.app.request(path)
    return { status: res.status, text: await res.text() }
  })
  return { ...result, body: JSON.parse(result.text), large }
}

const options = (now: () => number): StoreOptions => ({
  ttlMs: 3_600_000,
  historyLimit: 20,
  now,
})

function suite(
  name: string,
  open: (options: StoreOptions) => Promise<SessionStore> | SessionStore
) {
  describe(`${name}: listings cost what they return`, () => {
    const clock = { now: Date.parse('2026-12-02T06:00:00Z') }
    let store: SessionStore
    const history: SessionKey = { tenant: TENANT, sessionId: 'history-of-large-lists' }

    before(async () => {
      store = await open(options(() => clock.now))
      const list = largeList('s')
      for (let i = 0; i < SESSIONS; i++) {
        await writeList(store, { tenant: TENANT, sessionId: `large-${i}` }, list, clock.now + i)
      }
      for (let v = 0; v < 10; v++) await writeList(store, history, largeList(`v${v}`), clock.now)
    })
    after(() => store.close())

    it(`Should list ${SESSIONS} sessions of ~1 MB without parsing one (GET /v1/sessions: 200)`, async () => {
      const res = await get(store, () => clock.now, '/v1/sessions?limit=200')
      const large = res.large
      assert.equal(res.status, 200)
      assert.equal(res.body.sessions.length, SESSIONS + 1)
      const first = res.body.sessions.find(
        (s: { session_id: string }) => s.session_id === 'large-99'
      )
      assert.equal(first.progress.total, 100)
      assert.equal(first.progress.completed, 39)
      assert.equal(first.current.id, '1')
      assert.equal(first.state, 'active')
      assert.deepEqual(large, [], 'the listing parsed a session')
      assert.ok(res.text.length < 100_000, `a listing of briefs is small (${res.text.length} B)`)
    })

    it('Should filter listings (state, dialect) from the briefs too', async () => {
      const { result: page, large } = await parsesDuring(() =>
        store.list(TENANT, {
          state: 'active',
          dialect: 'claude-todowrite',
          source: 'rounds',
          staleBefore: 0,
          limit: 200,
        })
      )
      assert.equal(page.sessions.length, SESSIONS + 1)
      assert.deepEqual(large, [])
    })

    it("Should read the tenant stream's snapshot (200 newest) without parsing a session", async () => {
      const { result: page, large } = await parsesDuring(() =>
        store.list(TENANT, { state: 'all', staleBefore: clock.now, limit: 200 })
      )
      assert.equal(page.sessions.length, SESSIONS + 1)
      assert.deepEqual(large, [])
    })

    it('Should stop a history page at its byte budget, reading about that many lists', async () => {
      const { result: entries, large } = await parsesDuring(() =>
        store.history(history, 20, undefined, 2 * 1024 * 1024)
      )
      // newest first until more than 2 MiB: the third ~1 MB list passes it
      assert.deepEqual(
        entries.map((e) => e.version),
        [8, 9, 10]
      )
      assert.ok(large.length <= 3, `parsed ${large.length} large lists for 3`)
    })

    it('Should page GET …/history by bytes, with a cursor for the rest, parsing no list', async () => {
      const seen: number[] = []
      let cursor: string | null = null
      let pages = 0
      let mostParsed = 0
      do {
        const query: string = cursor ? `?cursor=${cursor}` : ''
        const res = await get(
          store,
          () => clock.now,
          `/v1/sessions/${history.sessionId}/history${query}`
        )
        const large = res.large
        assert.equal(res.status, 200)
        assert.ok(res.text.length < 3 * 1024 * 1024, `a page of ${res.text.length} B`)
        seen.unshift(...res.body.entries.map((e: { version: number }) => e.version))
        cursor = res.body.next_cursor
        mostParsed = Math.max(mostParsed, large.length)
        pages++
      } while (cursor && pages < 20)
      assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
      assert.ok(pages >= 4, `${pages} pages of ~2 MiB for 10 lists of ~1 MB`)
      // the stored lists go out as they are, and the ETag comes from the brief
      assert.equal(mostParsed, 0, `a page parsed ${mostParsed} large strings`)
    })
  })
}

suite('memory', (o) => createMemoryStore(o))

const dir = mkdtempSync(join(tmpdir(), 'listings-cost-'))
after(() => rmSync(dir, { recursive: true, force: true }))
suite('sqlite', (o) =>
  createSqliteStore({ ...o, path: join(dir, 'large.db'), synchronous: 'normal' })
)

const unreachable = await probeRedis()
if (unreachable) {
  missingRedis(`listings cost what they return: redis at ${TEST_REDIS_URL}`, unreachable)
} else {
  const prefix = uniquePrefix('large-listing')
  after(() => dropKeys({ url: TEST_REDIS_URL }, prefix))
  suite('redis', (o) => createRedisStore({ ...o, url: TEST_REDIS_URL, keyPrefix: prefix }))
}
