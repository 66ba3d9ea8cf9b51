/**
 * @module agents/claude-agent-sdk
 * The Claude Agent SDK's messages, or the NDJSON of `claude -p --output-format stream-json
 * --verbose`: the same session as the run's Claude Code hooks (`claude:<session_id>`). A stream
 * only reports, so a person's edit reaches the model only once Claude Code's hooks feed the
 * session too (`edits: 'hooks'`).
 */
import { z } from '@hono/zod-openapi'
import { valuesOf } from '../ingest/body.js'
import { parseClaudeMessages } from '../ingest/claude-agent-sdk.js'
import { CLAUDE_FAMILY } from './claude.js'
import { COUNTS_REPLY, ingestBody } from './schemas.js'
import type { AgentDescriptor } from './types.js'

export const SdkMessage = z
  .looseObject({
    type: z.string().openapi({
      description:
        'system, assistant, user, result (others are ignored); the Python SDK: AssistantMessage, UserMessage, SystemMessage, ResultMessage',
    }),
    session_id: z.string().optional(),
    parent_tool_use_id: z.string().nullable().optional(),
    message: z.unknown().optional(),
    tool_use_result: z.unknown().optional(),
    isReplay: z.boolean().optional(),
  })
  .openapi('ClaudeAgentSdkMessage')

export const claudeAgentSdk: AgentDescriptor<'claude-agent-sdk'> = {
  source: 'claude-agent-sdk',
  name: 'Claude Agent SDK',
  ...CLAUDE_FAMILY,
  edits: 'hooks',
  routes: [
    {
      path: '/v1/ingest/claude-agent-sdk',
      summary:
        'Claude Agent SDK messages, or the NDJSON of `claude -p --output-format stream-json --verbose`; session `claude:<session_id>`',
      body: ingestBody(
        z.union([SdkMessage, z.array(SdkMessage)]),
        'One message, an array, or NDJSON lines'
      ),
      parse: (body) => ({ events: parseClaudeMessages(valuesOf(body)) }),
    },
  ],
  lifecycle: {
    starts: ['system/init'],
    ends: ['result'],
    waits: ['system/session_state_changed requires_action'],
  },
  reply: COUNTS_REPLY,
}
