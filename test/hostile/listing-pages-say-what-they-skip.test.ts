/**
 * Finding 12 (last point): paging GET /v1/sessions while sessions change skipped 1 of 40. Pages
 * follow the last change (newest first), which is documented: a session changed during the
 * iteration moves to the front and no later page holds it; a second pass with `updated_since`
 * = the time the iteration began returns it.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, round } from '../helpers.js'

const todo = (text: string) => ({ name: 'todo', input: { items: [{ id: '1', text }] } })

describe('hostile 12: paging a listing that changes', () => {
  it('Should miss a session changed mid-iteration on later pages, and return it with updated_since', async () => {
    const t = makeTestApp()
    for (let i = 0; i < 40; i++) {
      await round(t, `s${String(i).padStart(2, '0')}`, [todo('x')])
      t.clock.now += 10
    }
    const began = new Date(t.clock.now).toISOString()
    const seen: string[] = []
    let cursor: string | null = null
    let page = 0
    do {
      const res = await t.call('GET', `/v1/sessions?limit=10${cursor ? `&cursor=${cursor}` : ''}`)
      assert.equal(res.status, 200)
      seen.push(...res.body.sessions.map((s: { session_id: string }) => s.session_id))
      cursor = res.body.next_cursor
      if (++page === 1) {
        // s05 is on the last page (oldest changes); it changes now, after page 1
        t.clock.now += 10
        await round(t, 's05', [todo('changed')])
      }
    } while (cursor)
    assert.equal(seen.length, 39, 'the changed session is on no later page')
    assert.ok(!seen.includes('s05'))
    assert.equal(new Set(seen).size, seen.length, 'and no session twice')
    const again = await t.call('GET', `/v1/sessions?updated_since=${encodeURIComponent(began)}`)
    assert.deepEqual(
      again.body.sessions.map((s: { session_id: string }) => s.session_id),
      ['s05']
    )
  })
})
