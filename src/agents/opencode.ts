/**
 * @module agents/opencode
 * opencode and Kilo CLI (an opencode fork: the same server, events and `todowrite`), through one
 * route: the server's event stream (a plugin's `event` hook, or `agent-todos observe --opencode`
 * reading `GET /global/event`) or `opencode run --format json`. Two sources, as two agents: a
 * delivery is opencode's (`opencode:<sessionID>`) unless the query says `?agent=kilo`
 * (`kilo:<sessionID>`): the events themselves do not say which server sent them. Both write the
 * `opencode-todos` dialect.
 */
import { z } from '@hono/zod-openapi'
import { parseOpencode } from '../ingest/opencode.js'
import { valuesRoute } from './define.js'
import { COUNTS_REPLY, ingestBody, oneOrMany, streamLine } from './schemas.js'
import type { AgentDescriptor, IngestRoute } from './types.js'

export const OpencodeEvent = z
  .looseObject({
    id: z.string().optional().openapi({ description: 'The event id (`evt_…`): dedupes' }),
    type: z.string().openapi({
      description:
        'Read: todo.updated, session.status, session.idle, session.error, permission.asked / replied, question.asked / replied, session.turn.open (Kilo); others count as activity',
    }),
    properties: z.record(z.string(), z.unknown()),
  })
  .openapi('OpencodeEvent', {
    description: 'One opencode / Kilo server event, as `GET /event` and a plugin give it',
  })

export const OpencodeGlobalEvent = z
  .looseObject({ directory: z.string().optional(), payload: OpencodeEvent })
  .openapi('OpencodeGlobalEvent', { description: 'One `GET /global/event` value' })

export const OpencodeRunLine = streamLine(
  'OpencodeRunLine',
  'step_start, tool_use, text, step_finish, error',
  { timestamp: z.number(), sessionID: z.string(), part: z.unknown().optional() },
  'One line of `opencode run --format json`'
)

const Value = z.union([OpencodeEvent, OpencodeGlobalEvent, OpencodeRunLine])

export const OpencodeQuery = z.object({
  agent: z.enum(['opencode', 'kilo']).optional().openapi({
    description:
      'Which server sent the events: `kilo` feeds `kilo:<sessionID>` sessions (source `kilo`); default `opencode`',
  }),
})

const ROUTE: IngestRoute = {
  ...valuesRoute('opencode', {
    summary:
      'opencode or Kilo server events (`{type, properties}`, or `/global/event`’s `{directory, payload}`), or `opencode run --format json` NDJSON; session `opencode:<sessionID>` (`kilo:` with `?agent=kilo`)',
    body: ingestBody(oneOrMany(Value), 'One event, a JSON array, or NDJSON lines'),
    parse: parseOpencode,
  }),
  query: OpencodeQuery,
  agentOf: (query) => (query.agent === 'kilo' ? 'kilo' : 'opencode'),
}

const SHARED = {
  family: 'opencode',
  defaultDialect: 'opencode-todos',
  edits: 'never',
  lifecycle: {
    starts: ['session.turn.open'],
    ends: ['session.error'],
    waits: ['permission.asked', 'question.asked'],
  },
  reply: COUNTS_REPLY,
} as const

export const opencode: AgentDescriptor<'opencode'> = {
  source: 'opencode',
  name: 'opencode',
  prefix: 'opencode',
  ...SHARED,
  routes: [ROUTE],
}

/** Kilo CLI: opencode's route with `?agent=kilo` (it has no route of its own). */
export const kilo: AgentDescriptor<'kilo'> = {
  source: 'kilo',
  name: 'Kilo CLI',
  prefix: 'kilo',
  ...SHARED,
  routes: [],
}
