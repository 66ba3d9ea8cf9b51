/**
 * @module agents/define
 * The descriptor of an agent whose one route, `POST /v1/ingest/<source>`, takes the agent's own
 * values (one JSON value, an array of them, or NDJSON lines) and parses them all alike: what most
 * agents are. Such an agent declares its facts, its route's summary and body, and its parser; the
 * route's path, the parse of the body's values, and the counting reply are this module's.
 */
import type { ObservedSource } from '../core/session.js'
import type { EditRoute } from '../ingest/agent.js'
import { valuesOf } from '../ingest/body.js'
import type { ObservedEvent } from '../ingest/events.js'
import { COUNTS_REPLY } from './schemas.js'
import type { AgentDescriptor, IngestRequestBody, IngestRoute } from './types.js'

/** What an agent with one route that takes its values declares. */
export interface ValuesAgent<S extends ObservedSource> extends Omit<
  AgentDescriptor<S>,
  'edits' | 'routes' | 'reply'
> {
  /** How a person's edit reaches the model: `never` unless said (the agent owns its list). */
  edits?: EditRoute
  /** The route's OpenAPI summary: what the body is, and the session it feeds. */
  summary: string
  body: IngestRequestBody
  /**
   * The events of the body's values, in order.
   * @throws IngestFormatError when a value is not the agent's format
   */
  parse: (values: readonly unknown[]) => ObservedEvent[]
}

/**
 * The route `POST /v1/ingest/<source>`, whose body's values are parsed alike.
 * @param source - the agent the route is named after
 * @param route - its summary, its body, and the parser of the body's values
 */
export function valuesRoute(
  source: ObservedSource,
  { summary, body, parse }: Pick<ValuesAgent<ObservedSource>, 'summary' | 'body' | 'parse'>
): IngestRoute {
  return {
    path: `/v1/ingest/${source}`,
    summary,
    body,
    parse: (parsed) => ({ events: parse(valuesOf(parsed)) }),
  }
}

/**
 * The descriptor of an agent with one route that takes its values, replying with the counts.
 * @param agent - what the agent declares
 */
export function valuesAgent<S extends ObservedSource>({
  summary,
  body,
  parse,
  edits = 'never',
  ...facts
}: ValuesAgent<S>): AgentDescriptor<S> {
  return {
    ...facts,
    edits,
    routes: [valuesRoute(facts.source, { summary, body, parse })],
    reply: COUNTS_REPLY,
  }
}
