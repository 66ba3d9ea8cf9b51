/**
 * @module core/session
 * The stored state of one agent conversation, independent of dialect and storage.
 */
import { isUnfinished, type Item } from './items.js'
import type { Labels, Origin } from './origin.js'
import type { ReminderSettings } from './reminder.js'

/** Every flavour a setting may name; `python` is each flavoured dialect's default (`dialects/flavour`). */
export const FLAVOURS = ['python', 'js'] as const
export type Flavour = (typeof FLAVOURS)[number]

/** A session's settings: the reminder's overrides and the flavour of a flavoured dialect. */
export interface SessionSettings extends ReminderSettings {
  flavour?: Flavour
}

export const ENDED_OUTCOMES = ['completed', 'max_turns', 'error', 'cancelled'] as const
export type EndedOutcome = (typeof ENDED_OUTCOMES)[number]

export interface Ended {
  outcome: EndedOutcome
  detail: string | null
  at: number
  unfinished: string[]
}

/**
 * What caused a version: a counted round, an operator's PUT, the end of a run, what an observed
 * agent did (ingest), or a person's answer to its pending request (decision).
 */
export type ChangeSource = 'round' | 'put' | 'end' | 'delete' | 'ingest' | 'decision'

/** The agents whose own todo tools the service observes (`POST /v1/ingest/{source}`). */
export const OBSERVED_SOURCES = [
  'claude-code',
  'claude-agent-sdk',
  'codex',
  'gemini-cli',
  'openhands',
  'qwen-code',
  'opencode',
  'kilo',
  'acp',
  'copilot',
  'otlp',
] as const
export type ObservedSource = (typeof OBSERVED_SOURCES)[number]

/** What fed a session first: rounds executed here, or an observed agent. */
export const SESSION_SOURCES = ['rounds', ...OBSERVED_SOURCES] as const
export type SessionSource = (typeof SESSION_SOURCES)[number]

/** What a pending request asks of a person (docs/decisions.md). */
export const DECISION_KINDS = ['permission', 'question', 'elicitation'] as const
export type DecisionKind = (typeof DECISION_KINDS)[number]

/** What an option of a request does. */
export const OPTION_KINDS = ['allow_once', 'allow_always', 'deny', 'answer'] as const
export type OptionKind = (typeof OPTION_KINDS)[number]

/** One answer a person may pick. */
export interface DecisionOption {
  id: string
  label: string
  kind: OptionKind
}

/**
 * A request an agent holds open for a person's answer (a `?decide=1` hook): shown in the
 * session's `waiting.request` until it is answered, expires, or the agent shows it was answered
 * at its own prompt.
 */
export interface DecisionRequest {
  id: string
  kind: DecisionKind
  /** The tool the agent asks for (an MCP server's name for an elicitation), or null. */
  tool: string | null
  /** The tool's input, at most `MAX_REQUEST_INPUT_BYTES` of JSON (cut: a string then). */
  input: unknown
  options: DecisionOption[]
  /** A question's questions (Claude's AskUserQuestion) or an elicitation's schema. */
  questions?: unknown
  /** Epoch ms. */
  at: number
  expires_at: number
  /** The agent route that holds the request open (`claude-code`, `qwen-code`, `codex`, `copilot`). */
  channel: string
  /** What ties the agent's later events to the request (a digest of tool and input). */
  match: string
}

/** How a request ended. */
export const DECISION_OUTCOMES = [
  'allowed',
  'denied',
  'answered',
  'answered_elsewhere',
  'expired',
] as const
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number]

/** A request's answer: who gave it, where, and what the agent is told. */
export interface DecisionAnswer {
  outcome: DecisionOutcome
  /** The person, or null (the terminal, the clock). */
  by: string | null
  /** Where it came from: `api`, `dashboard`, `slack`, `terminal`, `service`. */
  channel: string
  at: number
  option_id?: string
  /** A deny's reason, handed to the model. */
  message?: string
  /** A question's answers (question text → label), or an elicitation's content. */
  answers?: Record<string, unknown>
}

/** A request and its answer (null while it is pending). */
export interface DecisionRecord {
  request: DecisionRequest
  answer: DecisionAnswer | null
}

/** An observed agent waiting for a person (a permission prompt, an idle prompt). */
export interface Waiting {
  reason: string
  message: string | null
  at: number
  /** The request a person may answer from elsewhere (a `?decide=1` hook holds it open). */
  request?: DecisionRequest
}

/** A tool call seen before its result, kept until the result arrives in a later delivery. */
export interface StagedCall {
  id: string
  name: string
  input: unknown
  /** Bytes of the input's JSON, measured when it was staged (absent in older records). */
  bytes?: number
}

/**
 * What the service keeps about a session whose agent runs its own todo tools
 * (docs/observe.md): never executed here, only applied from the agent's events.
 */
export interface Observed {
  /** The first source that fed the session. */
  source: ObservedSource
  /** The main session of a subagent's own list. */
  parent: string | null
  /** The subagent sessions of this one, in order of appearance. */
  agents: string[]
  waiting: Waiting | null
  /** Whether the agent has todo tools at all (Claude's `system/init.tools`); null when unknown. */
  todo_tools: boolean | null
  /** Whether a todo tool fixed the dialect yet (until then it is the source's default). */
  dialect_fixed: boolean
  /**
   * Digests of the last applied call ids, oldest first (bounded; `ingest/applied-ids`): a second
   * delivery of one applies nothing. Sessions stored before the digests hold the ids as an array.
   */
  applied: string
  /** Calls waiting for their result (bounded). */
  pending: StagedCall[]
  /** How specific the current `ended` is: a later, less specific end of the run does not replace it. */
  end_rank: number
  /** A person's edit (PUT) waiting to be handed to the model once (Claude's hook reply). */
  pending_edit: { items: Item[]; at: number } | null
  /** The last requests and their answers, oldest first (bounded; `core/decisions`). */
  decisions?: DecisionRecord[]
  /**
   * Background work the agent said is still running (Claude's Stop `background_tasks`): the
   * work is not over, so the session is not done. Absent: none.
   */
  background?: number
  /**
   * The keys-file user that fixed `origin.user` (the session's verified person) until origins
   * carry `user_verified` themselves.
   */
  verified_user?: string
  /**
   * Claude Code hooks fed a session whose first source was another (the SDK stream): a person's
   * edit can reach the model, as only a hook reply carries it. Absent: no hook yet, unless the
   * source is `claude-code`.
   */
  hooks?: true
}

export interface Session {
  tenant: string
  session_id: string
  dialect: string
  version: number
  items: Item[]
  round: number
  rounds_since_todo: number
  rounds_since_reminder: number | null
  settings: SessionSettings
  /** Dialect-private state, e.g. the next task id of claude-tasks. */
  dialect_state: Record<string, unknown>
  /** Set by an operator's PUT; the next round reply carries a notice and clears it. */
  notice_pending: boolean
  ended: Ended | null
  /** Present when the session observes an agent that runs its own todo tools. */
  observed?: Observed
  /**
   * Who and where the session runs (`core/origin`): filled once, field by field, never rewritten.
   * Absent in sessions stored before origins were kept (read as all null).
   */
  origin?: Origin
  /** Free labels (name → value): names are added, a set value never changes. Absent: none. */
  labels?: Labels
  /** Epoch milliseconds. */
  created_at: number
  updated_at: number
}

/**
 * Whether the texts of the session's items are known: false while its list came from Claude
 * Code's TodoWrite telemetry log, which carries only the item count (`dialect_state.items_known`).
 * @param session - the session
 */
export const itemsKnown = (session: Pick<Session, 'dialect_state'>): boolean =>
  session.dialect_state.items_known !== false

/** A stored version of the list, for history and stream replay. */
export interface HistoryEntry {
  version: number
  at: number
  source: ChangeSource
  items: Item[]
}

/**
 * The history entry a write of `session` adds.
 * @param session - the session as written
 * @param source - what wrote it
 */
export const historyEntryOf = (session: Session, source: ChangeSource): HistoryEntry => ({
  version: session.version,
  at: session.updated_at,
  source,
  items: session.items,
})

/** Which sessions a listing returns; `stale` needs `staleBefore`. */
export type ListState = 'active' | 'waiting' | 'done' | 'stale' | 'ended' | 'all'

/**
 * What a session's state is decided from (`sessionState`): the columns a store indexes to filter
 * listings without reading every record. Not the listing's `SessionSummary` (http/schemas).
 */
export interface StateColumns {
  total: number
  unfinished: number
  ended: boolean
  /** An observed agent waits for a person: not stale. */
  waiting?: boolean
  /** The agent still runs background work: not done. */
  background?: boolean
}

/**
 * What fed the session first: `rounds`, or the observed agent.
 * @param session - the session
 */
export function sessionSource(session: Pick<Session, 'observed'>): SessionSource {
  return session.observed?.source ?? 'rounds'
}

/**
 * The identity of a session: tenant and id.
 */
export interface SessionKey {
  tenant: string
  sessionId: string
}

/**
 * Creates the state of a new session.
 * @param key - tenant and session id
 * @param dialect - the dialect fixed by the first write
 * @param settings - reminder overrides, the flavour
 * @param now - epoch ms
 * @param versionFloor - the version a deleted predecessor of the same id reached (its first
 *   write is one more), so a version never names two states
 */
export function newSession(
  key: SessionKey,
  dialect: string,
  settings: SessionSettings,
  now: number,
  versionFloor = 0
): Session {
  return {
    tenant: key.tenant,
    session_id: key.sessionId,
    dialect,
    version: versionFloor,
    items: [],
    round: 0,
    rounds_since_todo: 0,
    rounds_since_reminder: null,
    settings,
    dialect_state: {},
    notice_pending: false,
    ended: null,
    created_at: now,
    updated_at: now,
  }
}

/**
 * The state columns of a session.
 * @param session - the session
 */
export function stateColumns(session: Session): StateColumns {
  return {
    total: session.items.length,
    unfinished: session.items.filter(isUnfinished).length,
    ended: session.ended !== null,
    waiting: (session.observed?.waiting ?? null) !== null,
    background: (session.observed?.background ?? 0) > 0,
  }
}

/**
 * What a session's state is, as views, summaries and listings name it. `stale` is an active
 * session that stopped changing, `waiting` an observed agent's that waits for a person; new
 * states go here and nowhere else.
 */
export const SESSION_STATES = ['active', 'waiting', 'done', 'stale', 'ended'] as const
export type SessionState = (typeof SESSION_STATES)[number]

/**
 * How a session stands: the one place this is decided (the listing filter, the views and the
 * stream summaries use it; clients show what the server sends).
 * - ended: its run was ended (`POST …/end`)
 * - done: not ended, every item completed or cancelled, and no background work running
 * - waiting: not ended nor done, and the agent waits for a person (`waiting`): never stale
 * - stale: not ended, some item unfinished, no change since `staleBefore`
 * - active: otherwise (some item unfinished, or no items yet)
 * @param columns - the session's state columns
 * @param updatedAt - its last change, epoch ms
 * @param staleBefore - epoch ms: unfinished sessions unchanged since before this are stale
 */
export function sessionState(
  columns: StateColumns,
  updatedAt: number,
  staleBefore: number
): SessionState {
  if (columns.ended) return 'ended'
  if (columns.total > 0 && columns.unfinished === 0 && !columns.background) return 'done'
  if (columns.waiting) return 'waiting'
  if (columns.unfinished > 0 && updatedAt < staleBefore) return 'stale'
  return 'active'
}

/**
 * Whether a session matches a listing state. The `active` filter also lists stale and waiting
 * sessions (active sessions that stopped changing, or wait for a person).
 * @param columns - the session's state columns
 * @param updatedAt - its last change, epoch ms
 * @param state - the filter
 * @param staleBefore - epoch ms: unfinished sessions unchanged since before this are stale
 */
export function matchesState(
  columns: StateColumns,
  updatedAt: number,
  state: ListState,
  staleBefore: number
): boolean {
  if (state === 'all') return true
  const actual = sessionState(columns, updatedAt, staleBefore)
  return actual === state || (state === 'active' && (actual === 'stale' || actual === 'waiting'))
}
