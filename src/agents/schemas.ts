/**
 * @module agents/schemas
 * The wire shapes every ingest route shares: the query, the counting reply and the body's media
 * types. Each agent's own formats are in its descriptor's file (the schemas name the fields the
 * service reads and let every other field through; `ingest/*` parses the bodies).
 */
import { z } from '@hono/zod-openapi'
import { SESSION_ID_PATTERN } from '../core/ids.js'
import type { DeliveryOutcome } from '../ingest/agent.js'
import type { IngestRequestBody, ReplyShape } from './types.js'

export const IngestQuery = z.object({
  session_id: z
    .string()
    .regex(SESSION_ID_PATTERN, `session id must match ${SESSION_ID_PATTERN.source}`)
    .optional()
    .openapi({
      description:
        'Names the session instead of the agent’s own id (a CI job id, or a stream continued in parts); a subagent’s list is `<session_id>:agent:<agent_id>`.',
      example: 'ci-1234',
    }),
})

export const IngestReply = z
  .object({
    session_id: z.string().openapi({ description: 'The session the delivery fed' }),
    version: z.number().int().openapi({ description: "The session's version after it (0: none)" }),
    applied: z.number().int().openapi({ description: 'Events that took effect' }),
    ignored: z.number().int().openapi({
      description:
        'Events accepted without effect: duplicates, replays, failed calls, other tools, activity, unknown events',
    }),
  })
  .openapi('IngestReply')

/** The reply of an agent that reads none: what the delivery did, counted. */
export const COUNTS_REPLY: ReplyShape = {
  schema: IngestReply,
  of: ({ edit: _edit, ...counts }: DeliveryOutcome) => counts,
}

const NDJSON = z.string().openapi({ description: 'NDJSON: one JSON value per line' })

/**
 * The request body of an ingest route: JSON in the given shapes, and (for streams) NDJSON lines.
 * @param json - the JSON shape
 * @param description - what the body holds
 * @param ndjson - whether the route also takes NDJSON
 */
export function ingestBody(json: z.ZodType, description: string, ndjson = true): IngestRequestBody {
  return {
    required: true,
    description,
    content: {
      'application/json': { schema: json },
      ...(ndjson ? { 'application/x-ndjson': { schema: NDJSON } } : {}),
    },
  }
}
