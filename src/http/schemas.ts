/**
 * @module http/schemas
 * The wire shapes of API v1, snake_case; the single source of request validation and of the
 * OpenAPI document.
 */
import { z } from '@hono/zod-openapi'
import { VIAS } from '../core/people.js'
import { STATUSES } from '../core/items.js'
import { SESSION_ID_PATTERN } from '../core/ids.js'
import type { Progress as CoreProgress } from '../core/progress.js'
import { LIMIT_CEILINGS } from '../core/limits.js'
import {
  LABEL_NAME_PATTERN,
  MAX_LABEL_VALUE,
  MAX_LABELS,
  MAX_ORIGIN_FIELD,
  ORIGIN_FIELDS,
  UNSAFE_LABEL_CHARACTER,
} from '../core/origin.js'
import {
  DECISION_KINDS,
  DECISION_OUTCOMES,
  ENDED_OUTCOMES,
  OPTION_KINDS,
  SESSION_SOURCES,
  SESSION_STATES,
} from '../core/session.js'
import { FLAVOURS } from '../dialects/flavour.js'
import { DIALECT_NAMES } from '../dialects/registry.js'
import { TOOL_FORMATS } from '../tools/formats.js'

export { SESSION_ID_PATTERN }

export const SessionIdParam = z.object({
  session_id: z
    .string()
    .regex(SESSION_ID_PATTERN, `session id must match ${SESSION_ID_PATTERN.source}`)
    .openapi({ param: { name: 'session_id', in: 'path' }, example: 'run-42' }),
})

export const DialectName = z.enum(DIALECT_NAMES).openapi('DialectName')

/**
 * A named schema or null, documented `anyOf: [$ref, {type: null}]`: zod-to-openapi renders
 * `.nullable()` of a named schema as `allOf` with a null type (which loses the null for every
 * generator) or makes the component itself nullable.
 * @param schema - a schema registered with `.openapi(name)`
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()])
// The caps the service configures (MAX_CONTENT_LENGTH, MAX_ITEMS, MAX_JSON_DEPTH,
// MAX_SESSION_BYTES) are checked after the schema, with a 422 naming them; the schema only caps
// at the largest value each may be configured to (LIMIT_CEILINGS), so it never refuses first.
const text = () =>
  z.string().max(LIMIT_CEILINGS.maxContentLength).openapi({
    description: 'At most MAX_CONTENT_LENGTH characters (default 10000); longer gets 422.',
  })

const itemFields = {
  id: z.string().min(1).max(128),
  content: text(),
  status: z.enum(STATUSES),
  active_form: text().optional(),
  description: text().optional(),
  owner: z.string().max(256).optional(),
  metadata: z.record(z.string(), z.unknown()).optional().openapi({
    description:
      'Nested at most MAX_JSON_DEPTH levels counting the item as 1 (default 32); deeper gets 422.',
  }),
  notes: text().optional(),
}
const dependencyIds = z.array(z.string().max(128)).max(LIMIT_CEILINGS.maxItems)

export const Item = z
  .object({ ...itemFields, blocks: dependencyIds, blocked_by: dependencyIds })
  .openapi('Item')

/** An item as an operator sends it: dependency lists may be left out. */
export const ItemInput = z
  .object({ ...itemFields, blocks: dependencyIds.optional(), blocked_by: dependencyIds.optional() })
  .openapi('ItemInput')

/** The counters of core `Progress`, in the order the wire shows them. */
const PROGRESS_COUNTERS = [
  'total',
  'completed',
  'in_progress',
  'pending',
  'cancelled',
  'blocked',
  'percent',
] as const satisfies readonly (keyof CoreProgress)[]

export const Progress = z
  .object(
    Object.fromEntries(PROGRESS_COUNTERS.map((counter) => [counter, z.number().int()])) as Record<
      (typeof PROGRESS_COUNTERS)[number],
      z.ZodNumber
    >
  )
  .openapi('Progress')

export const Flavour = z.enum(FLAVOURS).openapi('Flavour', {
  description:
    "Which package of the native a flavoured dialect speaks: `langchain-todos` python (the default) or js (the npm `langchain`'s texts); other dialects have one flavour and ignore it",
})

export const Settings = z
  .object({
    reminder: z.boolean().optional().openapi({ description: 'false turns the reminder off' }),
    reminder_after_rounds: z.number().int().min(1).max(10_000).optional(),
    flavour: Flavour.optional(),
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

const originField = (description: string) =>
  z
    .string()
    .nullable()
    .openapi({ description: `${description}; null when unknown` })

/** Who and where a session runs (docs/observe.md, "Who and where"); each field a string or null. */
export const Origin = z
  .object({
    user: originField('The person whose agent it is (a key with a user of its own fixes it)'),
    host: originField("The agent's machine"),
    cwd: originField("The agent's working directory"),
    repo: originField('The git remote (credentials dropped) or owner/name'),
    branch: originField('The git branch'),
    agent: originField('The agent (an observed session: its source, e.g. claude-code)'),
    agent_version: originField("The agent's version"),
    model: originField('The model'),
    user_verified: z.boolean().openapi({
      description:
        'true when `user` came from a credential (a personal token, a keys-file key with a user, a sign-in); false when only a header or a body named it',
    }),
  })
  .openapi('Origin', {
    description:
      "Filled once, field by field, from the agent's events, the X-Agent-User/-Host/-Repo/-Branch headers and a first round or PUT body; a set field is never rewritten.",
  })

export const Labels = z.record(z.string(), z.string()).openapi('Labels', {
  description: 'Free labels, name → value: names are added, a set value never changes.',
})

/**
 * Labels as a request sends them: at most 16, names `^[a-z][a-z0-9_.-]{0,62}$`, values ≤ 256
 * characters without control or bidi characters (`UNSAFE_LABEL_CHARACTER`).
 */
export const LabelsInput = z
  .record(
    z.string().regex(LABEL_NAME_PATTERN),
    z
      .string()
      .max(MAX_LABEL_VALUE)
      .refine((value) => !UNSAFE_LABEL_CHARACTER.test(value), {
        message: 'a label value may not hold control or bidi characters',
      })
  )
  .refine((labels) => Object.keys(labels).length <= MAX_LABELS, {
    message: `at most ${MAX_LABELS} labels`,
  })
  .openapi({
    description: `At most ${MAX_LABELS} labels; names match ${LABEL_NAME_PATTERN.source}, values are strings of at most ${MAX_LABEL_VALUE} characters without control characters (C0, C1) or bidi controls (U+202A–202E, U+2066–2069, U+200E, U+200F, U+061C); more is a 400. A set label keeps its value.`,
  })

/** What a request may say of its origin (a field set already is kept). */
export const OriginInput = z
  .object(
    Object.fromEntries(
      ORIGIN_FIELDS.map((field) => [field, z.string().max(MAX_ORIGIN_FIELD).nullable().optional()])
    ) as Record<(typeof ORIGIN_FIELDS)[number], z.ZodOptional<z.ZodNullable<z.ZodString>>>
  )
  .strict()
  .openapi({
    description:
      "Fills what the session does not know yet (the X-Agent-* headers and a key's user go first); a set field is never rewritten.",
  })

export const RoundRequest = z
  .object({
    dialect: DialectName.optional(),
    tool_calls: z
      .array(ToolCall)
      .min(1)
      .max(LIMIT_CEILINGS.maxToolCalls)
      .openapi({ description: 'At most MAX_TOOL_CALLS (default 128); more gets 400.' }),
    settings: Settings.optional(),
    origin: OriginInput.optional(),
    labels: LabelsInput.optional(),
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
    notice: orNull(Notice),
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

export const SessionSourceName = z.enum(SESSION_SOURCES).openapi('SessionSource', {
  description: 'What fed the session first: `rounds` (executed here) or the observed agent',
})

export const DecisionOptionView = z
  .object({ id: z.string(), label: z.string(), kind: z.enum(OPTION_KINDS) })
  .openapi('DecisionOption')

export const DecisionRequestView = z
  .object({
    id: z.string(),
    kind: z.enum(DECISION_KINDS),
    tool: z.string().nullable(),
    input: z.unknown().openapi({
      description: "The tool's input; past 4 KB of JSON, its JSON text cut there (a string)",
    }),
    options: z.array(DecisionOptionView),
    questions: z.unknown().optional(),
    expires_at: z.string(),
    channel: z.string().openapi({ description: 'The agent route that holds it open' }),
  })
  .openapi('DecisionRequest')

export const Waiting = z
  .object({
    reason: z.string().openapi({
      description:
        'idle_prompt, permission_prompt (Claude Code; opencode and Kilo `permission.asked`), requires_action (Agent SDK), request_user_input (Codex), waiting_for_confirmation (OpenHands), question (opencode and Kilo `question.asked`)',
    }),
    message: z.string().nullable(),
    at: z.string(),
    request: DecisionRequestView.optional().openapi({
      description:
        'A request the agent holds open for an answer from elsewhere (a `?decide=1` hook): answer it with POST /v1/sessions/{id}/decisions (docs/decisions.md)',
    }),
  })
  .openapi('Waiting', { description: 'The observed agent waits for a person (not stale)' })

export const LastDecision = z
  .object({
    request_id: z.string(),
    kind: z.enum(DECISION_KINDS),
    tool: z.string().nullable(),
    outcome: z.enum(DECISION_OUTCOMES),
    by: z.string().nullable(),
    channel: z.string(),
    at: z.string(),
  })
  .openapi('LastDecision', {
    description:
      "How the last request was answered: allowed, denied or answered by a person (`by`, from `channel`: api, dashboard, slack), answered_elsewhere (at the agent's own prompt), expired",
  })

export const ObservedView = z
  .object({
    todo_tools: z.boolean().nullable().openapi({
      description:
        'Whether the agent has todo tools at all (false: Claude Code without CLAUDE_CODE_ENABLE_TODO_TOOLS=1 on current models); null when unknown',
    }),
    subagents: z.array(z.string()).openapi({ description: "Subagents' own list sessions" }),
    pending_edit: z
      .object({ items: z.array(Item), at: z.string() })
      .nullable()
      .openapi({ description: "A person's edit, handed to the model with the next hook reply" }),
    pending_calls: z
      .number()
      .int()
      .openapi({ description: 'Calls seen whose result has not arrived yet' }),
    last_decision: orNull(LastDecision),
  })
  .openapi('ObservedView')

/** A session's state, computed by the server (core `sessionState`); the listing filter's names. */
export const SessionStateName = z.enum(SESSION_STATES).openapi('SessionState', {
  description:
    'ended: its run was ended; done: every item completed or cancelled; waiting: an observed agent waits for a person (a Claude permission or idle prompt; see `waiting`), never stale; stale: some item unfinished and no change for STALE_AFTER_SECONDS; active: otherwise. More states may be added: show an unknown one as it is named.',
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
    current: orNull(Item),
    round: z.number().int(),
    rounds_since_todo: z.number().int(),
    reminder_due: z.boolean(),
    settings: Settings,
    ended: orNull(Ended),
    source: SessionSourceName,
    parent: z.string().nullable().openapi({ description: "A subagent's list: the main session" }),
    waiting: orNull(Waiting),
    items_known: z.boolean().openapi({
      description:
        "false while the list's item texts are unknown: Claude Code's TodoWrite seen only through its telemetry logs, which carry the item count (docs/otel.md)",
    }),
    background: z.number().int().openapi({
      description:
        'Background work the agent still runs (Claude Code Stop `background_tasks`): while above 0 the session is not done',
    }),
    observed: orNull(ObservedView).openapi({ description: 'null for sessions fed by rounds' }),
    origin: Origin,
    labels: Labels,
    editable: z.boolean().openapi({
      description:
        "Whether PUT …/todos takes a person's edit: false when an observed agent owns the list (PUT answers 409 agent-owns-list); for an observed Claude session that Claude Code hooks feed, the edit is handed to the model in a hook reply (observed.pending_edit)",
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('SessionView')

export const PutTodosRequest = z
  .object({
    items: z.array(ItemInput).max(LIMIT_CEILINGS.maxItems).openapi({
      description:
        'At most MAX_ITEMS items (default 500) and MAX_SESSION_BYTES of JSON (default 1 MiB); more gets 422.',
    }),
    dialect: DialectName.optional(),
    // the settings of a session this PUT creates, as a first round sets them
    settings: Settings.optional(),
    origin: OriginInput.optional(),
    labels: LabelsInput.optional(),
  })
  .openapi('PutTodosRequest')

export const EndRequest = z
  .object({ outcome: z.enum(ENDED_OUTCOMES), detail: z.string().max(10_000).optional() })
  .openapi('EndRequest')

export const LIST_STATES = ['active', 'waiting', 'done', 'stale', 'ended', 'all'] as const

export const ListQuery = z.object({
  state: z.enum(LIST_STATES).default('all'),
  dialect: DialectName.optional(),
  source: SessionSourceName.optional(),
  user: z.string().max(MAX_ORIGIN_FIELD).optional().openapi({
    description:
      "Only sessions of this origin user (exact); `me`: the caller's own (signed in, a personal token or a key with a user; else 400). Labels filter as `label.<name>=<value>` (exact; several combine, with every other filter)",
  }),
  host: z.string().max(MAX_ORIGIN_FIELD).optional().openapi({ description: 'Only this host' }),
  repo: z.string().max(MAX_ORIGIN_FIELD).optional().openapi({
    description: 'Only this repo, as stored (a URL without credentials, or owner/name)',
  }),
  agent: z.string().max(MAX_ORIGIN_FIELD).optional().openapi({
    description: 'Only this agent (origin.agent: the observed source, e.g. claude-code)',
  }),
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
    current: orNull(Item),
    round: z.number().int(),
    reminder_due: z.boolean(),
    ended: orNull(Ended),
    stale: z.boolean().openapi({ description: "state is 'stale'" }),
    source: SessionSourceName,
    parent: z.string().nullable().openapi({ description: "A subagent's list: the main session" }),
    waiting: orNull(Waiting),
    background: z.number().int().openapi({
      description:
        'Background work the agent still runs (Claude Code Stop `background_tasks`): while above 0 the session is not done',
    }),
    todo_tools: z.boolean().nullable().openapi({
      description: "The view's observed.todo_tools: false when the agent has no todo tools",
    }),
    items_known: z.boolean().openapi({
      description:
        "false while the list's item texts are unknown: Claude Code's TodoWrite seen only through its telemetry logs, which carry the item count (docs/otel.md)",
    }),
    origin: Origin,
    labels: Labels,
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
    source: z.enum(['round', 'put', 'end', 'delete', 'ingest', 'decision']),
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
  strict: z.enum(['true', 'false']).default('false').openapi({
    description:
      'true: strict schemas and `strict: true` (openai, openai-responses and anthropic only): every object closed, every property required, optional ones nullable',
  }),
  flavour: Flavour.optional(),
})

/** A tool's input schema: a JSON Schema object. */
const InputJsonSchema = z
  .object({
    type: z.literal('object'),
    properties: z.record(z.string(), z.unknown()).optional(),
    required: z.array(z.string()).optional(),
  })
  .catchall(z.unknown())
  .openapi('ToolInputSchema')

const toolText = { name: z.string(), description: z.string() }

/** One tool in each provider format (`tools/formats`). */
export const ProviderTools = {
  anthropic: z
    .object({ ...toolText, input_schema: InputJsonSchema, strict: z.boolean().optional() })
    .openapi('AnthropicTool', { description: 'Anthropic Messages API `Tool`' }),
  openai: z
    .object({
      type: z.literal('function'),
      function: z.object({
        ...toolText,
        parameters: InputJsonSchema,
        strict: z.boolean().optional(),
      }),
    })
    .openapi('OpenAIChatTool', {
      description: 'OpenAI Chat Completions `ChatCompletionFunctionTool`',
    }),
  'openai-responses': z
    .object({
      type: z.literal('function'),
      ...toolText,
      parameters: InputJsonSchema,
      strict: z.boolean(),
    })
    .openapi('OpenAIResponsesTool', { description: 'OpenAI Responses API `FunctionTool`' }),
  gemini: z
    .object({ ...toolText, parametersJsonSchema: InputJsonSchema })
    .openapi('GeminiFunctionDeclaration', {
      description: 'Gemini `FunctionDeclaration` with a JSON Schema (`parametersJsonSchema`)',
    }),
  mcp: z.object({ ...toolText, inputSchema: InputJsonSchema }).openapi('McpTool'),
} as const

const toolsReplyOf = <F extends keyof typeof ProviderTools>(format: F, name: string) =>
  z
    .object({
      dialect: DialectName,
      format: z.literal(format),
      tools: z.array(ProviderTools[format]),
    })
    .openapi(name)

export const ToolsReply = z
  .discriminatedUnion('format', [
    toolsReplyOf('anthropic', 'AnthropicToolsReply'),
    toolsReplyOf('openai', 'OpenAIToolsReply'),
    toolsReplyOf('openai-responses', 'OpenAIResponsesToolsReply'),
    toolsReplyOf('gemini', 'GeminiToolsReply'),
    toolsReplyOf('mcp', 'McpToolsReply'),
  ])
  .openapi('ToolsReply')

export const DialectsReply = z
  .object({
    dialects: z.array(
      z.object({ name: DialectName, tools: z.array(z.string()), description: z.string() })
    ),
  })
  .openapi('DialectsReply')

export const DialectParams = z.object({
  name: z.string().openapi({ param: { name: 'name', in: 'path' }, example: 'langchain-todos' }),
})

export const DialectQuery = z.object({ flavour: Flavour.optional() })

export const DialectReply = z
  .object({
    name: DialectName,
    flavour: orNull(Flavour).openapi({ description: 'null for a dialect with one flavour' }),
    flavours: z.array(Flavour).openapi({ description: 'empty for a dialect with one flavour' }),
    tools: z.array(z.string()),
    description: z.string(),
    system_prompt: z.string().nullable().openapi({
      description:
        'The guidance the native agent puts in its system prompt beside the tool, byte for byte, for a client to add to its own; null where the native has none (or none verified)',
    }),
  })
  .openapi('DialectReply')

export const Whoami = z
  .object({
    tenant: z.string(),
    role: z.enum(['admin', 'agent', 'viewer']).openapi({
      description:
        'admin: all an agent may, and the webhooks and the audit trail; agent reads and writes; viewer reads. Open access (no keys configured): agent',
    }),
    user: z.string().nullable().openapi({
      description:
        "The verified person: a signed-in user, a personal token's or a keys-file key's user; null for a key without one and in open access",
    }),
    via: z.enum(VIAS).openapi({
      description:
        'How the caller was recognised: key (AUTH_KEYS, AUTH_KEYS_FILE), token (a personal token), oidc (the sign-in cookie), open (no keys configured)',
    }),
    csrf_token: z.string().optional().openapi({
      description:
        'Signed in (via oidc) only: the X-CSRF-Token a write with the sign-in cookie must send',
    }),
  })
  .openapi('Whoami')
