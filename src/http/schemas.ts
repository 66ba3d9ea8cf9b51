/**
 * @module http/schemas
 * The wire shapes of API v1, snake_case; the single source of request validation and of the
 * OpenAPI document.
 */
import { z } from '@hono/zod-openapi'
import { STATUSES } from '../core/items.js'
import { ENDED_OUTCOMES, SESSION_STATES } from '../core/session.js'
import { DIALECT_NAMES } from '../dialects/registry.js'
import { TOOL_FORMATS } from '../tools/formats.js'

export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/

export const SessionIdParam = z.object({
  session_id: z
    .string()
    .regex(SESSION_ID_PATTERN, 'session id must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$')
    .openapi({ param: { name: 'session_id', in: 'path' }, example: 'run-42' }),
})

export const DialectName = z.enum(DIALECT_NAMES).openapi('DialectName')

const itemFields = {
  id: z.string().min(1).max(128),
  content: z.string().max(10_000),
  status: z.enum(STATUSES),
  active_form: z.string().max(10_000).optional(),
  description: z.string().max(10_000).optional(),
  owner: z.string().max(256).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  notes: z.string().max(10_000).optional(),
}
const dependencyIds = z.array(z.string().max(128)).max(1000)

export const Item = z
  .object({ ...itemFields, blocks: dependencyIds, blocked_by: dependencyIds })
  .openapi('Item')

/** An item as an operator sends it: dependency lists may be left out. */
export const ItemInput = z
  .object({ ...itemFields, blocks: dependencyIds.optional(), blocked_by: dependencyIds.optional() })
  .openapi('ItemInput')

export const Progress = z
  .object({
    total: z.number().int(),
    completed: z.number().int(),
    in_progress: z.number().int(),
    pending: z.number().int(),
    cancelled: z.number().int(),
    blocked: z.number().int(),
    percent: z.number().int(),
  })
  .openapi('Progress')

export const Settings = z
  .object({
    reminder: z.boolean().optional().openapi({ description: 'false turns the reminder off' }),
    reminder_after_rounds: z.number().int().min(1).max(10_000).optional(),
  })
  .openapi('SessionSettings')

export const ToolCall = z
  .object({
    id: z.string().max(512).optional(),
    name: z.string().min(1).max(256),
    input: z.unknown().optional().openapi({ description: 'Anthropic tool_use input' }),
    arguments: z.unknown().optional().openapi({ description: 'OpenAI arguments (a JSON string)' }),
    args: z.unknown().optional().openapi({ description: 'Gemini functionCall args' }),
  })
  .openapi('ToolCall')

export const RoundRequest = z
  .object({
    dialect: DialectName.optional(),
    tool_calls: z.array(ToolCall).min(1).max(128),
    settings: Settings.optional(),
  })
  .openapi('RoundRequest')

export const ToolResult = z
  .object({
    tool_use_id: z.string(),
    name: z.string(),
    is_error: z.boolean(),
    content: z.string(),
    structured: z.unknown(),
  })
  .openapi('ToolResult')

export const Notice = z.object({ text: z.string(), rendered: z.string() }).openapi('Notice')

export const RoundReply = z
  .object({
    session_id: z.string(),
    dialect: DialectName,
    round: z.number().int(),
    version: z.number().int(),
    results: z.array(ToolResult),
    used_todo: z.boolean(),
    rounds_since_todo: z.number().int(),
    reminder: z.object({ text: z.string() }).nullable(),
    notice: Notice.nullable(),
    dropped: z.array(Item),
    progress: Progress,
  })
  .openapi('RoundReply')

export const Ended = z
  .object({
    outcome: z.enum(ENDED_OUTCOMES),
    detail: z.string().nullable(),
    at: z.string(),
    unfinished: z.array(z.string()),
  })
  .openapi('Ended')

/** A session's state, computed by the server (core `sessionState`); the listing filter's names. */
export const SessionStateName = z.enum(SESSION_STATES).openapi('SessionState', {
  description:
    'ended: its run was ended; done: every item completed or cancelled; stale: some item unfinished and no change for STALE_AFTER_SECONDS; active: otherwise. More states may be added: show an unknown one as it is named.',
})

export const SessionView = z
  .object({
    session_id: z.string(),
    dialect: DialectName,
    version: z.number().int(),
    state: SessionStateName,
    items: z.array(Item),
    rendered: z.string(),
    progress: Progress,
    current: Item.nullable(),
    round: z.number().int(),
    rounds_since_todo: z.number().int(),
    reminder_due: z.boolean(),
    settings: Settings,
    ended: Ended.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('SessionView')

export const PutTodosRequest = z
  .object({ items: z.array(ItemInput).max(1000), dialect: DialectName.optional() })
  .openapi('PutTodosRequest')

export const EndRequest = z
  .object({ outcome: z.enum(ENDED_OUTCOMES), detail: z.string().max(10_000).optional() })
  .openapi('EndRequest')

export const LIST_STATES = ['active', 'done', 'stale', 'ended', 'all'] as const

export const ListQuery = z.object({
  state: z.enum(LIST_STATES).default('all'),
  dialect: DialectName.optional(),
  updated_since: z.iso.datetime({ offset: true }).optional().openapi({
    description: 'Only sessions changed at or after this time (RFC 3339)',
    example: '2026-11-30T12:00:00Z',
  }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
})

export const SessionSummary = z
  .object({
    session_id: z.string(),
    dialect: DialectName,
    version: z.number().int(),
    state: SessionStateName,
    progress: Progress,
    current: Item.nullable(),
    round: z.number().int(),
    reminder_due: z.boolean(),
    ended: Ended.nullable(),
    stale: z.boolean().openapi({ description: "state is 'stale'" }),
    updated_at: z.string(),
  })
  .openapi('SessionSummary')

export const SessionList = z
  .object({
    sessions: z.array(SessionSummary),
    next_cursor: z.string().nullable().openapi({
      description:
        'Present when more sessions follow (a page ends at limit or at 2 MiB). Pages follow the last change, newest first: a session that changes during the iteration moves to the front and is not on a later page; list again with updated_since = the time the iteration began to catch those.',
    }),
  })
  .openapi('SessionList')

export const HistoryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({
    description:
      'Entries per page (at most HISTORY_LIMIT, its default); a page also stops at 2 MiB',
  }),
  cursor: z.string().max(64).optional().openapi({
    description: "The previous page's next_cursor: the entries older than that page",
  }),
})

export const HistoryEntry = z
  .object({
    version: z.number().int(),
    at: z.string(),
    source: z.enum(['round', 'put', 'end', 'delete']),
    items: z.array(Item),
  })
  .openapi('HistoryEntry')

export const History = z
  .object({
    entries: z.array(HistoryEntry).openapi({ description: 'Oldest first within the page' }),
    next_cursor: z.string().nullable().openapi({
      description: 'Present when older entries remain: pass it as cursor for the page before',
    }),
  })
  .openapi('History')

export const ToolsQuery = z.object({
  dialect: DialectName.default('s03'),
  format: z.enum(TOOL_FORMATS).default('anthropic'),
})

export const ToolsReply = z
  .object({
    dialect: DialectName,
    format: z.enum(TOOL_FORMATS),
    tools: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi('ToolsReply')

export const DialectsReply = z
  .object({
    dialects: z.array(
      z.object({ name: DialectName, tools: z.array(z.string()), description: z.string() })
    ),
  })
  .openapi('DialectsReply')

export const Whoami = z
  .object({
    tenant: z.string(),
    role: z.enum(['agent', 'viewer']).openapi({
      description: 'agent reads and writes; viewer reads. Open access (no keys configured): agent',
    }),
  })
  .openapi('Whoami')
