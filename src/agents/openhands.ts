/**
 * @module agents/openhands
 * OpenHands, through its webhooks (`WebhookSpec.base_url` = `…/v1/ingest/openhands`): batches of
 * one conversation's events, and the conversation's info (its `execution_status` ends the run).
 * Session `openhands:<conversation_id>`; its `task_tracker` writes the `openhands-tracker` dialect.
 */
import { z } from '@hono/zod-openapi'
import { valuesOf } from '../ingest/body.js'
import { IngestFormatError } from '../ingest/events.js'
import { parseOpenHandsConversation, parseOpenHandsEvents } from '../ingest/openhands.js'
import { COUNTS_REPLY, ingestBody } from './schemas.js'
import type { AgentDescriptor } from './types.js'

export const ConversationIdParam = z.object({
  conversation_id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,117}$/, 'conversation id: 1 to 118 letters, digits, . _ -')
    .openapi({
      param: { name: 'conversation_id', in: 'path' },
      example: '3458dce407074113961b51ee95851d0c',
    }),
})

export const OpenHandsEvent = z
  .looseObject({
    kind: z.string().openapi({
      description:
        'ActionEvent, ObservationEvent (task_tracker), AgentErrorEvent, ConversationStateUpdateEvent (execution_status), ConversationErrorEvent; others count as activity',
    }),
    id: z.string().optional(),
    timestamp: z.string().optional(),
  })
  .openapi('OpenHandsEvent')

export const OpenHandsConversation = z
  .looseObject({ id: z.string(), execution_status: z.string().optional() })
  .openapi('OpenHandsConversationInfo')

const PREFIX = 'openhands'

export const openhands: AgentDescriptor<'openhands'> = {
  source: 'openhands',
  name: 'OpenHands',
  labels: { short: 'ohands' },
  prefix: PREFIX,
  family: 'openhands',
  defaultDialect: 'openhands-tracker',
  edits: 'never',
  routes: [
    {
      path: '/v1/ingest/openhands/events/{conversation_id}',
      summary:
        'An OpenHands webhook batch (`WebhookSpec.base_url` = `…/v1/ingest/openhands`); session `openhands:<conversation_id>`',
      body: ingestBody(z.array(OpenHandsEvent), 'A JSON array of events', false),
      params: ConversationIdParam,
      parse(body, params) {
        if (body.kind === 'json' && !Array.isArray(body.value)) {
          throw new IngestFormatError('An OpenHands webhook batch is a JSON array of events.')
        }
        return { events: parseOpenHandsEvents(valuesOf(body), params.conversation_id) }
      },
      session: (params) => `${PREFIX}:${params.conversation_id}`,
    },
    {
      path: '/v1/ingest/openhands/conversations',
      summary: "An OpenHands webhook's conversation info (its execution_status ends the run)",
      body: {
        required: true,
        content: { 'application/json': { schema: OpenHandsConversation } },
      },
      parse(body) {
        if (body.kind !== 'json') {
          throw new IngestFormatError('A conversation info is one JSON object.')
        }
        return { events: parseOpenHandsConversation(body.value) }
      },
    },
  ],
  lifecycle: {
    starts: ['execution_status running'],
    ends: [
      'execution_status finished',
      'execution_status error',
      'execution_status stuck',
      'ConversationErrorEvent',
    ],
    waits: ['execution_status waiting_for_confirmation'],
  },
  reply: COUNTS_REPLY,
}
