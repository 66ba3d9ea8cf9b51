/**
 * @module agents/qwen-code
 * Qwen Code: one `"type": "http"` hook input, or the NDJSON of `qwen -p …
 * --output-format stream-json`. Session `qwen:<session_id>`; its `todo_write` writes the
 * `qwen-todos` dialect, with the model's ids.
 */
import { z } from '@hono/zod-openapi'
import { isQwenHook, parseQwen } from '../ingest/qwen-code.js'
import { qwenDecisions } from './decide.js'
import { valuesAgent } from './define.js'
import { HOOK_TOOL_FIELDS, hookInput, hookOrLines, ingestBody, streamLine } from './schemas.js'

export const QwenStreamEvent = streamLine(
  'QwenStreamEvent',
  'system (init), assistant, user, result, stream_event, control_request, …',
  { session_id: z.string().optional() },
  'One line of `qwen -p … --output-format stream-json`'
)

export const QwenHookInput = hookInput(
  'QwenHookInput',
  {
    timestamp: z.string().optional(),
    prompt_id: z.string().optional(),
    ...HOOK_TOOL_FIELDS,
    tool_call_id: z.string().optional(),
    tool_use_id: z.string().optional(),
    tool_calls: z.array(z.unknown()).optional(),
    phase: z.string().optional(),
    all_todos: z.array(z.unknown()).optional(),
    notification_type: z.string().optional(),
  },
  'One Qwen Code HTTP hook input'
)

export const qwenCode = valuesAgent({
  source: 'qwen-code',
  name: 'Qwen Code',
  // Qwen Code's todo_write is off unless its settings turn it on
  todoToolsSwitch: 'tools.todoWrite.enabled',
  observe: { kind: 'qwen', programs: ['qwen', 'qwen-code', '@qwen-code/qwen-code'] },
  prefix: 'qwen',
  family: 'qwen',
  defaultDialect: 'qwen-todos',
  summary:
    'A Qwen Code HTTP hook input, or `qwen -p … --output-format stream-json` NDJSON; session `qwen:<session_id>`',
  body: ingestBody(hookOrLines(QwenHookInput, QwenStreamEvent), 'One hook input, or NDJSON lines'),
  parse: parseQwen,
  claims: isQwenHook,
  lifecycle: {
    starts: ['SessionStart', 'system/init'],
    ends: ['SessionEnd'],
    waits: ['PermissionRequest', 'Notification', 'control_request'],
  },
  decide: qwenDecisions,
})
