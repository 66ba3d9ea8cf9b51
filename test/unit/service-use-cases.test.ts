import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newSession, type Session, type SessionKey } from '../../src/core/session.js'
import { createMemoryStore } from '../../src/store/memory.js'
import type { ServiceDeps } from '../../src/service/deps.js'
import { ServiceError, type ErrorCode } from '../../src/service/errors.js'
import { DEFAULT_LIMITS } from '../../src/service/limits.js'
import { reportRound, runRound } from '../../src/service/rounds.js'
import { deleteSession, editList, endSession, loadSession } from '../../src/service/sessions.js'

const NOW = 1_800_000_000_000
const key: SessionKey = { tenant: 't', sessionId: 's1' }

function makeDeps(overrides: Partial<ServiceDeps> = {}): ServiceDeps {
  return {
    store: createMemoryStore({ ttlMs: 3_600_000, historyLimit: 10, now: () => NOW }),
    now: () => NOW,
    limits: DEFAULT_LIMITS,
    idempotencyTtlMs: 60_000,
    ...overrides,
  }
}

const write = (deps: ServiceDeps, session: Session) =>
  deps.store.update(key, () => ({ value: session, write: { session, source: 'put' } }))

const observed = (): Session => ({
  ...newSession(key, 's03', {}, NOW, 0),
  version: 1,
  observed: {
    source: 'claude-code',
    parent: null,
    agents: [],
    waiting: null,
    todo_tools: true,
    dialect_fixed: true,
    applied: '',
    pending: [],
    end_rank: 0,
    pending_edit: null,
  },
})

const item = { id: '1', content: 'a', status: 'pending' as const, blocks: [], blocked_by: [] }
const todo = (id: string) => ({
  tool_calls: [{ id, name: 'todo', input: { items: [{ id: '1', text: 'a', status: 'pending' }] } }],
})

async function refusal(promise: Promise<unknown>): Promise<ErrorCode> {
  const error = await promise.then(
    () => assert.fail('expected a ServiceError'),
    (e: unknown) => e
  )
  assert.ok(error instanceof ServiceError, String(error))
  return error.code
}

describe('service: rounds', () => {
  it('Should run a round without HTTP, and refuse one on an observed session', async () => {
    const deps = makeDeps()
    const counted: unknown[] = []
    const outcome = await runRound({ ...deps, onRound: (o) => counted.push(o) }, key, todo('c1'))
    assert.equal(outcome.session.version, 1)
    assert.equal(counted.length, 1)
    const other = makeDeps()
    await write(other, observed())
    assert.equal(await refusal(runRound(other, key, todo('c1'))), 'agent-owns-list')
  })

  it('Should replay an Idempotency-Key, refuse it with another body, and cap tool calls', async () => {
    const deps = makeDeps()
    const render = (o: { session: Session }) => `v${o.session.version}`
    const first = await reportRound(deps, key, todo('c1'), 'k', render)
    assert.deepEqual(first, { text: 'v1', replayed: false })
    assert.deepEqual(await reportRound(deps, key, todo('c1'), 'k', render), {
      text: 'v1',
      replayed: true,
    })
    assert.equal((await loadSession(deps, key)).version, 1)
    assert.equal(
      await refusal(reportRound(deps, key, todo('c2'), 'k', render)),
      'idempotency-key-reused'
    )
    const capped = makeDeps({ limits: { ...DEFAULT_LIMITS, maxToolCalls: 1 } })
    const two = { tool_calls: [...todo('a').tool_calls, ...todo('b').tool_calls] }
    assert.equal(
      await refusal(reportRound(capped, key, two, undefined, render)),
      'too-many-tool-calls'
    )
  })
})

describe('service: sessions', () => {
  it('Should edit a list, and refuse a stale If-Match', async () => {
    const deps = makeDeps()
    const edited: Session[] = []
    const session = await editList({ ...deps, onEdit: (s) => edited.push(s) }, key, {
      items: [item],
      untrusted: false,
    })
    assert.equal(session.version, 1)
    assert.equal(edited.length, 1)
    const stale = { header: '"0"', matches: (current: Session | null) => current?.version === 0 }
    assert.equal(
      await refusal(editList(deps, key, { items: [item], ifMatch: stale, untrusted: false })),
      'version-mismatch'
    )
  })

  it('Should pend a trusted edit of an observed session, and refuse an untrusted one', async () => {
    const deps = makeDeps()
    await write(deps, observed())
    assert.equal(
      await refusal(editList(deps, key, { items: [item], untrusted: true })),
      'untrusted-edit'
    )
    const pending = await editList(deps, key, { items: [item], untrusted: false })
    assert.deepEqual(
      pending.observed?.pending_edit?.items.map((i) => i.id),
      ['1']
    )
    assert.equal(pending.items.length, 0)
  })

  it('Should end and delete a session, and refuse both for a session not there', async () => {
    const deps = makeDeps()
    await editList(deps, key, { items: [item], untrusted: false })
    const ended = await endSession(deps, key, { outcome: 'completed' })
    assert.deepEqual(ended.ended, {
      outcome: 'completed',
      detail: null,
      at: NOW,
      unfinished: ['1'],
    })
    await deleteSession(deps, key)
    assert.equal(await refusal(deleteSession(deps, key)), 'session-not-found')
    assert.equal(await refusal(endSession(deps, key, { outcome: 'error' })), 'session-not-found')
  })
})
