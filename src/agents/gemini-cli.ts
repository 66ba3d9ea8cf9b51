/**
 * @module agents/gemini-cli
 * Gemini CLI: one command-hook input, or the NDJSON of `--output-format stream-json`. Session
 * `gemini:<session_id>`; its `write_todos` writes the `gemini-todos` dialect.
 */
import { z } from '@hono/zod-openapi'
import { parseGemini } from '../ingest/gemini-cli.js'
import { valuesAgent } from './define.js'
import { HOOK_TOOL_FIELDS, hookInput, hookOrLines, ingestBody, streamLine } from './schemas.js'

export const GeminiStreamEvent = streamLine(
  'GeminiStreamEvent',
  'init, message, tool_use, tool_result, error, result',
  { timestamp: z.string().optional(), session_id: z.string().optional() },
  'One line of `gemini --output-format stream-json`'
)

export const GeminiHookInput = hookInput(
  'GeminiHookInput',
  { timestamp: z.string().optional(), ...HOOK_TOOL_FIELDS },
  'One Gemini CLI command-hook input (its stdin)'
)

export const geminiCli = valuesAgent({
  source: 'gemini-cli',
  name: 'Gemini CLI',
  observe: { kind: 'gemini', programs: ['gemini', 'gemini-cli', '@google/gemini-cli'] },
  prefix: 'gemini',
  family: 'gemini',
  defaultDialect: 'gemini-todos',
  summary:
    'A Gemini CLI hook input, or `--output-format stream-json` NDJSON; session `gemini:<session_id>`',
  body: ingestBody(
    hookOrLines(GeminiHookInput, GeminiStreamEvent),
    'One hook input, or NDJSON lines'
  ),
  parse: parseGemini,
  lifecycle: {
    starts: ['SessionStart', 'init'],
    ends: ['SessionEnd', 'result'],
    waits: ['Notification'],
  },
})
