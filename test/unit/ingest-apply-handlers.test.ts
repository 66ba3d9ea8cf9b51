import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_LIST_LIMITS, newLimitCache } from '../../src/core/limits.js'
import { newSession, type Session } from '../../src/core/session.js'
import { newObserved } from '../../src/ingest/apply.js'
import {
  applyEvent,
  HANDLERS,
  stateOf,
  type ApplyState,
  type HandlerContext,
} from '../../src/ingest/apply-handlers.js'
import { AppliedIds } from '../../src/ingest/applied-ids.js'
import type { ObservedEvent } from '../../src/ingest/events.js'

const T0 = Date.parse('2026-11-30T12:00:00Z')
const target = { session: 's1' }

/** A new observed Claude session, as a delivery's first update makes it. */
const session = (): Session => ({
  ...newSession({ tenant: 't', sessionId: 'claude:s1' }, 'claude-tasks', { reminder: false }, T0),
  observed: newObserved('claude-code', null),
})

const ctxOf = (over: Partial<HandlerContext> = {}): HandlerContext => ({
  family: 'claude',
  now: T0,
  limits: DEFAULT_LIST_LIMITS,
  limitCache: newLimitCache(),
  ledger: { appliedIds: new AppliedIds(''), staged: new Map(), transient: new Set() },
  ...over,
})

const todoWrite = (id: string, status = 'pending'): ObservedEvent & { kind: 'tool_result' } => ({
  kind: 'tool_result',
  target,
  call_id: id,
  name: 'TodoWrite',
  is_error: false,
  structured: { oldTodos: [], newTodos: [{ content: 'A', status, activeForm: 'A' }] },
})

const ended = (state: ApplyState): ApplyState => ({
  ...state,
  ended: { outcome: 'completed', detail: null, at: T0, unfinished: [] },
  endRank: 1,
})

describe('ingest/apply-handlers: one handler per event kind', () => {
  it('Should count an ignored event and change nothing else', () => {
    const state = stateOf(session())
    const next = HANDLERS.ignored(state, { kind: 'ignored', target, what: 'x' }, ctxOf())
    assert.deepEqual(next, { ...state, ignored: 1 })
  })

  it('Should take activity as alive, no longer waiting, and ignored', () => {
    const state = {
      ...stateOf(session()),
      waiting: { reason: 'idle_prompt', message: null, at: 0 },
    }
    const next = HANDLERS.activity(state, { kind: 'activity', target, what: 'Stop' }, ctxOf())
    assert.deepEqual(next, { ...state, waiting: null, alive: true, ignored: 1 })
  })

  it('Should stage a call once, keep only a staged one past the delivery, and not stage past the caps', () => {
    const ctx = ctxOf()
    const call = (
      id: string,
      stage: boolean,
      input: unknown = { todos: [] }
    ): ObservedEvent & {
      kind: 'tool_call'
    } => ({ kind: 'tool_call', target, call_id: id, name: 'TodoWrite', input, stage })
    let state = HANDLERS.tool_call(stateOf(session()), call('c1', true), ctx)
    assert.equal(state.applied, 1)
    assert.equal(ctx.ledger.staged.get('c1')?.bytes, JSON.stringify({ todos: [] }).length)
    state = HANDLERS.tool_call(state, call('c1', true), ctx)
    assert.equal(state.ignored, 1)
    state = HANDLERS.tool_call(state, call('c2', false), ctx)
    assert.deepEqual([...ctx.ledger.transient], ['c2'])
    const huge = 'x'.repeat(DEFAULT_LIST_LIMITS.maxSessionBytes + 1)
    state = HANDLERS.tool_call(state, call('c3', true, { huge }), ctx)
    assert.equal(ctx.ledger.staged.has('c3'), false)
    assert.deepEqual([state.applied, state.ignored, state.alive], [2, 2, true])
  })

  it('Should apply a todo result through the observer, once, fixing the dialect', () => {
    const ctx = ctxOf()
    const state = HANDLERS.tool_result(stateOf(session()), todoWrite('c1'), ctx)
    assert.deepEqual(
      state.items.map((item) => [item.content, item.status]),
      [['A', 'pending']]
    )
    assert.deepEqual(
      [state.dialect, state.dialectFixed, state.todoTools],
      ['claude-todowrite', true, true]
    )
    assert.ok(ctx.ledger.appliedIds.has('c1'))
    const again = HANDLERS.tool_result(state, todoWrite('c1', 'completed'), ctx)
    assert.deepEqual(again, { ...state, ignored: 1 })
  })

  it("Should ignore another tool's result, a failed call, and the other Claude family's call", () => {
    const ctx = ctxOf()
    const other = HANDLERS.tool_result(
      stateOf(session()),
      { kind: 'tool_result', target, call_id: 'b1', name: 'Bash', is_error: false },
      ctx
    )
    assert.deepEqual([other.ignored, ctx.ledger.appliedIds.has('b1')], [1, false])
    const failed = HANDLERS.tool_result(other, { ...todoWrite('c1'), is_error: true }, ctx)
    assert.deepEqual(
      [failed.ignored, failed.items.length, ctx.ledger.appliedIds.has('c1')],
      [2, 0, true]
    )
    const fixed = HANDLERS.tool_result(failed, todoWrite('c2'), ctx)
    const task = HANDLERS.tool_result(
      fixed,
      {
        kind: 'tool_result',
        target,
        call_id: 't1',
        name: 'TaskList',
        is_error: false,
        structured: { tasks: [] },
      },
      ctx
    )
    assert.deepEqual([task.ignored, task.dialect], [3, 'claude-todowrite'])
  })

  it('Should open an ended run again when the list changes, and not when it stays', () => {
    const ctx = ctxOf()
    const listed = HANDLERS.tool_result(stateOf(session()), todoWrite('c1'), ctx)
    const same = HANDLERS.tool_result(ended(listed), todoWrite('c2'), ctx)
    assert.equal(same.ended?.outcome, 'completed')
    const changed = HANDLERS.tool_result(ended(listed), todoWrite('c3', 'completed'), ctx)
    assert.deepEqual([changed.ended, changed.endRank], [null, 0])
  })

  it("Should take the dialect from the start's tools until a todo call fixes it, and open a new run", () => {
    const start = (tools?: string[], run = false): ObservedEvent & { kind: 'session_start' } => ({
      kind: 'session_start',
      target,
      run,
      tools,
    })
    const state = stateOf(session())
    const todoWriter = HANDLERS.session_start(state, start(['Bash', 'TodoWrite']), ctxOf())
    assert.deepEqual(
      [todoWriter.dialect, todoWriter.todoTools, todoWriter.applied],
      ['claude-todowrite', true, 1]
    )
    const none = HANDLERS.session_start(state, start(['Bash']), ctxOf())
    assert.deepEqual([none.dialect, none.todoTools], ['claude-tasks', false])
    const fixed = { ...state, dialectFixed: true }
    assert.equal(
      HANDLERS.session_start(fixed, start(['TodoWrite']), ctxOf()).dialect,
      'claude-tasks'
    )
    assert.equal(HANDLERS.session_start(ended(state), start(undefined, true), ctxOf()).ended, null)
    assert.notEqual(HANDLERS.session_start(ended(state), start(), ctxOf()).ended, null)
  })

  it('Should end a run, keeping the more specific end, and flag its subagents', () => {
    const end = (
      outcome: 'auto' | 'max_turns',
      specific: boolean,
      all = false
    ): ObservedEvent & { kind: 'session_end' } => ({
      kind: 'session_end',
      target,
      outcome,
      detail: null,
      specific,
      all,
    })
    const ctx = ctxOf()
    const listed = HANDLERS.tool_result(stateOf(session()), todoWrite('c1'), ctx)
    const exited = HANDLERS.session_end(listed, end('auto', false, true), ctx)
    assert.deepEqual(exited.ended, {
      outcome: 'cancelled',
      detail: null,
      at: T0,
      unfinished: [listed.items[0].id],
    })
    assert.deepEqual([exited.endRank, exited.endAgents, exited.applied], [0, true, 2])
    const specific = HANDLERS.session_end(exited, end('max_turns', true), ctx)
    assert.deepEqual([specific.ended?.outcome, specific.endRank], ['max_turns', 4])
    const later = HANDLERS.session_end(specific, end('auto', false), ctx)
    assert.deepEqual(later, { ...specific, ignored: specific.ignored + 1 })
  })

  it('Should mark waiting once per reason, and not once the run ended', () => {
    const wait = (reason: string): ObservedEvent & { kind: 'waiting' } => ({
      kind: 'waiting',
      target,
      reason,
      message: reason,
    })
    const first = HANDLERS.waiting(stateOf(session()), wait('idle_prompt'), ctxOf())
    assert.deepEqual(first.waiting, { reason: 'idle_prompt', message: 'idle_prompt', at: T0 })
    const same = HANDLERS.waiting(first, wait('idle_prompt'), ctxOf({ now: T0 + 1 }))
    assert.equal(same.waiting, first.waiting)
    const over = HANDLERS.waiting(ended(stateOf(session())), wait('permission_prompt'), ctxOf())
    assert.deepEqual([over.waiting, over.ignored, over.alive], [null, 1, true])
  })

  it('Should apply a lifecycle event with an id of its own once, and a replayed one not at all', () => {
    const ctx = ctxOf({ replayed: new Set(['e0']) })
    const start = (id: string): ObservedEvent => ({ kind: 'session_start', target, id, run: true })
    let state = applyEvent(stateOf(session()), start('e1'), ctx)
    state = applyEvent(state, start('e1'), ctx)
    state = applyEvent(state, start('e0'), ctx)
    assert.deepEqual([state.applied, state.ignored], [1, 2])
    assert.equal(ctx.ledger.appliedIds.has('e0'), false)
  })
})
