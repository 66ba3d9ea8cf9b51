/**
 * @module agents/types
 * The descriptor of an observed agent: everything the service knows of one agent that runs its
 * own todo tools, in one place (CONTRIBUTING.md, "Add an agent").
 */
import type { z } from '@hono/zod-openapi'
import type { ObservedSource } from '../core/session.js'
import type { ParsedBody } from '../ingest/body.js'
import type { DeliveryOutcome, ObservedAgent, ParsedDelivery } from '../ingest/agent.js'
import type { DecisionPoint } from './decide.js'

/** The OpenAPI request body of an ingest route (`ingestBody`). */
export interface IngestRequestBody {
  required: true
  description?: string
  content: Record<string, { schema: z.ZodType }>
}

/** One `POST /v1/ingest/…` route of an agent. */
export interface IngestRoute {
  path: string
  /** The OpenAPI summary: what the body is, and the session it feeds. */
  summary: string
  body: IngestRequestBody
  /** Path parameters, validated before `parse` sees them. */
  params?: z.ZodObject
  /** Query parameters besides `session_id`, validated (and documented) with it. */
  query?: z.ZodObject
  /**
   * The agent a delivery is for, when the route serves more than its descriptor's (opencode's
   * route takes Kilo's events with `?agent=kilo`): from the validated `query`.
   */
  agentOf?(query: Readonly<Record<string, unknown>>): ObservedSource
  /**
   * The body's events (nothing is applied before the whole body parsed).
   * @throws IngestFormatError when the body is not the agent's format
   */
  parse(body: ParsedBody, params: Readonly<Record<string, string>>): ParsedDelivery
  /** The session a body that names none feeds (OpenHands: its conversation, from the path). */
  session?(params: Readonly<Record<string, string>>): string
}

/** How an agent's reply is shaped from what its delivery did. */
export interface ReplyShape {
  /** The reply's OpenAPI schema. */
  schema: z.ZodType
  /** The reply's body. */
  of(outcome: DeliveryOutcome): Record<string, unknown>
}

/** The agent's events that move a session's lifecycle (docs/observe.md lists them). */
export interface Lifecycle {
  /** Events that start a run (an ended session opens again). */
  starts: readonly string[]
  /** Events that end it. */
  ends: readonly string[]
  /** Events that mark it waiting for a person (its next event clears that). */
  waits: readonly string[]
}

/** An observed agent. */
export interface AgentDescriptor<S extends ObservedSource = ObservedSource> extends ObservedAgent {
  source: S
  /** Its name for people. */
  name: string
  /**
   * How the clients show it (the CLI and the dashboard read these from the data `npm run client`
   * generates: `scripts/agents-data.ts`): the badge (default `name`), a terminal's wide badge
   * (default the badge) and its narrow one (default `prefix`).
   */
  labels?: { badge?: string; terminal?: string; short?: string }
  /** What turns the agent's todo tools on, when they can be off (shown with `todo_tools: false`). */
  todoToolsSwitch?: string
  /**
   * The agent's CLI as `agent-todos observe -- <command…>` knows it: its kind, and the programs
   * (or npm packages) that run it; its stream goes to the agent's first route.
   */
  observe?: { kind: string; programs: readonly string[] }
  routes: readonly IngestRoute[]
  lifecycle: Lifecycle
  reply: ReplyShape
  /**
   * Whether a JSON value is this agent's own hook input, told by its shape: asked by the registry
   * for a body posted to an agent other agents mimic (`mimicked`), so each agent's file keeps the
   * knowledge of its own shape.
   */
  claims?: (value: unknown) => boolean
  /**
   * Other agents' hooks mimic this one's (Claude Code's PascalCase hook inputs): before its routes
   * parse a body, the registry refuses one another agent `claims`, naming that agent's route.
   */
  mimicked?: true
  /** Its decision point: a hook that may take a person's answer (`?decide=1`), if it has one. */
  decide?: DecisionPoint
}
