/**
 * @module agents/gemini-cli
 * Gemini CLI: one command-hook input, or the NDJSON of `--output-format stream-json`. Session
 * `gemini:<session_id>`; its `write_todos` writes the `gemini-todos` dialect.
 */
import { z } from '@hono/zod-openapi'
import { valuesOf } from '../ingest/body.js'
import { parseGemini } from '../ingest/gemini-cli.js'
import { COUNTS_REPLY, ingestBody } from './schemas.js'
import type { AgentDescriptor } from './types.js'

export const GeminiStreamEvent = z
  .looseObject({
    type: z
      .string()
      .openapi({ description: 'init, message, tool_use, tool_result, error, result' }),
    timestamp: z.string().optional(),
    session_id: z.string().optional(),
  })
  .openapi('GeminiStreamEvent', { description: 'One line of `gemini --output-format stream-json`' })

export const GeminiHookInput = z
  .looseObject({
    session_id: z.string(),
    hook_event_name: z.string(),
    timestamp: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.unknown().optional(),
    tool_response: z.unknown().optional(),
  })
  .openapi('GeminiHookInput', { description: 'One Gemini CLI command-hook input (its stdin)' })

export const geminiCli: AgentDescriptor<'gemini-cli'> = {
  source: 'gemini-cli',
  name: 'Gemini CLI',
  prefix: 'gemini',
  family: 'gemini',
  defaultDialect: 'gemini-todos',
  edits: 'never',
  routes: [
    {
      path: '/v1/ingest/gemini-cli',
      summary:
        'A Gemini CLI hook input, or `--output-format stream-json` NDJSON; session `gemini:<session_id>`',
      body: ingestBody(
        z.union([GeminiHookInput, GeminiStreamEvent, z.array(GeminiStreamEvent)]),
        'One hook input, or NDJSON lines'
      ),
      parse: (body) => ({ events: parseGemini(valuesOf(body)) }),
    },
  ],
  lifecycle: {
    starts: ['SessionStart', 'init'],
    ends: ['SessionEnd', 'result'],
    waits: ['Notification'],
  },
  reply: COUNTS_REPLY,
}
