import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AGENTS } from '../../src/agents/index.js'
import { DEFAULT_LIST_LIMITS } from '../../src/core/limits.js'
import { deliverObserved, type ObservedDelivery } from '../../src/service/deliver-observed.js'
import { ServiceError } from '../../src/service/errors.js'
import { createMemoryStore } from '../../src/store/memory.js'

const T0 = Date.parse('2026-11-30T12:00:00Z')
const agent = AGENTS['claude-agent-sdk']
const [route] = agent.routes

const deps = () => ({
  store: createMemoryStore({ ttlMs: 3_600_000, historyLimit: 50, now: () => T0 }),
  now: () => T0,
  limits: { ...DEFAULT_LIST_LIMITS, maxSessionsPerTenant: 0 },
  staleAfterMs: 900_000,
})

/** A TodoWrite of a list of one item, by the main session or a subagent. */
const todoWrite = (id: string, content: string, agentId?: string) => [
  {
    type: 'assistant',
    session_id: 's1',
    ...(agentId ? { agent_id: agentId } : {}),
    message: {
      content: [
        {
          type: 'tool_use',
          id,
          name: 'TodoWrite',
          input: { todos: [{ content, status: 'pending', activeForm: content }] },
        },
      ],
    },
  },
  {
    type: 'user',
    session_id: 's1',
    ...(agentId ? { agent_id: agentId } : {}),
    message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
    tool_use_result: {
      oldTodos: [],
      newTodos: [{ content, status: 'pending', activeForm: content }],
    },
  },
]

const delivery = (lines: unknown[], over: Partial<ObservedDelivery> = {}): ObservedDelivery => ({
  tenant: 't',
  agent,
  body: lines.map((line) => JSON.stringify(line)).join('\n'),
  parse: (body) => route.parse(body, {}),
  charge: () => Promise.resolve(),
  ...over,
})

const rejectsWith = (code: string) => (error: unknown) =>
  error instanceof ServiceError && error.code === code

describe('service/deliver-observed', () => {
  it("Should apply a delivery to the agent's session and say what it did", async () => {
    const d = deps()
    const parsed: string[] = []
    const outcome = await deliverObserved(
      d,
      delivery(todoWrite('c1', 'A'), {
        onParsed: (events) => parsed.push(...events.map((e) => e.kind)),
      })
    )
    assert.deepEqual(outcome, {
      session_id: 'claude:s1',
      version: 1,
      applied: 2,
      ignored: 0,
      edit: null,
    })
    assert.deepEqual(parsed, ['tool_call', 'tool_result'])
    assert.equal(
      (await d.store.get({ tenant: 't', sessionId: 'claude:s1' }))?.items[0].content,
      'A'
    )
  })

  it('Should charge the sessions beyond the first before applying, and apply nothing when refused', async () => {
    const d = deps()
    const charges: [number, boolean][] = []
    const lines = [...todoWrite('c1', 'A', 'k1'), ...todoWrite('c2', 'B')]
    await deliverObserved(
      d,
      delivery(lines, {
        charge: (units, refuse) => {
          charges.push([units, refuse])
          return Promise.resolve()
        },
      })
    )
    assert.deepEqual(charges, [[1, true]])
    const refused = deps()
    const no = new Error('refused')
    await assert.rejects(
      deliverObserved(
        refused,
        delivery(lines, {
          charge: () => Promise.reject(no),
        })
      ),
      (error) => error === no
    )
    assert.equal(await refused.store.get({ tenant: 't', sessionId: 'claude:s1' }), null)
  })

  it('Should refuse a body that is not the agent’s, one naming no session, and a client gone away, with typed errors', async () => {
    await assert.rejects(
      deliverObserved(deps(), { ...delivery([]), body: '{"no":' }),
      rejectsWith('invalid-ingest-body')
    )
    await assert.rejects(
      deliverObserved(deps(), delivery([{ type: 'system', subtype: 'status' }])),
      rejectsWith('session-unknown')
    )
    const gone = new AbortController()
    gone.abort()
    await assert.rejects(
      deliverObserved(deps(), delivery(todoWrite('c1', 'A'), { signal: gone.signal })),
      rejectsWith('delivery-aborted')
    )
  })
})
