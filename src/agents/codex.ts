/**
 * @module agents/codex
 * Codex CLI: the JSONL of `codex exec --json` (whole or in consecutive parts; only its first line
 * names the thread), or one command-hook input. Session `codex:<thread_id>`; its `update_plan`
 * (and the stream's `todo_list` snapshots) write the `codex-plan` dialect.
 */
import { z } from '@hono/zod-openapi'
import { parseCodex } from '../ingest/codex.js'
import { codexDecisions } from './decide.js'
import { valuesAgent } from './define.js'
import { HOOK_TOOL_FIELDS, hookInput, hookOrLines, ingestBody, streamLine } from './schemas.js'

export const CodexEvent = streamLine(
  'CodexExecEvent',
  'thread.started, turn.started, turn.completed, turn.failed, item.started / item.updated / item.completed (todo_list), error',
  { thread_id: z.string().optional(), item: z.unknown().optional() },
  'One line of `codex exec --json`'
)

export const CodexHookInput = hookInput(
  'CodexHookInput',
  { ...HOOK_TOOL_FIELDS, tool_use_id: z.string().optional() },
  'One Codex command-hook input (its stdin)'
)

export const codex = valuesAgent({
  source: 'codex',
  name: 'Codex CLI',
  labels: { badge: 'Codex' },
  observe: { kind: 'codex', programs: ['codex', '@openai/codex'] },
  prefix: 'codex',
  family: 'codex',
  defaultDialect: 'codex-plan',
  summary:
    '`codex exec --json` JSONL (whole or in consecutive parts), or one Codex command-hook input; session `codex:<thread_id>`',
  body: ingestBody(hookOrLines(CodexHookInput, CodexEvent), 'JSONL lines, or one hook input'),
  parse: parseCodex,
  lifecycle: {
    starts: ['SessionStart', 'thread.started'],
    ends: ['SessionEnd', 'turn.completed', 'turn.failed'],
    waits: ['request_user_input'],
  },
  decide: codexDecisions,
})
