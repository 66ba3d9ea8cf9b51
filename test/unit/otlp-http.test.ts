/**
 * `POST /v1/otlp/v1/{logs,traces,metrics}` as OTLP/HTTP 1.x: protobuf and JSON, gzip within the
 * body limit (a gzip bomb included), the export response (`partialSuccess`) in the request's
 * encoding, 400 / 413 / 415, the key; the logs messages checked against the OpenTelemetry JS SDK's
 * own serializers; telemetry and hooks feeding one session, the hooks' view winning.
 */
import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import { describe, it } from 'node:test'
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { parseAuthKeys } from '../../src/http/auth.js'
import { OTLP_MESSAGES } from '../../src/ingest/otlp/proto.js'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, postHooks, view } from '../ingest-support.js'
import { capture, postOtlp, replay } from '../otlp-support.js'

const CODEX_PLAN = 'codex-0.171.0/update-plan-binary'
const CODEX_SESSION = 'codex:01a2352f-a904-7fa2-b06e-54b5a8dcc5b9'

/** The capture's logs requests, as one export. */
function logsOf(name: string) {
  const resourceLogs = capture(name)
    .filter((request) => request.signal === 'logs')
    .flatMap((request) => request.body.resourceLogs as unknown[])
  return { resourceLogs }
}

/** One Codex `update_plan` result record, as Codex exports it. */
function planRecord(callId: string, plan: unknown, success = true) {
  const attr = (key: string, value: string) => ({ key, value: { stringValue: value } })
  return {
    resourceLogs: [
      {
        resource: { attributes: [attr('service.name', 'codex_exec'), attr('host.name', 'box')] },
        scopeLogs: [
          {
            scope: { name: 'codex_otel.log_only' },
            logRecords: [
              {
                timeUnixNano: '0',
                observedTimeUnixNano: '1796188645973584362',
                attributes: [
                  attr('event.name', 'codex.tool_result'),
                  attr('tool_name', 'update_plan'),
                  attr('call_id', callId),
                  attr('success', String(success)),
                  attr('arguments', JSON.stringify({ plan })),
                  attr('output', success ? 'Plan updated' : 'failed to parse function arguments'),
                  attr('conversation.id', 'conv-1'),
                  { key: 'tool_result_seq', value: { intValue: '1' } },
                ],
              },
            ],
          },
        ],
      },
    ],
  }
}

const PLAN = [
  { step: 'One', status: 'completed' },
  { step: 'Two', status: 'in_progress' },
]

describe('OTLP/HTTP transport', () => {
  it('Should take gzip bodies, JSON and protobuf', async () => {
    for (const encoding of ['json', 'protobuf'] as const) {
      const t = makeTestApp()
      await replay(t, CODEX_PLAN, { encoding, gzip: true })
      const session = await view(t, CODEX_SESSION)
      assert.equal(session.items.length, 3)
      assert.ok(session.items.every((item: any) => item.status === 'completed'))
    }
  })

  it('Should answer the export response in the encoding of the request', async () => {
    const t = makeTestApp()
    const json = await postOtlp(t, 'logs', planRecord('c1', PLAN))
    assert.equal(json.status, 200)
    assert.match(json.headers.get('content-type')!, /application\/json/)
    assert.deepEqual(await json.json(), {})
    const proto = await postOtlp(t, 'logs', planRecord('c2', PLAN), { encoding: 'protobuf' })
    assert.equal(proto.status, 200)
    assert.equal(proto.headers.get('content-type'), 'application/x-protobuf')
    const decoded = OTLP_MESSAGES.logs.response.decode(new Uint8Array(await proto.arrayBuffer()))
    assert.deepEqual(JSON.parse(JSON.stringify(decoded)), {})
  })

  it('Should count records it cannot apply in partialSuccess, JSON and protobuf', async () => {
    const t = makeTestApp()
    const noSession = planRecord('c1', PLAN)
    const attrs = noSession.resourceLogs[0].scopeLogs[0].logRecords[0].attributes
    attrs.splice(
      attrs.findIndex((a) => a.key === 'conversation.id'),
      1
    )
    const json = await postOtlp(t, 'logs', noSession)
    assert.equal(json.status, 200)
    const body: any = await json.json()
    assert.equal(body.partialSuccess.rejectedLogRecords, 1)
    assert.match(body.partialSuccess.errorMessage, /conversation\.id/)
    const proto = await postOtlp(t, 'logs', noSession, { encoding: 'protobuf' })
    const decoded: any = OTLP_MESSAGES.logs.response.decode(
      new Uint8Array(await proto.arrayBuffer())
    )
    assert.equal(Number(decoded.partialSuccess.rejectedLogRecords), 1)
    assert.match(decoded.partialSuccess.errorMessage, /conversation\.id/)
  })

  it('Should reject, and count, the records of a session that rounds feed', async () => {
    const t = makeTestApp()
    const put = await t.call('PUT', '/v1/sessions/codex:conv-1/todos', {
      items: [{ id: '1', content: 'mine', status: 'pending' }],
    })
    assert.equal(put.status, 200, put.text)
    const res = await postOtlp(t, 'logs', planRecord('c1', PLAN))
    assert.equal(res.status, 200)
    const body: any = await res.json()
    assert.equal(body.partialSuccess.rejectedLogRecords, 1)
    assert.match(body.partialSuccess.errorMessage, /rounds/)
    assert.equal((await view(t, 'codex:conv-1')).items[0].content, 'mine')
  })

  it('Should answer 415 for another content type or encoding', async () => {
    const t = makeTestApp()
    for (const type of ['text/plain', 'application/x-ndjson', 'application/grpc']) {
      const res = await postOtlp(t, 'logs', planRecord('c1', PLAN), {
        headers: { 'Content-Type': type },
      })
      assert.equal(res.status, 415, type)
      assert.match(res.headers.get('content-type')!, /problem\+json/)
    }
    const res = await postOtlp(t, 'logs', planRecord('c1', PLAN), {
      headers: { 'Content-Encoding': 'br' },
    })
    assert.equal(res.status, 415)
  })

  it('Should answer 413 past BODY_LIMIT_BYTES, and for a gzip bomb, applying nothing', async () => {
    const t = makeTestApp({ bodyLimitBytes: 64 * 1024 })
    const big = planRecord('c1', [{ step: 'x'.repeat(70 * 1024), status: 'pending' }])
    assert.equal((await postOtlp(t, 'logs', big)).status, 413)
    // a small body that inflates past the limit (32 MB of zeros gzip to ~32 KB)
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024))
    assert.ok(bomb.length < 64 * 1024)
    for (const type of ['application/x-protobuf', 'application/json']) {
      const res = await postOtlp(t, 'logs', bomb, {
        headers: { 'Content-Type': type, 'Content-Encoding': 'gzip' },
      })
      assert.equal(res.status, 413, type)
    }
    // a body under the limit compressed counts as it inflates; a small one is taken
    assert.equal((await postOtlp(t, 'logs', big, { gzip: true })).status, 413)
    assert.equal((await postOtlp(t, 'logs', planRecord('c2', PLAN), { gzip: true })).status, 200)
    assert.equal((await view(t, 'codex:conv-1')).items.length, 2)
  })

  it('Should answer 400 for a body it cannot decode, applying nothing', async () => {
    const t = makeTestApp()
    const cases: [string, Uint8Array, Record<string, string>][] = [
      ['protobuf garbage', new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), {}],
      ['JSON that does not parse', Buffer.from('{"resourceLogs": ['), {}],
      ['JSON that is no export', Buffer.from('{"resourceLogs": 3}'), {}],
      ['not gzip', Buffer.from('plain'), { 'Content-Encoding': 'gzip' }],
    ]
    for (const [what, bytes, headers] of cases) {
      const type = what.startsWith('protobuf') ? 'application/x-protobuf' : 'application/json'
      const res = await postOtlp(t, 'logs', bytes, {
        headers: { 'Content-Type': type, ...headers },
      })
      assert.equal(res.status, 400, what)
      assert.match(res.headers.get('content-type')!, /problem\+json/, what)
    }
    const listing = await t.call('GET', '/v1/sessions')
    assert.equal(listing.body.sessions.length, 0)
  })

  it('Should accept and ignore metrics', async () => {
    const t = makeTestApp()
    for (const request of capture('codex-0.171.0/update-plan').filter(
      (r) => r.signal === 'metrics'
    )) {
      for (const encoding of ['json', 'protobuf'] as const) {
        const res = await postOtlp(t, 'metrics', request.body, { encoding })
        assert.equal(res.status, 200)
        if (encoding === 'json') assert.deepEqual(await res.json(), {})
      }
    }
    assert.equal((await t.call('GET', '/v1/sessions')).body.sessions.length, 0)
  })

  it('Should want the key as every /v1 route (OTEL_EXPORTER_OTLP_HEADERS)', async () => {
    const t = makeTestApp({ keys: parseAuthKeys('acme:agent:agent-key-123') })
    assert.equal((await postOtlp(t, 'logs', planRecord('c1', PLAN))).status, 401)
    const res = await postOtlp(t, 'logs', planRecord('c1', PLAN), {
      headers: { Authorization: 'Bearer agent-key-123' },
    })
    assert.equal(res.status, 200)
  })

  it('Should read a gzip protobuf export in one piece with a replayed record applied once', async () => {
    const t = makeTestApp()
    const body = logsOf(CODEX_PLAN)
    await postOtlp(t, 'logs', body, { encoding: 'protobuf', gzip: true })
    const first = await view(t, CODEX_SESSION)
    await postOtlp(t, 'logs', body, { encoding: 'protobuf', gzip: true })
    assert.equal((await view(t, CODEX_SESSION)).version, first.version)
  })
})

describe('OTLP logs messages against the OpenTelemetry JS SDK', () => {
  /** A Codex-like update_plan record, as the SDK's logs pipeline hands it to its exporter. */
  const sdkRecord = (plan: unknown) => ({
    hrTime: [1796188645, 973584362] as [number, number],
    hrTimeObserved: [1796188645, 973584362] as [number, number],
    severityNumber: 9,
    severityText: 'INFO',
    body: 'codex.tool_result',
    eventName: 'codex.tool_result',
    attributes: {
      'event.name': 'codex.tool_result',
      tool_name: 'update_plan',
      call_id: 'sdk-call',
      success: 'true',
      arguments: JSON.stringify({ plan }),
      'conversation.id': 'sdk-conv',
      tool_result_seq: 7,
      duration_ms: 1.5,
      output_truncated: false,
      tags: ['a', 'b'],
    },
    droppedAttributesCount: 0,
    resource: resourceFromAttributes({ 'service.name': 'codex_exec', 'service.version': '9.9.9' }),
    instrumentationScope: { name: 'codex_otel.log_only' },
    spanContext: {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    },
  })

  for (const [encoding, serializer] of [
    ['protobuf', ProtobufLogsSerializer],
    ['json', JsonLogsSerializer],
  ] as const) {
    it(`Should read the SDK's own ${encoding} logs export`, async () => {
      const t = makeTestApp()
      const bytes = serializer.serializeRequest([sdkRecord(PLAN) as never])!
      const res = await postOtlp(t, 'logs', bytes, {
        headers: {
          'Content-Type': encoding === 'json' ? 'application/json' : 'application/x-protobuf',
        },
      })
      assert.equal(res.status, 200)
      const session = await view(t, 'codex:sdk-conv')
      assert.deepEqual(
        session.items.map((item: any) => [item.status, item.content]),
        [
          ['completed', 'One'],
          ['in_progress', 'Two'],
        ]
      )
      assert.equal(session.origin.agent_version, '9.9.9')
    })
  }
})

describe('Hooks and telemetry feeding one session', () => {
  it("Should keep the hooks' list when the same Codex calls arrive by telemetry", async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('codex/real-plan.json')
    await postHooks(t, 'codex', hooks)
    const id = `codex:${hooks[0].session_id}`
    const before = await view(t, id)
    // telemetry of the same conversation, an older plan: the hooks' view wins
    const record = planRecord('call_codex_plan_0_0', [{ step: 'Stale', status: 'pending' }])
    const attrs = record.resourceLogs[0].scopeLogs[0].logRecords[0].attributes
    const conversation = attrs.find((a) => a.key === 'conversation.id')!
    conversation.value = { stringValue: hooks[0].session_id }
    await postOtlp(t, 'logs', record)
    const after = await view(t, id)
    assert.equal(after.version, before.version)
    assert.deepEqual(after.items, before.items)
    assert.equal(after.source, 'codex')
  })

  it("Should never replace a Claude TodoWrite list the hooks gave with telemetry's count", async () => {
    const t = makeTestApp()
    await replay(t, 'claude-code-2.1.332/todowrite')
    const id = 'claude:47a46f64-6acc-403f-bf5e-cdb616a9a9f9'
    assert.equal((await view(t, id)).items_known, false)
    // the hook of a later call of the same session brings the texts: they win
    const hook = fixtureJson('claude-code/real-todowrite.json').find(
      (h: any) => h.hook_event_name === 'PostToolUse' && h.tool_name === 'TodoWrite'
    )
    await postHooks(t, 'claude-code', [
      { ...hook, session_id: '47a46f64-6acc-403f-bf5e-cdb616a9a9f9' },
    ])
    const known = await view(t, id)
    assert.equal(known.items_known, true)
    assert.ok(known.items.every((item: any) => !/not in the telemetry/.test(item.content)))
    // telemetry's item-count lists after that change nothing
    await replay(t, 'claude-code-2.1.332/todowrite')
    const after = await view(t, id)
    assert.equal(after.version, known.version)
    assert.deepEqual(after.items, known.items)
  })

  it('Should make a Claude session its hooks then feed one session', async () => {
    const t = makeTestApp()
    await replay(t, 'claude-code-2.1.332/tasks')
    const id = 'claude:85451113-9837-4740-b473-45668feccc02'
    const hook = {
      session_id: '85451113-9837-4740-b473-45668feccc02',
      hook_event_name: 'PostToolUse',
      tool_name: 'TaskUpdate',
      tool_use_id: 'toolu_hook_1',
      tool_input: { taskId: '2', status: 'in_progress' },
      tool_response: {
        success: true,
        taskId: '2',
        updatedFields: ['status'],
        statusChange: { from: 'pending', to: 'in_progress' },
      },
    }
    await postHooks(t, 'claude-code', [hook])
    const session = await view(t, id)
    assert.equal(session.source, 'otlp')
    assert.deepEqual(
      session.items.map((item: any) => [item.id, item.status]),
      [
        ['1', 'completed'],
        ['2', 'in_progress'],
      ]
    )
  })
})
