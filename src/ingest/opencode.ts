/**
 * @module ingest/opencode
 * opencode 1.18.33 and Kilo CLI 7.7.7 (an opencode fork with the same events; real runs in
 * test/fixtures/ingest/opencode/real-* and kilo/real-*, see REAL-CAPTURES.md there). Two formats,
 * one or many values (a JSON object, an array, NDJSON):
 *
 * - the server's event stream: `{id, type, properties}` as `GET /event` and a plugin's `event` hook
 *   give them, or `GET /global/event`'s `{directory, project, payload: {…}}`. Read:
 *   `todo.updated {sessionID, todos}` (a full snapshot after each accepted `todowrite`; opencode
 *   sends none for a write its schema refuses), `session.status` / `session.idle` (activity: the
 *   server keeps the session, so idle is no end), `session.error` (the turn failed: ended `error`,
 *   or `cancelled` when aborted, until the list changes or a new turn opens it),
 *   `permission.asked` / `question.asked` (waiting for a person) until their `…replied` (opencode's
 *   status stays `busy` meanwhile, so other events of the session leave the wait), Kilo's
 *   `session.turn.open` / `session.turn.close`. Events name their session in
 *   `properties.sessionID` (`session.*` also in `properties.info.id`); events of no session
 *   (`server.*`, `plugin.added`, the durable `sync` records) are dropped.
 * - `opencode run --format json` NDJSON: `{type, timestamp, sessionID, part}` lines; a `tool_use`
 *   of `todowrite` carries the completed (or failed) call with `state.input` and, once accepted,
 *   `state.metadata.todos`.
 *
 * Every event carries its own ascending id (`evt_…`; a run's parts `prt_…`, its calls `callID`):
 * a repeated delivery is recognised by it, and a snapshot older than the list's is not applied
 * (`dialects/opencode-todos/observe`). A value without an id is identified by its digest.
 */
import { isRecord } from '../dialects/json.js'
import { digest } from './body.js'
import type { OriginHints } from '../core/origin.js'
import { IngestFormatError, type EndEvent, type ObservedEvent, type Target } from './events.js'
import { nonEmpty, originHintsOf, withOrigin } from './parse-kit.js'
import { runEnd } from './stream-lines.js'

/** opencode's todo tool. */
const TODO_TOOL = 'todowrite'

/** The time-and-counter part of an ascending opencode id (`evt_236108b69001…` → `236108b69001`). */
const SEQ = /^[a-z]+_([0-9a-f]{12})/

const seqOf = (id: string | undefined) => (id === undefined ? undefined : SEQ.exec(id)?.[1])

/** The session an event-stream event names, if any. */
function sessionOfEvent(type: string, properties: Record<string, unknown>): string | undefined {
  let named = nonEmpty(properties.sessionID)
  if (!named && type.startsWith('session.') && isRecord(properties.info)) {
    named = nonEmpty(properties.info.id)
  }
  return named
}

/**
 * A failed turn (`session.error`, a run's `error` line): the run ended, cancelled when aborted.
 * @param target - the session
 * @param error - the event's error
 * @param id - the event's own id
 */
function errorEnd(target: Target, error: unknown, id: string): EndEvent {
  const record = isRecord(error) ? error : {}
  const name = nonEmpty(record.name) ?? 'error'
  const data = isRecord(record.data) ? record.data : {}
  const detail = nonEmpty(data.message) ?? name
  return runEnd(target, name === 'MessageAbortedError' ? 'cancelled' : 'error', detail, id)
}

/**
 * A person is asked (a permission, a question): the session waits until the answer.
 * @param target - the session
 * @param key - the asking event's id
 * @param reason - what is asked
 * @param message - its text
 */
function askEvent(
  target: Target,
  key: string,
  reason: string,
  message: string | null
): ObservedEvent {
  return { kind: 'waiting', target, id: `ask:${key}`, reason, message }
}

/** A short text of what a permission asks (`edit health.txt`). */
function permissionMessage(properties: Record<string, unknown>): string | null {
  const permission = nonEmpty(properties.permission)
  const patterns = Array.isArray(properties.patterns)
    ? properties.patterns.filter((p): p is string => typeof p === 'string')
    : []
  if (!permission) return null
  return patterns.length ? `${permission} ${patterns.join(', ')}`.slice(0, 500) : permission
}

/** The first question's text. */
function questionMessage(properties: Record<string, unknown>): string | null {
  const first: unknown = Array.isArray(properties.questions) ? properties.questions[0] : undefined
  return isRecord(first) ? (nonEmpty(first.question)?.slice(0, 500) ?? null) : null
}

/**
 * What an event says of where its session runs: a session's `info` its directory and the server's
 * version, a message's `info.model` the model (`provider/model`, as opencode names them).
 */
function eventOrigin(type: string, properties: Record<string, unknown>): OriginHints | undefined {
  const info = isRecord(properties.info) ? properties.info : undefined
  if (!info) return undefined
  if (type === 'session.created' || type === 'session.updated') {
    return originHintsOf(info, { cwd: 'directory', agent_version: 'version' })
  }
  const model = isRecord(info.model) ? info.model : undefined
  const id = nonEmpty(model?.modelID)
  if (type !== 'message.updated' || !id) return undefined
  const provider = nonEmpty(model?.providerID)
  return { model: provider ? `${provider}/${id}` : id }
}

/**
 * Parses one event-stream event (`{id, type, properties}`).
 * @param event - the event
 * @param index - its place in the body, for errors
 */
function parseStreamEvent(event: Record<string, unknown>, index: number): ObservedEvent[] {
  const type = event.type as string
  if (!isRecord(event.properties)) {
    throw new IngestFormatError(
      `Value ${index + 1} (${type.slice(0, 100)}) has no properties object.`,
      `/${index}/properties`
    )
  }
  const { properties } = event
  const session = sessionOfEvent(type, properties)
  if (!session) return []
  const events = streamEvents(event, index, type, properties, session)
  return withOrigin(events, eventOrigin(type, properties))
}

function streamEvents(
  event: Record<string, unknown>,
  index: number,
  type: string,
  properties: Record<string, unknown>,
  session: string
): ObservedEvent[] {
  const target: Target = { session }
  const id = nonEmpty(event.id)
  const key = id ?? digest(event)
  const hold = (what: string): ObservedEvent => ({
    kind: 'activity',
    target,
    what,
    keepsWaiting: true,
  })
  switch (type) {
    case 'todo.updated':
      if (!Array.isArray(properties.todos)) {
        throw new IngestFormatError(
          'todo.updated has no todos array.',
          `/${index}/properties/todos`
        )
      }
      return [
        {
          kind: 'tool_result',
          target,
          call_id: `todo:${key}`,
          name: TODO_TOOL,
          input: { todos: properties.todos },
          is_error: false,
          structured: { todos: properties.todos, seq: seqOf(id) },
        },
      ]
    case 'permission.asked':
      return [askEvent(target, key, 'permission_prompt', permissionMessage(properties))]
    case 'question.asked':
      return [askEvent(target, key, 'question', questionMessage(properties))]
    // answered (or dismissed): the agent goes on
    case 'permission.replied':
    case 'question.replied':
    case 'question.rejected':
    case 'session.idle':
    case 'session.turn.close':
      return [{ kind: 'activity', target, what: type }]
    case 'session.error':
      return [errorEnd(target, properties.error, `error:${key}`)]
    case 'session.turn.open':
      return [{ kind: 'session_start', target, id: `turn:${key}`, run: true }]
    default:
      return [hold(type)]
  }
}

/**
 * Parses one line of `opencode run --format json`.
 * @param line - the line
 */
function parseRunLine(line: Record<string, unknown>): ObservedEvent[] {
  const named = nonEmpty(line.sessionID)
  if (!named) return []
  const session = named
  const target: Target = { session }
  const type = line.type as string
  const part = isRecord(line.part) ? line.part : undefined
  if (type === 'tool_use' && part?.tool === TODO_TOOL) {
    const state = isRecord(part.state) ? part.state : {}
    const callId = nonEmpty(part.callID) ?? nonEmpty(part.id) ?? digest(line)
    const metadata = isRecord(state.metadata) ? state.metadata : {}
    return [
      {
        kind: 'tool_result',
        target,
        call_id: `call:${callId}`,
        name: TODO_TOOL,
        input: state.input,
        is_error: state.status !== 'completed',
        structured: { todos: metadata.todos, seq: seqOf(nonEmpty(part.id)) },
        text: nonEmpty(state.output),
      },
    ]
  }
  if (type === 'error') return [errorEnd(target, line.error, `error:${digest(line)}`)]
  return [{ kind: 'activity', target, what: type }]
}

/**
 * Parses an opencode or Kilo body: event-stream events (bare, or `/global/event`'s wrappers) or
 * `opencode run --format json` lines, in order.
 * @param values - the body's values
 * @throws IngestFormatError for a value that is neither
 */
export function parseOpencode(values: readonly unknown[]): ObservedEvent[] {
  const events: ObservedEvent[] = []
  values.forEach((value, index) => {
    const event = isRecord(value) && isRecord(value.payload) ? value.payload : value
    if (!isRecord(event) || typeof event.type !== 'string') {
      throw new IngestFormatError(
        `Value ${index + 1} is not an opencode event ({type, properties}, or /global/event's {directory, payload}) nor an \`opencode run --format json\` line.`,
        `/${index}`
      )
    }
    if ('properties' in event) {
      const parsed = parseStreamEvent(event, index)
      // `/global/event` names the project directory of each event ('global': none)
      const directory = isRecord(value) && value !== event ? nonEmpty(value.directory) : undefined
      if (directory === undefined || directory === 'global') events.push(...parsed)
      else events.push(...parsed.map((e) => ({ ...e, origin: { ...e.origin, cwd: directory } })))
    } else if ('sessionID' in event && 'timestamp' in event) events.push(...parseRunLine(event))
    else if (event.type === 'sync' || event.type.startsWith('server.')) return
    else {
      throw new IngestFormatError(
        `Value ${index + 1} (${event.type.slice(0, 100)}) has neither properties nor a sessionID.`,
        `/${index}`
      )
    }
  })
  return events
}
