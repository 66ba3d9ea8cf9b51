// CPU per Codex `update_plan` delivered by OTLP (a logs export, JSON and protobuf) against the
// same plan delivered by its PostToolUse hook (`POST /v1/ingest/codex`), in process through the
// app on a memory store (no sockets): `node --import tsx bench/otlp.ts`. Each delivery is a new
// call with a changed plan (a new version); the kinds alternate in rounds, medians reported.
import { createApp } from '../src/http/app.js'
import { parseAuthKeys } from '../src/http/auth.js'
import { OTLP_MESSAGES } from '../src/ingest/otlp/proto.js'
import { createMemoryStore } from '../src/store/memory.js'
import pino from 'pino'

const ROUNDS = Number(process.env.ROUNDS ?? 7)
const PER_ROUND = Number(process.env.PER_ROUND ?? 2000)

const store = createMemoryStore({ ttlMs: 3600_000, historyLimit: 50, now: Date.now })
const app = createApp({
  store,
  logger: pino({ level: 'silent' }),
  keys: parseAuthKeys(undefined),
  bodyLimitBytes: 1024 * 1024,
  staleAfterMs: 900_000,
  historyLimit: 50,
  idempotencyTtlMs: 24 * 3600 * 1000,
  now: Date.now,
  isDraining: () => false,
  openapiDocument: null,
  sseHeartbeatMs: 15_000,
})

const STEPS = ['Write the /health handler', 'Add a test for /health', 'Update the README']
const plan = (i: number) =>
  STEPS.map((step, s) => ({
    step,
    status: s < i % 4 ? 'completed' : s === i % 4 ? 'in_progress' : 'pending',
  }))

const hook = (session: string, i: number) =>
  JSON.stringify({
    session_id: session,
    turn_id: 'turn-1',
    cwd: '/home/user/project',
    hook_event_name: 'PostToolUse',
    model: 'gpt-5.5',
    permission_mode: 'bypassPermissions',
    tool_name: 'update_plan',
    tool_input: { explanation: 'bench', plan: plan(i) },
    tool_response: 'Plan updated',
    tool_use_id: `call_${i}`,
  })

const attr = (key: string, value: string) => ({ key, value: { stringValue: value } })

/** A logs export as Codex sends it: its resource, the update_plan record, `extra` other records. */
const exportOf = (session: string, i: number, extra: number) => ({
  resourceLogs: [
    {
      resource: {
        attributes: [
          attr('service.name', 'codex_exec'),
          attr('service.version', '0.171.0'),
          attr('host.name', 'host'),
          attr('env', 'bench'),
        ],
      },
      scopeLogs: [
        {
          scope: { name: 'codex_otel.log_only' },
          logRecords: [
            ...Array.from({ length: extra }, () => ({
              timeUnixNano: '0',
              observedTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
              attributes: [
                attr('event.name', 'codex.sse_event'),
                attr('event.kind', 'response.output_text.delta'),
                attr('conversation.id', session),
                attr('model', 'gpt-5.5'),
              ],
            })),
            {
              timeUnixNano: '0',
              observedTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
              attributes: [
                attr('event.name', 'codex.tool_result'),
                { key: 'tool_result_seq', value: { intValue: String(i) } },
                attr('tool_name', 'update_plan'),
                attr('call_id', `call_${i}`),
                attr('success', 'true'),
                attr('arguments', JSON.stringify({ explanation: 'bench', plan: plan(i) })),
                attr('output', 'Plan updated'),
                attr('conversation.id', session),
                attr('app.version', '0.171.0'),
                attr('terminal.type', 'dumb'),
                attr('model', 'gpt-5.5'),
              ],
            },
          ],
        },
      ],
    },
  ],
})

const protobuf = (body: unknown) => {
  const type = OTLP_MESSAGES.logs.request
  return type.encode(type.fromObject(body as Record<string, unknown>)).finish()
}

type Kind = { name: string; request: (session: string, i: number) => Request }

const kinds: Kind[] = [
  {
    name: 'hook',
    request: (s, i) =>
      new Request('http://b/v1/ingest/codex', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: hook(s, i),
      }),
  },
  ...[0, 20].flatMap((extra): Kind[] => [
    {
      name: `otlp-json${extra ? `+${extra}` : ''}`,
      request: (s, i) =>
        new Request('http://b/v1/otlp/v1/logs', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(exportOf(s, i, extra)),
        }),
    },
    {
      name: `otlp-protobuf${extra ? `+${extra}` : ''}`,
      request: (s, i) =>
        new Request('http://b/v1/otlp/v1/logs', {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
          body: protobuf(exportOf(s, i, extra)),
        }),
    },
  ]),
]

/** CPU µs per delivery of one kind, over PER_ROUND deliveries to one session. */
async function measure(kind: Kind, round: number): Promise<number> {
  const session = `bench-${kind.name}-${round}`
  // bodies built before the clock starts: the client's work is not the server's
  const requests = Array.from({ length: PER_ROUND }, (_, i) => kind.request(session, i + 1))
  const start = process.cpuUsage()
  for (const request of requests) {
    const res = await app.request(request)
    if (res.status !== 200) throw new Error(`${kind.name}: ${res.status} ${await res.text()}`)
    await res.arrayBuffer()
  }
  const used = process.cpuUsage(start)
  return (used.user + used.system) / PER_ROUND
}

const samples = new Map(kinds.map((kind) => [kind.name, [] as number[]]))
await measure(kinds[0], -1) // warm up
for (const kind of kinds) await measure(kind, -2)
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of kinds) samples.get(kind.name)!.push(await measure(kind, round))
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const base = median(samples.get('hook')!)
console.log(`rounds ${ROUNDS} × ${PER_ROUND} deliveries; CPU µs per update_plan delivery (median)`)
for (const [name, values] of samples) {
  const m = median(values)
  console.log(
    `${name.padEnd(18)} ${m.toFixed(1).padStart(7)} µs  ${(m / base).toFixed(2)}× the hook`
  )
}
