/**
 * @module ingest/events
 * What every agent's event format is parsed into, one model for all of them: calls, results,
 * and lifecycle, and the error of a body that is not the agent's format. Pure data; the parsers in
 * this folder make it (with what they share, `ingest/parse-kit`), `ingest/apply` applies it.
 */
import type { RequestDraft } from '../core/decisions.js'
import type { Labels, OriginHints } from '../core/origin.js'
import type { EndedOutcome } from '../core/session.js'

/**
 * Whose list an event belongs to: the agent's session (its native id, undefined when the body
 * does not say: the caller names it with `?session_id=`), or a subagent's own list.
 */
export interface Target {
  session?: string
  /** A subagent whose TodoWrite list is its own session. */
  agent?: string
}

/** A todo tool call seen before its result (a stream's `tool_use`). */
export interface CallEvent {
  kind: 'tool_call'
  target: Target
  call_id: string
  name: string
  input: unknown
  /**
   * Whether the result will not say what the call did (a Gemini stream result, a Claude
   * subagent's), so the call is kept in the session until its result arrives in a later delivery.
   */
  stage: boolean
}

/** A tool's result: it commits its call. Snapshots (Codex `todo_list`) are results of their own. */
export interface ResultEvent {
  kind: 'tool_result'
  target: Target
  call_id: string
  /** The tool, when the result says (a hook does; a stream result names only its call). */
  name?: string
  /** The call's input, when the result carries it (a hook's `tool_input`). */
  input?: unknown
  is_error: boolean
  structured?: unknown
  text?: string
  /**
   * From telemetry (OTLP), which gives way to the agent's hooks and streams: applied only to a
   * session that telemetry fed first (docs/otel.md).
   */
  telemetry?: TelemetryNote
}

/** What a result from telemetry says of itself. */
export interface TelemetryNote {
  /**
   * A partial report of the call whose whole report has this id (its hook's, a beta span's): moot
   * once that is applied, and that one still applies after it.
   */
  partialOf?: string
  /** The items' texts are unknown (Claude's TodoWrite log): it never replaces a known list. */
  itemsUnknown?: true
}

/** A run starts (`run`) or tells what it has (tools). */
export interface StartEvent {
  kind: 'session_start'
  target: Target
  /** The event's own id, when the format has one: a second delivery of it changes nothing. */
  id?: string
  /** A new run of the session: an ended session opens again. */
  run: boolean
  /** The tools the agent has (Claude's `system/init.tools`). */
  tools?: string[]
}

/** The run ended. */
export interface EndEvent {
  kind: 'session_end'
  target: Target
  id?: string
  /** `auto`: completed when nothing is unfinished, else cancelled (a `SessionEnd` hook). */
  outcome: EndedOutcome | 'auto'
  detail: string | null
  /** The agent's own outcome of the run (a result frame), not an exit without one. */
  specific: boolean
  /** Ends the subagent lists of the session too. */
  all?: boolean
}

/** The agent waits for a person. */
export interface WaitingEvent {
  kind: 'waiting'
  target: Target
  id?: string
  reason: string
  message: string | null
  /** A request a person may answer from elsewhere (a `?decide=1` hook holds it open). */
  request?: RequestDraft
}

/** Anything else the agent did: it is alive. */
export interface ActivityEvent {
  kind: 'activity'
  target: Target
  /**
   * Its own id, for activity that must count once (the answer to a wait: a body posted again
   * holding it must not clear a later wait). Most activity has none.
   */
  id?: string
  what: string
  /**
   * It leaves a wait as it is: the agent goes on reporting while it waits for a person (opencode's
   * `session.status` stays busy while a permission is asked), so only its own answer clears it.
   */
  keepsWaiting?: boolean
  /** Background work still running (Claude's Stop `background_tasks`); 0 when none is left. */
  background?: number
}

/** Accepted, and ignored (an unknown event, a replay, a partial frame). */
export interface IgnoredEvent {
  kind: 'ignored'
  target: Target
  what: string
}

/**
 * What an event says of where its agent runs (`cwd`, `model`, the agent's version), when the
 * agent's format carries it: the session's origin fills what it does not know yet from it.
 */
export interface OriginHinted {
  origin?: OriginHints
  /**
   * Labels the agent's own events name (telemetry's `terminal.type` as `terminal`): added to the
   * session's once, as origin is filled, never changing a set one.
   */
  labels?: Labels
}

/**
 * What an event says of a pending request: the agent went on, so the prompt was answered at its
 * own terminal (a tool's result, the end of the turn). `matches`: only a request with one of
 * these matches (a tool's result settles the request for that call); absent: any.
 */
export interface Settling {
  settles?: { matches?: readonly string[]; message?: string }
}

export type ObservedEvent = (
  CallEvent | ResultEvent | StartEvent | EndEvent | WaitingEvent | ActivityEvent | IgnoredEvent
) &
  OriginHinted &
  Settling

export type ObservedKind = ObservedEvent['kind']

/** A body that is not the agent's format: nothing of it is applied. */
export class IngestFormatError extends Error {
  constructor(
    message: string,
    readonly pointer: string = ''
  ) {
    super(message)
    this.name = 'IngestFormatError'
  }
}

/**
 * A body of another agent posted to this agent's route (a Copilot CLI PascalCase hook, which
 * looks like Claude Code's, sent to `/v1/ingest/claude-code`): refused, naming the right route,
 * never misread.
 */
export class IngestWrongAgentError extends IngestFormatError {
  constructor(
    message: string,
    readonly route: string
  ) {
    super(message)
    this.name = 'IngestWrongAgentError'
  }
}
