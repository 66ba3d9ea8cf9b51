import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PAGE_BYTES } from '../../src/http/json-parts.js'
import { createMemoryStore } from '../../src/store/memory.js'
import type { SessionStore } from '../../src/store/types.js'
import { makeTestApp } from '../helpers.js'
import { openTestSqlite } from '../sqlite-support.js'

const NOW = Date.parse('2026-11-30T12:00:00Z')
const dir = mkdtempSync(join(tmpdir(), 'history-pages-'))
after(() => rmSync(dir, { recursive: true, force: true }))

/** A list of about `kb` KB: items of 9,900 characters, as the bench's largest sessions. */
const list = (tag: string, kb: number) =>
  Array.from({ length: Math.round(kb / 10) }, (_, i) => ({
    id: String(i + 1),
    content: `${tag} ${i} `.padEnd(9_900, 'x'),
    status: 'pending',
  }))

/** The store, its `historyText` reads recorded: entries and characters of lists per read. */
function recorded(store: SessionStore) {
  const reads: { entries: number; chars: number }[] = []
  const historyText: SessionStore['historyText'] = async (...args) => {
    const texts = await store.historyText(...args)
    reads.push({ entries: texts.length, chars: texts.reduce((n, e) => n + e.items.length, 0) })
    return texts
  }
  return { store: Object.assign(Object.create(store) as SessionStore, { historyText }), reads }
}

const stores: [string, () => SessionStore][] = [
  ['memory', () => createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: () => NOW })],
  [
    'sqlite',
    () => openTestSqlite(join(dir, `${Math.random()}.db`), { historyLimit: 50, now: () => NOW }),
  ],
]

for (const [name, open] of stores) {
  describe(`GET /v1/sessions/{id}/history of large lists (${name})`, () => {
    /** A test app whose session `big` has `versions` lists of about `kb` KB. */
    async function withHistory(versions: number, kb: number) {
      const base = open()
      const { store, reads } = recorded(base)
      const t = makeTestApp({ store })
      for (let v = 1; v <= versions; v++) {
        const res = await t.call('PUT', '/v1/sessions/big/todos', {
          dialect: 'claude-tasks',
          items: list(`v${v}`, kb),
        })
        assert.equal(res.status, 200)
      }
      return { t, reads, close: () => base.close() }
    }

    /** Every page from the newest, by `next_cursor`: their versions and sizes. */
    async function pages(t: ReturnType<typeof makeTestApp>, query: string) {
      const out: { versions: number[]; bytes: number; next: string | null }[] = []
      let cursor: string | null = null
      do {
        const res = await t.call(
          'GET',
          `/v1/sessions/big/history?${query}${cursor ? `&cursor=${cursor}` : ''}`
        )
        assert.equal(res.status, 200)
        cursor = res.body.next_cursor as string | null
        out.push({
          versions: res.body.entries.map((e: { version: number }) => e.version),
          bytes: Buffer.byteLength(JSON.stringify(res.body.entries)),
          next: cursor,
        })
      } while (cursor && out.length < 20)
      return out
    }

    it('Should page by `limit` exactly, next_cursor null once none remain', async () => {
      // each list passes a read's byte budget: the page is read one list at a time
      const { t, close } = await withHistory(5, 300)
      try {
        assert.deepEqual(
          (await pages(t, 'limit=2')).map((p) => [p.versions, p.next !== null]),
          [
            [[4, 5], true],
            [[2, 3], true],
            [[1], false],
          ]
        )
        assert.deepEqual(
          (await pages(t, 'limit=5')).map((p) => [p.versions, p.next !== null]),
          [[[1, 2, 3, 4, 5], false]]
        )
        assert.deepEqual(
          (await pages(t, 'limit=4')).map((p) => [p.versions, p.next !== null]),
          [
            [[2, 3, 4, 5], true],
            [[1], false],
          ]
        )
      } finally {
        await close()
      }
    })

    it('Should end a page at its byte budget, reading about one large list per store read', async () => {
      const { t, reads, close } = await withHistory(10, 400)
      try {
        const all = await pages(t, '')
        assert.deepEqual(
          all.flatMap((p) => p.versions).sort((a, b) => a - b),
          [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
          'every version once'
        )
        assert.deepEqual(all.at(-1)?.versions.slice(0, 1), [1])
        assert.equal(all.at(-1)?.next, null)
        for (const page of all) assert.ok(page.bytes <= PAGE_BYTES, `${page.bytes} B`)
        assert.ok(all.length >= 2, `${all.length} pages of 10 lists of 400 KB`)
        // no read of the store took more than one list of 400 KB
        for (const read of reads) assert.ok(read.entries <= 1, JSON.stringify(read))
      } finally {
        await close()
      }
    })
  })
}
