/**
 * @module agents/copilot
 * GitHub Copilot CLI: one hook input, camelCase or PascalCase, or the JSONL of `copilot -p …
 * --output-format json`. Session `copilot:<sessionId>`; its `sql` tool's statements on the
 * built-in `todos` / `todo_deps` tables write the `copilot-todos` dialect (observed only).
 */
import { z } from '@hono/zod-openapi'
import { isRecord } from '../dialects/json.js'
import { isCopilotHook, parseCopilot } from '../ingest/copilot.js'
import { copilotDecisions } from './decide.js'
import { valuesAgent } from './define.js'
import { hookOrLines, ingestBody, streamLine } from './schemas.js'

export const CopilotHookInput = z
  .looseObject({
    sessionId: z.string().optional(),
    timestamp: z.union([z.number(), z.string()]).optional(),
    cwd: z.string().optional(),
    toolName: z.string().optional(),
    toolArgs: z.unknown().optional(),
    toolResult: z
      .looseObject({ resultType: z.string().optional(), textResultForLlm: z.string().optional() })
      .optional(),
    hookName: z.string().optional(),
    hook_event_name: z.string().optional(),
    session_id: z.string().optional(),
    tool_name: z.string().optional(),
    tool_input: z.unknown().optional(),
    tool_result: z
      .looseObject({
        result_type: z.string().optional(),
        text_result_for_llm: z.string().optional(),
      })
      .optional(),
  })
  .openapi('CopilotHookInput', {
    description:
      'One GitHub Copilot CLI hook input: camelCase (`sessionId`, `timestamp` in ms, `toolName`, `toolArgs`, `toolResult`), or PascalCase (`hook_event_name`, `session_id`, ISO `timestamp`, `tool_name`, `tool_input`, `tool_result`)',
  })

export const CopilotStreamEvent = streamLine(
  'CopilotStreamEvent',
  'tool.execution_start, tool.execution_complete, assistant.turn_end, result, …',
  {
    data: z.unknown().optional(),
    sessionId: z.string().optional(),
    exitCode: z.number().optional(),
  },
  'One line of `copilot -p … --output-format json`'
)

export const copilot = valuesAgent({
  source: 'copilot',
  name: 'GitHub Copilot CLI',
  labels: { badge: 'Copilot CLI' },
  prefix: 'copilot',
  family: 'copilot',
  defaultDialect: 'copilot-todos',
  summary:
    'A GitHub Copilot CLI hook input (camelCase or PascalCase), or `copilot -p … --output-format json` JSONL; session `copilot:<sessionId>`',
  body: ingestBody(
    hookOrLines(CopilotHookInput, CopilotStreamEvent),
    'One hook input, or JSONL lines'
  ),
  parse: parseCopilot,
  claims: (value) => isRecord(value) && isCopilotHook(value),
  lifecycle: {
    starts: ['sessionStart', 'SessionStart'],
    ends: ['sessionEnd', 'SessionEnd', 'result'],
    waits: ['permissionRequest', 'Notification permission_prompt'],
  },
  decide: copilotDecisions,
})
