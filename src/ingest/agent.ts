/**
 * @module ingest/agent
 * What the ingest layer reads of an observed agent, and what a parsed delivery holds. Each agent's
 * descriptor (src/agents) holds these facts beside its route, schemas and parser; ingest is handed
 * them and names no agent itself.
 */
import type { ObservedSource } from '../core/session.js'
import type { AgentFamily } from '../dialects/observe/index.js'
import type { ObservedEvent, Target } from './events.js'

/**
 * How a person's edit (PUT …/todos) of the list reaches the model: `reply`, by the agent's own
 * reply to a delivery (Claude Code's PostToolUse hook); `hooks`, only once an agent that replies
 * feeds the same session too (a Claude stream with Claude Code's hooks); `never`: the agent owns
 * its list and nothing carries an edit to it.
 */
export type EditRoute = 'reply' | 'hooks' | 'never'

/** The facts of an observed agent that ingest reads. */
export interface ObservedAgent {
  source: ObservedSource
  /** The prefix of the agent's own session ids: `claude` makes `claude:<session_id>`. */
  prefix: string
  /** Which tool names are todo tools (dialects/observe). */
  family: AgentFamily
  /** The dialect a session has until a todo tool fixes it. */
  defaultDialect: string
  edits: EditRoute
}

/** A parsed body: its events, and the list whose pending edit a reply may carry. */
export interface ParsedDelivery {
  events: ObservedEvent[]
  /** Set by an agent that replies with an edit (`edits: 'reply'`), for the hook that may. */
  replyTarget?: Target | null
}

/** What a delivery did, as an agent's reply is shaped from it. */
export interface DeliveryOutcome {
  /**
   * The main session it fed (the caller's `?session_id=` when it named none); null for a body
   * that names no session and holds nothing to apply (accepted and ignored).
   */
  session_id: string | null
  /** That session's version after it (0: none; null with no session). */
  version: number | null
  applied: number
  ignored: number
  /** A person's edit to hand the model with this reply, once. */
  edit: string | null
}
