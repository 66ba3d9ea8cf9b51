/**
 * @module agents/codex
 * Codex CLI: the JSONL of `codex exec --json` (whole or in consecutive parts; only its first line
 * names the thread), or one command-hook input. Session `codex:<thread_id>`; its `update_plan`
 * (and the stream's `todo_list` snapshots) write the `codex-plan` dialect.
 */
import { z } from '@hono/zod-openapi'
import { valuesOf } from '../ingest/body.js'
import { parseCodex } from '../ingest/codex.js'
import { COUNTS_REPLY, ingestBody } from './schemas.js'
import type { AgentDescriptor } from './types.js'

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

export const codex: AgentDescriptor<'codex'> = {
  source: 'codex',
  name: 'Codex CLI',
  prefix: 'codex',
  family: 'codex',
  defaultDialect: 'codex-plan',
  edits: 'never',
  routes: [
    {
      path: '/v1/ingest/codex',
      summary:
        '`codex exec --json` JSONL (whole or in consecutive parts), or one Codex command-hook input; session `codex:<thread_id>`',
      body: ingestBody(
        z.union([CodexHookInput, CodexEvent, z.array(CodexEvent)]),
        'JSONL lines, or one hook input'
      ),
      parse: (body) => ({ events: parseCodex(valuesOf(body)) }),
    },
  ],
  lifecycle: {
    starts: ['SessionStart', 'thread.started'],
    ends: ['SessionEnd', 'turn.completed', 'turn.failed'],
    waits: ['request_user_input'],
  },
  reply: COUNTS_REPLY,
}
