/**
 * @module agents/acp
 * Any ACP (Agent Client Protocol) agent — Qwen Code, the Claude adapter, opencode, Kilo, Copilot,
 * Gemini — through `agent-todos acp`, the stdio tap an editor runs in the agent's place: the
 * JSON-RPC messages of one connection, both directions in wire order. Session `acp:<sessionId>`;
 * its lists (`plan` snapshots, opencode's `todowrite` in a tool call's `rawInput`) write the
 * `opencode-todos` dialect, whose item is ACP's `PlanEntry {content, priority, status}`.
 */
import { z } from '@hono/zod-openapi'
import { parseAcp } from '../ingest/acp.js'
import { valuesAgent } from './define.js'
import { ingestBody, oneOrMany } from './schemas.js'

export const AcpMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0').optional(),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    method: z.string().optional().openapi({
      description:
        'session/update (plan, tool_call, tool_call_update), session/request_permission, session/prompt, session/new, …',
    }),
    params: z.unknown().optional(),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
  })
  .openapi('AcpMessage', {
    description: 'One ACP JSON-RPC 2.0 message (a request, a notification or a response)',
  })

/** What the tap adds to a message's line, whichever its form. */
const TAP_LINE_FIELDS = {
  session: z.string().optional().openapi({
    description:
      'The session the message belongs to, when the tap knows it (a response whose request named it)',
  }),
  request: z.string().optional().openapi({
    description:
      'For a response: the method of the request it answers (`session/prompt`, `session/request_permission`), when the tap saw it',
  }),
  connection: z.string().optional().openapi({
    description:
      'The tap’s id of the connection; with `seq`, the message’s id (replays apply once)',
  }),
  seq: z
    .number()
    .int()
    .optional()
    .openapi({ description: 'The message’s place on the connection' }),
}

export const AcpTapLine = z
  .looseObject({
    dir: z.enum(['agent->client', 'client->agent']).openapi({
      description:
        'The direction the message travelled. Each side numbers its own requests: a response answers only a request of the other direction with its `id`',
    }),
    msg: AcpMessage,
    ...TAP_LINE_FIELDS,
  })
  .openapi('AcpTapLine', {
    description: 'One line as `agent-todos acp` tees it: a message and the direction it travelled',
  })

export const AcpTapLegacyLine = z
  .looseObject({
    from: z.enum(['client', 'agent', 'tap']).openapi({
      description:
        'Who sent the message: `client` (the editor), `agent`; `tap` for the tap’s own `exit` line',
    }),
    message: AcpMessage.optional(),
    ...TAP_LINE_FIELDS,
    exit: z
      .looseObject({ code: z.number().int().nullable(), signal: z.string().nullable() })
      .optional()
      .openapi({ description: 'With `from: "tap"`: the agent exited (ends a run it left open)' }),
  })
  .openapi('AcpTapLegacyLine', {
    description:
      'The tap’s `exit` line (`from: "tap"`), and a message line as earlier taps wrote it (`from` the sender, `message`)',
  })

const AcpValue = z.union([AcpTapLine, AcpTapLegacyLine, AcpMessage])

export const acp = valuesAgent({
  source: 'acp',
  name: 'ACP agent',
  prefix: 'acp',
  family: 'acp',
  defaultDialect: 'opencode-todos',
  summary:
    'The JSON-RPC messages of one ACP connection in wire order, both directions, as `agent-todos acp` tees them; session `acp:<sessionId>`',
  body: ingestBody(
    oneOrMany(AcpValue),
    'One message or tap line, an array of them, or NDJSON lines'
  ),
  parse: parseAcp,
  lifecycle: {
    starts: ['session/new', 'session/prompt'],
    ends: ['session/prompt result', 'tap exit'],
    waits: ['session/request_permission'],
  },
})
