/**
 * @module agents/claude-agent-sdk
 * The Claude Agent SDK's messages, or the NDJSON of `claude -p --output-format stream-json
 * --verbose`: the same session as the run's Claude Code hooks (`claude:<session_id>`). A stream
 * only reports, so a person's edit reaches the model only once Claude Code's hooks feed the
 * session too (`edits: 'hooks'`).
 */
import { z } from '@hono/zod-openapi'
import { parseClaudeMessages } from '../ingest/claude-agent-sdk.js'
import { CLAUDE_FAMILY } from './claude.js'
import { valuesAgent } from './define.js'
import { ingestBody, oneOrMany, streamLine } from './schemas.js'

export const SdkMessage = streamLine(
  'ClaudeAgentSdkMessage',
  'system, assistant, user, result (others are ignored); the Python SDK: AssistantMessage, UserMessage, SystemMessage, ResultMessage',
  {
    session_id: z.string().optional(),
    parent_tool_use_id: z.string().nullable().optional(),
    message: z.unknown().optional(),
    tool_use_result: z.unknown().optional(),
    isReplay: z.boolean().optional(),
  }
)

export const claudeAgentSdk = valuesAgent({
  source: 'claude-agent-sdk',
  name: 'Claude Agent SDK',
  labels: { terminal: 'Claude SDK', short: 'sdk' },
  todoToolsSwitch: 'CLAUDE_CODE_ENABLE_TODO_TOOLS=1',
  observe: { kind: 'claude', programs: ['claude', 'claude-code', '@anthropic-ai/claude-code'] },
  ...CLAUDE_FAMILY,
  edits: 'hooks',
  summary:
    'Claude Agent SDK messages, or the NDJSON of `claude -p --output-format stream-json --verbose`; session `claude:<session_id>`',
  body: ingestBody(oneOrMany(SdkMessage), 'One message, an array, or NDJSON lines'),
  parse: parseClaudeMessages,
  lifecycle: {
    starts: ['system/init'],
    ends: ['result'],
    waits: ['system/session_state_changed requires_action'],
  },
})
