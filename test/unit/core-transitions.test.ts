/**
 * The alert transitions of one write (core/transitions): what the stores put in the outbox.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newSession, type Session } from '../../src/core/session.js'
import { alertTransitions } from '../../src/core/transitions.js'

const STALE_MS = 60_000
const T0 = Date.parse('2026-12-02T10:00:00Z')

const at = (session: Session, updatedAt: number, change: Partial<Session> = {}): Session => ({
  ...session,
  ...change,
  version: session.version + 1,
  updated_at: updatedAt,
})
const items = (...statuses: string[]) =>
  statuses.map((status, i) => ({
    id: String(i + 1),
    content: `step ${i + 1}`,
    status,
  })) as Session['items']

const base = at(newSession({ tenant: 't', sessionId: 's' }, 's03', {}, T0), T0, {
  items: items('in_progress', 'pending'),
})
const withWaiting = (
  session: Session,
  waiting: { reason: string; at: number } | null
): Session => ({
  ...session,
  observed: {
    source: 'claude-code',
    parent: null,
    agents: [],
    waiting: waiting && { ...waiting, message: null },
    todo_tools: true,
    dialect_fixed: true,
    applied: '',
    pending: [],
    end_rank: 0,
    pending_edit: null,
  },
})

const kinds = (before: Session | null, after: Session) =>
  alertTransitions(before, after, STALE_MS).map((t) => t.kind)

describe('core/transitions', () => {
  it('Should say done once, when the last item is finished', () => {
    const done = at(base, T0 + 1000, { items: items('completed', 'cancelled') })
    assert.deepEqual(kinds(base, done), ['done'])
    assert.deepEqual(kinds(done, at(done, T0 + 2000)), [])
    assert.deepEqual(kinds(null, base), [])
  })

  it('Should say ended once, and not done for an ended list', () => {
    const ended = at(base, T0 + 1000, {
      items: items('completed', 'completed'),
      ended: { outcome: 'completed', detail: null, at: T0 + 1000, unfinished: [] },
    })
    assert.deepEqual(kinds(base, ended), ['ended'])
    assert.deepEqual(kinds(ended, at(ended, T0 + 2000)), [])
  })

  it('Should say waiting when a wait begins, with its start, and resumed when it ends', () => {
    const plain = withWaiting(base, null)
    const waits = withWaiting(at(plain, T0 + 1000), { reason: 'permission_prompt', at: T0 + 1000 })
    assert.deepEqual(alertTransitions(plain, waits, STALE_MS), [
      { kind: 'waiting', at: T0 + 1000, since: T0 + 1000 },
    ])
    // another reason while waiting: not a new transition into waiting
    const again = withWaiting(at(waits, T0 + 2000), { reason: 'idle_prompt', at: T0 + 2000 })
    assert.deepEqual(kinds(waits, again), [])
    assert.deepEqual(kinds(again, withWaiting(at(again, T0 + 3000), null)), ['resumed'])
  })

  it('Should say resumed for a change of a stale session, and nothing for a fresh one', () => {
    assert.deepEqual(kinds(base, at(base, T0 + STALE_MS + 1)), ['resumed'])
    assert.deepEqual(kinds(base, at(base, T0 + STALE_MS - 1)), [])
  })
})
