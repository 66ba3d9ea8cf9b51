import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AGENTS } from '../../src/agents/index.js'
import type { ApplyResult } from '../../src/ingest/apply.js'
import {
  capSegments,
  combineResults,
  DeliveryTargetError,
  MAX_DELIVERY_SESSIONS,
  planDelivery,
  sessionIdOf,
  TooManySessionsError,
} from '../../src/ingest/delivery.js'
import type { ObservedEvent } from '../../src/ingest/events.js'

const activity = (session?: string, agent?: string): ObservedEvent => ({
  kind: 'activity',
  target: { session, agent },
  what: 'x',
})

describe('ingest/delivery', () => {
  it('Should join the oldest segments into the first when there are more than the cap, keeping the newest apart', () => {
    const segments = [[1], [2, 3], [4], [5], [6]]
    assert.equal(capSegments(segments, 5), segments)
    assert.deepEqual(capSegments(segments, 3), [[1, 2, 3, 4], [5], [6]])
    assert.deepEqual(capSegments(segments, 1), [[1, 2, 3, 4, 5, 6]])
    assert.deepEqual(capSegments(segments, 0), [[1, 2, 3, 4, 5, 6]])
  })

  it(`Should refuse a delivery touching more than ${MAX_DELIVERY_SESSIONS} sessions, counting a main session that only its subagents name`, () => {
    const subagents = Array.from({ length: MAX_DELIVERY_SESSIONS }, (_, i) =>
      activity('m', `a${i}`)
    )
    assert.throws(
      () => planDelivery(AGENTS['claude-code'], subagents, undefined),
      (error) => error instanceof TooManySessionsError && error.count === MAX_DELIVERY_SESSIONS + 1
    )
    assert.equal(planDelivery(AGENTS['claude-code'], subagents.slice(1), undefined).length, 15)
  })

  it("Should group a delivery's events by session, subagents' lists before the main sessions, each in order of first appearance", () => {
    const events = [
      activity('a'),
      activity('a', 'k1'),
      activity('b'),
      activity('a'),
      activity('a', 'k1'),
    ]
    const plan = planDelivery(AGENTS['claude-code'], events, undefined)
    assert.deepEqual(
      plan.map((g) => [g.id, g.parent, g.events.length]),
      [
        ['claude:a:agent:k1', 'claude:a', 2],
        ['claude:a', null, 2],
        ['claude:b', null, 1],
      ]
    )
    assert.equal(plan[1].events[1], events[3])
  })

  it("Should put every event under the caller's session id when it names one", () => {
    const plan = planDelivery(AGENTS.codex, [activity(undefined), activity('t1')], 'ci-job-7')
    assert.deepEqual(
      plan.map((g) => [g.id, g.events.length]),
      [['ci-job-7', 2]]
    )
  })

  it('Should refuse a target it cannot name, with the code the route answers', () => {
    assert.throws(
      () => sessionIdOf(AGENTS.codex, {}, undefined),
      (error: unknown) =>
        error instanceof DeliveryTargetError &&
        error.code === 'session-unknown' &&
        error.pointer === '/query/session_id'
    )
    assert.throws(
      () => sessionIdOf(AGENTS['gemini-cli'], { session: 'has space' }, undefined),
      (error: unknown) =>
        error instanceof DeliveryTargetError && error.code === 'invalid-session-id'
    )
    assert.equal(
      sessionIdOf(AGENTS['gemini-cli'], { session: 's', agent: 'k' }, undefined),
      'gemini:s:agent:k'
    )
  })

  it("Should take a session's updates together: the last session, summed counts, the first edit", () => {
    const base: ApplyResult = {
      session: null,
      write: false,
      quiet: false,
      applied: 1,
      ignored: 2,
      edit: 'first',
      endAgents: false,
    }
    const next: ApplyResult = {
      ...base,
      write: true,
      applied: 3,
      ignored: 0,
      edit: 'second',
      endAgents: true,
    }
    assert.deepEqual(combineResults(undefined, base), base)
    assert.deepEqual(combineResults(base, next), {
      session: null,
      write: true,
      quiet: false,
      applied: 4,
      ignored: 2,
      edit: 'first',
      endAgents: true,
    })
    // quiet only while no update of the delivery wrote a new version
    const quiet: ApplyResult = { ...next, quiet: true }
    assert.equal(combineResults(base, quiet).quiet, true)
    assert.equal(combineResults(quiet, quiet).quiet, true)
    assert.equal(combineResults(quiet, next).quiet, false)
    assert.equal(combineResults(next, quiet).quiet, false)
  })
})
