/**
 * @module agents/qwen-code
 * Qwen Code: one `"type": "http"` hook input, or the NDJSON of `qwen -p …
 * --output-format stream-json`. Session `qwen:<session_id>`; its `todo_write` writes the
 * `qwen-todos` dialect, with the model's ids.
 */
import { z } from '@hono/zod-openapi'
import { valuesOf } from '../ingest/body.js'
import { parseQwen } from '../ingest/qwen-code.js'
import { COUNTS_REPLY, ingestBody } from './schemas.js'
import type { AgentDescriptor } from './types.js'

export const QwenStreamEvent = z
  .looseObject({
    type: z.string().openapi({
      description: 'system (init), assistant, user, result, stream_event, control_request, …',
    }),
    session_id: z.string().optional(),
  })
  .openapi('QwenStreamEvent', {
    description: 'One line of `qwen -p … --output-format stream-json`',
  })

export const QwenHookInput = z
  .looseObject({
    session_id: z.string(),
    hook_event_name: z.string(),
    timestamp: z.string().optional(),
    prompt_id: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.unknown().optional(),
    tool_response: z.unknown().optional(),
    tool_call_id: z.string().optional(),
    tool_use_id: z.string().optional(),
    tool_calls: z.array(z.unknown()).optional(),
    phase: z.string().optional(),
    all_todos: z.array(z.unknown()).optional(),
    notification_type: z.string().optional(),
  })
  .openapi('QwenHookInput', { description: 'One Qwen Code HTTP hook input' })

export const qwenCode: AgentDescriptor<'qwen-code'> = {
  source: 'qwen-code',
  name: 'Qwen Code',
  prefix: 'qwen',
  family: 'qwen',
  defaultDialect: 'qwen-todos',
  edits: 'never',
  routes: [
    {
      path: '/v1/ingest/qwen-code',
      summary:
        'A Qwen Code HTTP hook input, or `qwen -p … --output-format stream-json` NDJSON; session `qwen:<session_id>`',
      body: ingestBody(
        z.union([QwenHookInput, QwenStreamEvent, z.array(QwenStreamEvent)]),
        'One hook input, or NDJSON lines'
      ),
      parse: (body) => ({ events: parseQwen(valuesOf(body)) }),
    },
  ],
  lifecycle: {
    starts: ['SessionStart', 'system/init'],
    ends: ['SessionEnd'],
    waits: ['PermissionRequest', 'Notification', 'control_request'],
  },
  reply: COUNTS_REPLY,
}
