import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { AGENTS } from '../../src/agents/index.js'
import { DEFAULT_LIST_LIMITS } from '../../src/core/limits.js'
import { newSession, type Session } from '../../src/core/session.js'
import {
  applyObserved,
  MAX_STAGED_CALLS,
  NotObservedError,
  type ApplyContext,
} from '../../src/ingest/apply.js'
import {
  APPLIED_DIGEST_CHARS,
  appliedDigestOf,
  MAX_APPLIED_IDS,
} from '../../src/ingest/applied-ids.js'
import type { ObservedEvent } from '../../src/ingest/events.js'

const T0 = Date.parse('2026-11-30T12:00:00Z')
const key = { tenant: 't', sessionId: 'claude:s1' }
const ctx = (over: Partial<ApplyContext> = {}): ApplyContext => ({
  key,
  agent: AGENTS['claude-code'],
  parent: null,
  now: T0,
  keepAliveMs: 450_000,
  limits: DEFAULT_LIST_LIMITS,
  ...over,
})
const target = { session: 's1' }
const todos = (...list: [string, string][]) => ({
  oldTodos: [],
  newTodos: list.map(([content, status]) => ({ content, status, activeForm: content })),
})
const write = (id: string, ...list: [string, string][]): ObservedEvent => ({
  kind: 'tool_result',
  target,
  call_id: id,
  name: 'TodoWrite',
  is_error: false,
  structured: todos(...list),
})
const activity: ObservedEvent = { kind: 'activity', target, what: 'Stop' }

/** Applies a delivery and returns the stored session (asserting what was written). */
function run(current: Session | null, events: ObservedEvent[], over: Partial<ApplyContext> = {}) {
  const result = applyObserved(current, events, ctx(over))
  return { ...result, stored: result.write ? result.session! : current }
}

describe('ingest/apply: versions', () => {
  it('Should write a version only when what the session shows changes', () => {
    const created = run(null, [write('c1', ['A', 'pending'])])
    let stored = created.stored
    assert.ok(created.write)
    assert.equal(stored!.version, 1)
    // a duplicate, an identical snapshot under a new id, and activity: no version
    for (const events of [
      [write('c1', ['A', 'pending'])],
      [write('c2', ['A', 'pending'])],
      [activity],
    ]) {
      const next = run(stored, events, { now: T0 + 1000 })
      assert.equal(next.write, false, JSON.stringify(events))
      assert.equal(next.stored, stored)
    }
    ;({ stored } = run(stored, [write('c3', ['A', 'completed'])], { now: T0 + 2000 }))
    assert.equal(stored!.version, 2)
    assert.equal(stored!.updated_at, T0 + 2000)
    // a session created again after a delete goes on above its last version
    assert.equal(run(null, [write('c1', ['A', 'pending'])], { versionFloor: 7 }).stored!.version, 8)
  })

  it('Should keep a busy session alive with a quiet write at most once per half stale window', () => {
    let { stored } = run(null, [write('c1', ['A', 'in_progress'])])
    let writes = 0
    // activity every minute for an hour: a keep-alive every 7.5 minutes at most
    for (let minute = 1; minute <= 60; minute++) {
      const next = run(stored, [activity], { now: T0 + minute * 60_000 })
      if (next.write) {
        writes++
        // the version stays: activity alone is no change of the list or the lifecycle
        assert.equal(next.quiet, true)
        assert.equal(next.session!.version, 1)
      }
      stored = next.stored
      assert.ok(T0 + minute * 60_000 - stored!.updated_at < 450_000)
    }
    assert.equal(writes, 7)
    // nothing unfinished: nothing can turn stale, so activity never writes
    const done = run(null, [write('c1', ['A', 'completed'])]).stored
    const later = run(done, [activity], { now: T0 + 3_600_000 })
    assert.equal(later.write, false)
  })

  it('Should keep a staged call, the tools and the subagents quietly, and version only the list', () => {
    const stored = run(null, [write('c1', ['A', 'pending'])]).stored!
    const call: ObservedEvent = {
      kind: 'tool_call',
      target,
      call_id: 'g1',
      name: 'TodoWrite',
      input: { todos: [] },
      stage: true,
    }
    const staged = run(stored, [call], { now: T0 + 1000 })
    assert.equal(staged.write, true)
    assert.equal(staged.quiet, true)
    assert.equal(staged.session!.version, 1)
    assert.deepEqual(
      staged.session!.observed!.pending.map((c) => c.id),
      ['g1']
    )
    // its result, in a later delivery, is the one new version of the call
    const done = run(staged.session, [write('g1', ['A', 'completed'])], { now: T0 + 2000 })
    assert.equal(done.quiet, false)
    assert.equal(done.session!.version, 2)
    assert.deepEqual(done.session!.observed!.pending, [])
    const tools = run(stored, [{ kind: 'session_start', target, run: false, tools: ['Bash'] }])
    assert.equal(tools.quiet, true)
    assert.equal(tools.session!.observed!.todo_tools, false)
    assert.equal(tools.session!.version, 1)
    const agents = run(stored, [activity], { agents: ['claude:s1:agent:a1'] })
    assert.equal(agents.quiet, true)
    assert.deepEqual(agents.session!.observed!.agents, ['claude:s1:agent:a1'])
    assert.equal(agents.session!.version, 1)
  })

  it("Should hold an agent's writes to the service's caps, as a round's", () => {
    const limits = { ...DEFAULT_LIST_LIMITS, maxJsonDepth: 8, maxSessionBytes: 4096 }
    const stored = run(null, [write('c1', ['A', 'pending'])], { limits }).stored!
    let deep: unknown = 'x'
    for (let i = 0; i < 10; i++) deep = { deep }
    const created = (id: string, metadata: unknown): ObservedEvent => ({
      kind: 'tool_result',
      target,
      call_id: id,
      name: 'TaskCreate',
      input: { subject: 'S', description: 'D', metadata },
      is_error: false,
      structured: { task: { id: '1', subject: 'S' } },
    })
    const tasks = run(null, [created('t0', { a: 1 })], { limits }).stored!
    assert.equal(tasks.items.length, 1)
    // metadata nested past MAX_JSON_DEPTH, and a list past MAX_SESSION_BYTES: not taken
    const tooDeep = run(tasks, [created('t1', deep)], { limits })
    assert.equal(tooDeep.write, false)
    assert.equal(tooDeep.ignored, 1)
    const big = run(stored, [write('c2', ['A'.repeat(5000), 'pending'])], { limits })
    assert.equal(big.write, false)
    assert.equal(big.ignored, 1)
    // a staged input past the caps is not kept; past the byte budget, the oldest go first
    const stage = (id: string, input: unknown): ObservedEvent => ({
      kind: 'tool_call',
      target,
      call_id: id,
      name: 'TodoWrite',
      input,
      stage: true,
    })
    const kept = run(
      stored,
      [
        stage('s1', { deep }),
        stage('s2', { todos: 'x'.repeat(1500) }),
        stage('s3', { todos: 'y'.repeat(1500) }),
        stage('s4', { todos: 'z'.repeat(1500) }),
      ],
      { limits }
    ).session!
    assert.deepEqual(
      kept.observed!.pending.map((c) => c.id),
      ['s3', 's4']
    )
    assert.ok(Buffer.byteLength(JSON.stringify(kept.observed!.pending)) < 4096)
    // a call too large for what is left is the one left out: older, smaller ones still go in
    const small = (id: string) => stage(id, { todos: 's'.repeat(100) })
    const mixed = run(
      stored,
      [small('m1'), small('m2'), stage('m3', { todos: 'b'.repeat(4000) }), small('m4')],
      { limits }
    ).session!
    assert.deepEqual(
      mixed.observed!.pending.map((c) => c.id),
      ['m1', 'm2', 'm4']
    )
    // one at the depth limit is kept, one level deeper is not (the call counts as level 1)
    let atLimit: unknown = 'x'
    for (let i = 0; i < 7; i++) atLimit = { atLimit }
    const depth = run(stored, [stage('d1', atLimit), stage('d2', { atLimit })], { limits }).session!
    assert.deepEqual(
      depth.observed!.pending.map((c) => c.id),
      ['d1']
    )
  })

  it('Should stage calls and record applied ids within their bounds', () => {
    let stored = run(null, [write('c0', ['A', 'pending'])]).stored
    const many: ObservedEvent[] = Array.from({ length: 300 }, (_, i) =>
      write(`c${i + 1}`, ['A', i % 2 ? 'in_progress' : 'pending'])
    )
    stored = run(stored, many, { now: T0 + 1 }).stored
    assert.equal(stored!.observed!.applied.length, MAX_APPLIED_IDS * APPLIED_DIGEST_CHARS)
    assert.equal(stored!.observed!.applied.slice(-APPLIED_DIGEST_CHARS), appliedDigestOf('c300'))
    const calls: ObservedEvent[] = Array.from({ length: 40 }, (_, i) => ({
      kind: 'tool_call',
      target,
      call_id: `s${i}`,
      name: 'TodoWrite',
      input: { todos: [] },
      stage: true,
    }))
    stored = run(stored, calls, { now: T0 + 2 }).stored
    assert.equal(stored!.observed!.pending.length, MAX_STAGED_CALLS)
    assert.equal(stored!.observed!.pending[0].id, 's8')
  })
})

describe('ingest/apply: lifecycle', () => {
  const end = (outcome: any, specific: boolean, detail: string | null = null): ObservedEvent => ({
    kind: 'session_end',
    target,
    outcome,
    detail,
    specific,
  })

  it('Should keep the most specific end of a run, and open an ended session for a new run or a changed list', () => {
    const stored = run(null, [
      write('c1', ['A', 'in_progress']),
      end('max_turns', true, 'turns'),
    ]).stored!
    assert.equal(stored.ended!.outcome, 'max_turns')
    for (const later of [end('auto', false, 'other'), end('completed', true), end('error', true)]) {
      assert.equal(run(stored, [later]).write, false)
    }
    const cancelled = run(null, [write('c1', ['A', 'in_progress']), end('auto', false, 'other')])
    assert.deepEqual(cancelled.stored!.ended, {
      outcome: 'cancelled',
      detail: 'other',
      at: T0,
      unfinished: ['1'],
    })
    // the stream's own outcome replaces an exit without one
    assert.equal(
      run(cancelled.stored, [end('max_turns', true)]).stored!.ended!.outcome,
      'max_turns'
    )
    const resumed = run(stored, [{ kind: 'session_start', target, run: true }]).stored!
    assert.equal(resumed.ended, null)
    const reopened = run(stored, [write('c2', ['A', 'completed'])]).stored!
    assert.equal(reopened.ended, null)
    // a compaction, and a duplicate of the same list, do not
    assert.equal(run(stored, [{ kind: 'session_start', target, run: false }]).write, false)
    assert.equal(run(stored, [write('c9', ['A', 'in_progress'])]).write, false)
  })

  it('Should mark waiting for a person, clear it on the next event, and not wait once ended', () => {
    let stored = run(null, [write('c1', ['A', 'in_progress'])]).stored!
    stored = run(stored, [
      { kind: 'waiting', target, reason: 'idle_prompt', message: 'hi' },
    ]).stored!
    assert.deepEqual(stored.observed!.waiting, { reason: 'idle_prompt', message: 'hi', at: T0 })
    const same = run(stored, [{ kind: 'waiting', target, reason: 'idle_prompt', message: 'again' }])
    assert.equal(same.write, false)
    stored = run(stored, [activity]).stored!
    assert.equal(stored.observed!.waiting, null)
    stored = run(stored, [end('completed', true)]).stored!
    assert.equal(
      run(stored, [{ kind: 'waiting', target, reason: 'idle_prompt', message: null }]).write,
      false
    )
  })

  it('Should record that a Claude session has no todo tools, and take its family from init', () => {
    const none = run(null, [{ kind: 'session_start', target, run: true, tools: ['Bash', 'Read'] }])
    assert.equal(none.stored!.observed!.todo_tools, false)
    const tw = run(null, [
      { kind: 'session_start', target, run: true, tools: ['Bash', 'TodoWrite'] },
    ])
    assert.equal(tw.stored!.observed!.todo_tools, true)
    assert.equal(tw.stored!.dialect, 'claude-todowrite')
    const tasks = run(null, [
      { kind: 'session_start', target, run: true, tools: ['TaskCreate', 'TaskList'] },
    ])
    assert.equal(tasks.stored!.dialect, 'claude-tasks')
  })

  it("Should ignore the other Claude family's calls once a todo tool fixed the dialect", () => {
    const stored = run(null, [write('c1', ['A', 'pending'])]).stored!
    const other = run(stored, [
      {
        kind: 'tool_result',
        target,
        call_id: 't1',
        name: 'TaskCreate',
        is_error: false,
        structured: { task: { id: '1', subject: 'x' } },
      },
    ])
    assert.equal(other.write, false)
    assert.equal(other.ignored, 1)
  })

  it('Should refuse a session fed by rounds, and create a subagent list only once it has one', () => {
    const rounds = newSession(key, 's03', {}, T0)
    assert.throws(() => applyObserved(rounds, [activity], ctx()), NotObservedError)
    const sub = ctx({ key: { tenant: 't', sessionId: 'claude:s1:agent:a1' }, parent: 'claude:s1' })
    assert.equal(
      applyObserved(
        null,
        [{ kind: 'session_end', target, outcome: 'auto', detail: null, specific: false }],
        sub
      ).session,
      null
    )
    const created = applyObserved(null, [write('c1', ['A', 'pending'])], sub)
    assert.equal(created.session!.observed!.parent, 'claude:s1')
  })
})
