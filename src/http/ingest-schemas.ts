/**
 * @module http/ingest-schemas
 * The wire shapes of `POST /v1/ingest/*`: what each observed agent posts (its own formats, so the
 * schemas name the fields the service reads and let every other field through) and the replies.
 * The bodies are parsed by `ingest/*` (JSON or NDJSON); these schemas document them.
 */
import { z } from '@hono/zod-openapi'
import { SESSION_ID_PATTERN } from './schemas.js'

export const IngestQuery = z.object({
  session_id: z
    .string()
    .regex(SESSION_ID_PATTERN, 'session id must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$')
    .optional()
    .openapi({
      description:
        'Names the session instead of the agent’s own id (a CI job id, or a stream continued in parts); a subagent’s list is `<session_id>:agent:<agent_id>`.',
      example: 'ci-1234',
    }),
})

export const ConversationIdParam = z.object({
  conversation_id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,117}$/, 'conversation id: 1 to 118 letters, digits, . _ -')
    .openapi({
      param: { name: 'conversation_id', in: 'path' },
      example: '3458dce407074113961b51ee95851d0c',
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

export const ClaudeHookInput = z
  .looseObject({
    session_id: z.string(),
    hook_event_name: z.string().openapi({
      description:
        'Any event. Read: PostToolUse, PostToolUseFailure, SessionStart, SessionEnd, Stop, StopFailure, SubagentStop, Notification (idle_prompt, permission_prompt).',
    }),
    agent_id: z.string().optional().openapi({ description: 'Set when a subagent fired the hook' }),
    tool_name: z.string().optional(),
    tool_input: z.unknown().optional(),
    tool_response: z.unknown().optional(),
    tool_use_id: z.string().optional(),
    notification_type: z.string().optional(),
    reason: z.string().optional(),
  })
  .openapi('ClaudeHookInput', {
    description: 'One Claude Code hook input, as its `"type": "http"` hook posts it',
  })

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

export const CodexEvent = z
  .looseObject({
    type: z.string().openapi({
      description:
        'thread.started, turn.started, turn.completed, turn.failed, item.started / item.updated / item.completed (todo_list), error',
    }),
    thread_id: z.string().optional(),
    item: z.unknown().optional(),
  })
  .openapi('CodexExecEvent', { description: 'One line of `codex exec --json`' })

export const CodexHookInput = z
  .looseObject({
    session_id: z.string(),
    hook_event_name: z.string(),
    tool_name: z.string().optional(),
    tool_input: z.unknown().optional(),
    tool_response: z.unknown().optional(),
    tool_use_id: z.string().optional(),
  })
  .openapi('CodexHookInput', { description: 'One Codex command-hook input (its stdin)' })

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

const NDJSON = z.string().openapi({ description: 'NDJSON: one JSON value per line' })

/**
 * The request body of an ingest route: JSON in the given shapes, and (for streams) NDJSON lines.
 * @param json - the JSON shape
 * @param description - what the body holds
 * @param ndjson - whether the route also takes NDJSON
 */
export function ingestBody(json: z.ZodType, description: string, ndjson = true) {
  return {
    required: true,
    description,
    content: {
      'application/json': { schema: json },
      ...(ndjson ? { 'application/x-ndjson': { schema: NDJSON } } : {}),
    },
  }
}
