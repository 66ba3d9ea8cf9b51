/**
 * @module agents/schemas
 * The wire shapes every ingest route shares: the query, the counting reply and the body's media
 * types, and the shapes several agents' formats share (a Claude-shaped hook input, a stream line,
 * a body of one hook input or lines). Each agent's own formats are in its descriptor's file (the
 * schemas name the fields the service reads and let every other field through; `ingest/*` parses
 * the bodies).
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
    session_id: z.string().nullable().openapi({
      description:
        'The session the delivery fed; null when the body named none and held nothing to apply (accepted and ignored)',
    }),
    version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The session's version after it (0: none; null with no session)" }),
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

/**
 * A body of one value or a JSON array of them (NDJSON lines are `ingestBody`'s).
 * @param value - the value's shape
 */
export const oneOrMany = (value: z.ZodType) => z.union([value, z.array(value)])

/**
 * The body of an agent that posts one hook input, or its stream's lines (one, or an array).
 * @param hook - the hook input's shape
 * @param line - a line's shape
 */
export const hookOrLines = (hook: z.ZodType, line: z.ZodType) =>
  z.union([hook, line, z.array(line)])

/** The tool fields of a Claude-shaped hook input (`hookInput`): the tool, its input, its answer. */
export const HOOK_TOOL_FIELDS = {
  tool_name: z.string().optional(),
  tool_input: z.unknown().optional(),
  tool_response: z.unknown().optional(),
}

/**
 * A Claude-shaped hook input (Claude Code's, and the Codex, Gemini CLI and Qwen Code hooks
 * modelled on it): `session_id` and `hook_event_name`, then the fields the agent's parser reads;
 * every other field is let through.
 * @param name - its OpenAPI component name
 * @param fields - the fields after those two (`hook_event_name` among them to document it)
 * @param description - what it is, for the document
 */
export const hookInput = (name: string, fields: z.ZodRawShape, description: string) =>
  z
    // a documented `hook_event_name` in `fields` replaces the plain one in its place, second
    .looseObject({ session_id: z.string(), hook_event_name: z.string(), ...fields })
    .openapi(name, { description })

/**
 * One line (or message) of an agent's stream: an object told apart by its `type`, then the other
 * fields its parser reads; every other field is let through.
 * @param name - its OpenAPI component name
 * @param types - the types the parser reads, for the document
 * @param fields - the other fields it reads
 * @param description - what a line is, for the document
 */
export function streamLine(
  name: string,
  types: string,
  fields: z.ZodRawShape,
  description?: string
) {
  const line = z.looseObject({ type: z.string().openapi({ description: types }), ...fields })
  return description === undefined ? line.openapi(name) : line.openapi(name, { description })
}
