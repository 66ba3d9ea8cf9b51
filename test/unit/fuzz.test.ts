/**
 * Property-based hostile input: random bodies, headers and paths on every route. The seed is
 * printed; rerun a failure with FUZZ_SEED=<seed>.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { DIALECT_NAMES } from '../../src/dialects/registry.js'
import { parseAuthKeys } from '../../src/http/auth.js'
import { makeTestApp } from '../helpers.js'

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
const RUNS = Number(process.env.FUZZ_RUNS ?? 150)
const TIME_LIMIT_MS = 25_000

/** Dialects that allow at most one item in progress. */
const ONE_IN_PROGRESS = new Set(['s03', 'gemini-todos'])

const sessionId = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('s1', 's2', 'a.b:c-d_e') },
  { weight: 1, arbitrary: fc.string({ maxLength: 140 }) }
)

const status = fc.oneof(
  fc.constantFrom(
    'pending',
    'in_progress',
    'completed',
    'cancelled',
    'blocked',
    'todo',
    'done',
    'deleted',
    'IN_PROGRESS'
  ),
  fc.anything()
)

const todoItem = fc.record(
  {
    id: fc.oneof(fc.constantFrom('1', '2', '3'), fc.anything()),
    text: fc.oneof(fc.string(), fc.anything()),
    content: fc.oneof(fc.string(), fc.anything()),
    description: fc.string(),
    subject: fc.string(),
    step: fc.string(),
    title: fc.string(),
    activeForm: fc.string(),
    status,
    __proto__: fc.constant({ polluted: true }),
  },
  { requiredKeys: [] }
)

const toolInput = fc.oneof(
  fc.record(
    { items: fc.oneof(fc.array(todoItem, { maxLength: 25 }), fc.anything()) },
    { requiredKeys: [] }
  ),
  fc.record(
    { todos: fc.oneof(fc.array(todoItem, { maxLength: 6 }), fc.string()) },
    { requiredKeys: [] }
  ),
  fc.record(
    { plan: fc.array(todoItem, { maxLength: 6 }), explanation: fc.string() },
    { requiredKeys: [] }
  ),
  fc.record(
    {
      command: fc.constantFrom('view', 'plan', 'x'),
      task_list: fc.array(todoItem, { maxLength: 6 }),
    },
    { requiredKeys: [] }
  ),
  fc.record(
    {
      subject: fc.string(),
      description: fc.string(),
      taskId: fc.oneof(fc.constantFrom('1', '2'), fc.anything()),
      status,
      addBlocks: fc.anything(),
      metadata: fc.anything(),
    },
    { requiredKeys: [] }
  ),
  fc.anything()
)

const toolName = fc.constantFrom(
  'todo',
  'TodoWrite',
  'TaskCreate',
  'TaskGet',
  'TaskUpdate',
  'TaskList',
  'update_plan',
  'write_todos',
  'task_tracker',
  'bash',
  'read_file'
)

const toolCall = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 20 }), fc.anything()),
    name: fc.oneof({ weight: 8, arbitrary: toolName }, { weight: 1, arbitrary: fc.anything() }),
    input: toolInput,
    arguments: fc.oneof(
      toolInput.map((v) => JSON.stringify(v) ?? ''),
      fc.string()
    ),
    args: toolInput,
  },
  { requiredKeys: ['name'] }
)

const roundBody = fc.record(
  {
    dialect: fc.oneof(fc.constantFrom(...DIALECT_NAMES), fc.anything()),
    tool_calls: fc.oneof(fc.array(toolCall, { minLength: 1, maxLength: 4 }), fc.anything()),
    settings: fc.anything(),
  },
  { requiredKeys: ['tool_calls'] }
)

const canonicalItem = fc.record(
  {
    id: fc.oneof(fc.constantFrom('1', '2', '3'), fc.string({ maxLength: 5 })),
    content: fc.string({ maxLength: 30 }),
    status: fc.constantFrom('pending', 'in_progress', 'completed', 'cancelled', 'blocked'),
    active_form: fc.string({ maxLength: 10 }),
    blocks: fc.array(fc.constantFrom('1', '2', '3'), { maxLength: 2 }),
    metadata: fc.dictionary(fc.string({ maxLength: 5 }), fc.anything()),
  },
  { requiredKeys: ['id', 'content', 'status'] }
)

const putBody = fc.record(
  {
    items: fc.oneof(fc.array(canonicalItem, { maxLength: 6 }), fc.anything()),
    dialect: fc.anything(),
  },
  { requiredKeys: [] }
)

const rawBody = fc.oneof(
  fc.json().map((json) => json),
  fc.string(),
  fc.constantFrom(
    '{',
    '[',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}'
  )
)

const body = (shape: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 5, arbitrary: shape.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: rawBody }
  )

const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/problem+json',
      ''
    ),
    'if-match': fc.oneof(fc.constantFrom('"1"', '"2"', '*', 'W/"1"'), fc.string({ maxLength: 20 })),
    'if-none-match': fc.oneof(fc.constantFrom('"1"', '*'), fc.string({ maxLength: 20 })),
    'idempotency-key': fc.oneof(fc.constantFrom('k1', 'k2'), fc.string({ maxLength: 300 })),
    authorization: fc.oneof(
      fc.constantFrom('Bearer acme-agent-key-1', 'Bearer acme-view-key-1', 'Bearer nope'),
      fc.string()
    ),
  },
  { requiredKeys: [] }
)

const ascii = (text: string) => /^[\x20-\x7e]*$/.test(text)

const request = fc.oneof(
  fc.record({
    method: fc.constant('POST'),
    path: sessionId.map((id) => `/v1/sessions/${encodeURIComponent(id)}/rounds`),
    body: body(roundBody),
    headers,
  }),
  fc.record({
    method: fc.constant('PUT'),
    path: sessionId.map((id) => `/v1/sessions/${encodeURIComponent(id)}/todos`),
    body: body(putBody),
    headers,
  }),
  fc.record({
    method: fc.constant('POST'),
    path: sessionId.map((id) => `/v1/sessions/${encodeURIComponent(id)}/end`),
    body: body(
      fc.record({
        outcome: fc.oneof(fc.constantFrom('completed', 'max_turns'), fc.anything()),
        detail: fc.anything(),
      })
    ),
    headers,
  }),
  fc.record({
    method: fc.constantFrom('GET', 'DELETE', 'PATCH', 'HEAD'),
    path: fc
      .tuple(sessionId, fc.constantFrom('', '/render', '/history', '/history?limit=-3', '/rounds'))
      .map(([id, tail]) => `/v1/sessions/${encodeURIComponent(id)}${tail}`),
    body: fc.constant(undefined),
    headers,
  }),
  fc.record({
    method: fc.constant('GET'),
    path: fc
      .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
      .map(
        ([a, b]) =>
          `/v1/sessions?state=${encodeURIComponent(a)}&limit=${encodeURIComponent(b)}&cursor=${encodeURIComponent(a + b)}`
      ),
    body: fc.constant(undefined),
    headers,
  }),
  fc.record({
    method: fc.constant('GET'),
    path: fc
      .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
      .map(
        ([a, b]) => `/v1/tools?dialect=${encodeURIComponent(a)}&format=${encodeURIComponent(b)}`
      ),
    body: fc.constant(undefined),
    headers,
  })
)

describe('Hostile input (fast-check)', () => {
  it(`Should never answer 5xx, never change state on a rejection, keep versions monotonic (seed ${SEED})`, async () => {
    console.log(`# fuzz seed ${SEED} (rerun with FUZZ_SEED=${SEED})`)
    const keyed = parseAuthKeys('acme:agent:acme-agent-key-1,acme:viewer:acme-view-key-1')
    await fc.assert(
      fc.asyncProperty(
        fc.array(request, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (requests, withKeys) => {
          const t = makeTestApp(withKeys ? { keys: keyed } : {})
          const tenant = withKeys ? 'acme' : 'default'
          const snapshot = async () => {
            const states = await Promise.all(
              ['s1', 's2', 'a.b:c-d_e'].map((id) => t.store.get({ tenant, sessionId: id }))
            )
            return JSON.stringify(states)
          }
          const versions = new Map<string, number>()
          for (const req of requests) {
            const hdrs = Object.fromEntries(Object.entries(req.headers).filter(([, v]) => ascii(v)))
            const before = await snapshot()
            const res = await t.app.request(req.path, {
              method: req.method,
              headers: hdrs,
              body: req.body,
            })
            const text = await res.text()
            assert.ok(res.status < 500, `${req.method} ${req.path} → ${res.status} ${text}`)
            if (res.status >= 400) {
              assert.equal(
                await snapshot(),
                before,
                `${req.method} ${req.path} → ${res.status} changed state`
              )
              if (req.method !== 'HEAD')
                assert.match(res.headers.get('content-type') ?? '', /problem\+json/)
            }
            for (const id of ['s1', 's2', 'a.b:c-d_e']) {
              const session = await t.store.get({ tenant, sessionId: id })
              if (!session) {
                versions.delete(id)
                continue
              }
              assert.ok(session.version >= (versions.get(id) ?? 0), 'versions never go back')
              versions.set(id, session.version)
              if (ONE_IN_PROGRESS.has(session.dialect)) {
                const working = session.items.filter((item) => item.status === 'in_progress').length
                assert.ok(working <= 1, `${session.dialect}: ${working} items in progress`)
              }
            }
            assert.equal(({} as Record<string, unknown>).polluted, undefined, 'prototype polluted')
            assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false)
          }
        }
      ),
      {
        seed: SEED,
        numRuns: RUNS,
        interruptAfterTimeLimit: TIME_LIMIT_MS,
        markInterruptAsFailure: false,
      }
    )
  })
})
