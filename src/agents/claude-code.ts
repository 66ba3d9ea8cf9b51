/**
 * @module agents/claude-code
 * Claude Code, through its `"type": "http"` hooks: one hook input per request. Its PostToolUse
 * reply is read by Claude Code as instructions, so it is the one agent a person's edit reaches
 * (`edits: 'reply'`): `{}`, or the edit as `additionalContext`, once.
 */
import { z } from '@hono/zod-openapi'
import { IngestFormatError } from '../ingest/events.js'
import { parseClaudeHook } from '../ingest/claude-code.js'
import type { DeliveryOutcome } from '../ingest/agent.js'
import { CLAUDE_FAMILY } from './claude.js'
import { HOOK_TOOL_FIELDS, hookInput, ingestBody } from './schemas.js'
import { claudeDecisions } from './decide.js'
import type { AgentDescriptor } from './types.js'

export const ClaudeHookInput = hookInput(
  'ClaudeHookInput',
  {
    hook_event_name: z.string().openapi({
      description:
        'Any event. Read: PostToolUse, PostToolUseFailure, SessionStart, SessionEnd, Stop (background_tasks), StopFailure, SubagentStop, Notification (idle_prompt, permission_prompt, agent_needs_input, worker_permission_prompt), PermissionRequest, Elicitation, Interrupt.',
    }),
    agent_id: z.string().optional().openapi({ description: 'Set when a subagent fired the hook' }),
    ...HOOK_TOOL_FIELDS,
    tool_use_id: z.string().optional(),
    notification_type: z.string().optional(),
    reason: z.string().optional(),
  },
  'One Claude Code hook input, as its `"type": "http"` hook posts it'
)

export const ClaudeHookReply = z
  .object({
    hookSpecificOutput: z
      .object({
        hookEventName: z.literal('PostToolUse'),
        additionalContext: z.string(),
      })
      .optional()
      .openapi({
        description: "Only to hand a person's pending edit of the list to the model, once",
      }),
  })
  .openapi('ClaudeHookReply', { description: '`{}` changes nothing in Claude Code' })

/**
 * A hook's reply: Claude Code reads it as instructions, so `{}` unless a person's edit is to be
 * handed to the model.
 * @param outcome - what the delivery did
 */
const hookReply = ({ edit }: DeliveryOutcome) =>
  edit === null
    ? {}
    : { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: edit } }

export const claudeCode: AgentDescriptor<'claude-code'> = {
  source: 'claude-code',
  name: 'Claude Code',
  labels: { short: 'claude' },
  todoToolsSwitch: 'CLAUDE_CODE_ENABLE_TODO_TOOLS=1',
  ...CLAUDE_FAMILY,
  edits: 'reply',
  // Copilot CLI's and Qwen Code's PascalCase hooks mimic Claude Code's: told apart (their own
  // `claims`) before anything is read
  mimicked: true,
  routes: [
    {
      path: '/v1/ingest/claude-code',
      summary:
        'A Claude Code hook input (any event), as its `"type": "http"` hook posts it; session `claude:<session_id>`',
      body: ingestBody(ClaudeHookInput, 'One hook input', false),
      parse(body) {
        if (body.kind !== 'json') {
          throw new IngestFormatError('A Claude Code hook input is one JSON object.')
        }
        const hook = parseClaudeHook(body.value)
        return { events: hook.events, replyTarget: hook.replyTarget }
      },
    },
  ],
  lifecycle: {
    starts: ['SessionStart'],
    ends: ['SessionEnd', 'SubagentStop'],
    waits: [
      'Notification idle_prompt',
      'Notification permission_prompt',
      'Notification agent_needs_input',
      'Notification worker_permission_prompt',
      'PermissionRequest',
      'Elicitation',
      'Interrupt',
    ],
  },
  reply: { schema: ClaudeHookReply, of: hookReply },
  decide: claudeDecisions,
}
