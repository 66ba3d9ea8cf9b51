/**
 * SQLite listings visit a bounded number of sessions per call (`LIST_VISIT_BUDGET`): a filter few
 * sessions match answers a short page with a cursor instead of walking the whole tenant in one
 * turn of the event loop, and following the cursors returns every match exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem } from '../../src/core/items.js'
import { EMPTY_ORIGIN } from '../../src/core/origin.js'
import { newSession, type Session, type SessionKey } from '../../src/core/session.js'
import { LIST_VISIT_BUDGET } from '../../src/store/sqlite.js'
import type { ListQuery, SessionStore } from '../../src/store/types.js'
import { openTestSqlite } from '../sqlite-support.js'

const SESSIONS = Math.round(LIST_VISIT_BUDGET * 2.5)
/** Every `RARE`-th session is the user `rare`'s (and labelled `team=rare`); the others `common`'s. */
const RARE = 400
const START = 1_000_000

describe('SQLite listing: a bounded visit per call', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-sqlite-listing-'))
  let store: SessionStore
  before(async () => {
    store = openTestSqlite(join(dir, 'listing.db'), { now: () => START, ttlMs: 86_400_000 })
    const write = (i: number) => {
      const key: SessionKey = { tenant: 'big', sessionId: `s${String(i).padStart(5, '0')}` }
      const rare = i % RARE === 0
      return store.update(key, (current) => {
        const base = current ?? newSession(key, 's03', {}, START)
        const session: Session = {
          ...base,
          origin: { ...EMPTY_ORIGIN, user: rare ? 'rare' : 'common', host: 'box' },
          labels: { team: rare ? 'rare' : 'common' },
          items: [makeItem({ id: '1', content: `task ${i}`, status: 'pending' })],
          version: base.version + 1,
          // distinct times, and two sessions sharing each one, so the cursor's id tiebreak counts
          updated_at: START - SESSIONS + Math.floor(i / 2),
        }
        return { value: session.version, write: { session, source: 'round' } }
      })
    }
    for (let i = 0; i < SESSIONS; i += 250) {
      await Promise.all(Array.from({ length: Math.min(250, SESSIONS - i) }, (_, j) => write(i + j)))
    }
  })
  after(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Every page of a listing, following the cursors to the end. */
  const allPages = async (query: Omit<ListQuery, 'staleBefore' | 'limit'>, limit = 50) => {
    const pages: string[][] = []
    let cursor: ListQuery['cursor']
    do {
      const page = await store.list('big', { staleBefore: 0, limit, ...query, cursor })
      pages.push(page.sessions.map((s) => s.session_id))
      cursor = page.next ?? undefined
    } while (cursor && pages.length < 100)
    return pages
  }

  const rareIds = Array.from({ length: SESSIONS }, (_, i) => i)
    .filter((i) => i % RARE === 0)
    .map((i) => `s${String(i).padStart(5, '0')}`)
    .reverse()

  it('Should end a page of a rare filter at the visit bound, with a cursor to go on', async () => {
    const first = await store.list('big', { state: 'all', staleBefore: 0, limit: 50, user: 'rare' })
    // the newest LIST_VISIT_BUDGET sessions hold these of the rare ones
    const inFirst = rareIds.filter((id) => Number(id.slice(1)) >= SESSIONS - LIST_VISIT_BUDGET)
    assert.deepEqual(
      first.sessions.map((s) => s.session_id),
      inFirst
    )
    assert.ok(first.next, 'a short page says where to go on')
  })

  for (const [name, query] of [
    ['an origin filter', { state: 'all', user: 'rare' }],
    ['a label filter', { state: 'all', labels: { team: 'rare' } }],
  ] as const) {
    it(`Should return every match of ${name} exactly once across the pages`, async () => {
      const pages = await allPages(query)
      assert.deepEqual(pages.flat(), rareIds)
      assert.equal(pages.length, Math.ceil(SESSIONS / LIST_VISIT_BUDGET))
    })
  }

  it('Should answer a filter nothing matches with empty pages and cursors, then the end', async () => {
    const pages = await allPages({ state: 'all', user: 'nobody' })
    assert.deepEqual(
      pages,
      Array.from({ length: Math.ceil(SESSIONS / LIST_VISIT_BUDGET) }, () => [])
    )
  })

  it('Should page an unfiltered listing by its limit, each session once', async () => {
    const pages = await allPages({ state: 'all' }, 200)
    const ids = pages.flat()
    assert.equal(ids.length, SESSIONS)
    assert.equal(new Set(ids).size, SESSIONS)
    assert.ok(pages.slice(0, -1).every((page) => page.length === 200))
  })

  it('Should find a value only where it is that field of the brief', async () => {
    // `rare` is a label value of the same sessions, and a user elsewhere: only the user matches
    const pages = await allPages({ state: 'all', host: 'rare' })
    assert.deepEqual(pages.flat(), [])
    const labelled = await allPages({ state: 'all', labels: { team: 'common' } }, 200)
    assert.equal(labelled.flat().length, SESSIONS - rareIds.length)
  })
})
