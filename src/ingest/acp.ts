/**
 * @module ingest/acp
 * Any ACP (Agent Client Protocol, `@agentclientprotocol/sdk` 2.4.0 schema) agent, from the
 * JSON-RPC messages of one connection in wire order, both directions interleaved, as
 * `agent-todos acp` tees them (real runs: test/fixtures/ingest/acp/). Each value is the tap's
 * line, `{dir: "agent->client"|"client->agent", msg, session?, request?, connection?, seq?}`
 * (the tap of earlier versions wrote `{from: "agent"|"client", message, …}`, read alike), a bare
 * JSON-RPC message (legacy: read in wire order, without a direction), or the tap's
 * `{from: "tap", session, exit: {code, signal}}` when the agent exited. Each side numbers its own
 * requests, so ids repeat across directions: a response answers only a request of the other
 * direction (a request sent agent->client is answered by a response sent client->agent with its
 * id). `session` and `request` name the session and the method of a response whose request came
 * in an earlier delivery; `connection` and `seq` give every message an id, so a delivery posted
 * again applies once.
 *
 * - `session/new`'s result (its `sessionId`) starts a session `acp:<sessionId>`; every
 *   `session/prompt` request starts a run (an ended session opens again), and its result ends
 *   the run: ACP's prompt turn is the run, the session lives on in the editor for the next
 *   prompt. `stopReason` `end_turn` → completed, `max_tokens` / `max_turn_requests` → max_turns,
 *   `refusal` → error, `cancelled` → cancelled; an error response → error.
 * - `session/update` `plan` is a whole-list snapshot (`acp:plan`); a `tool_call` /
 *   `tool_call_update` whose `rawInput` is an opencode / Kilo `todowrite` input (`{todos}`) is a
 *   todo call (`acp:todowrite`), applied once it is `completed`. Other updates are activity.
 * - `session/request_permission` marks the session waiting until its answer (the response with
 *   its JSON-RPC id, of the other direction), the prompt's end or the next prompt; the updates,
 *   requests and other responses sent meanwhile (its commands, usage, the pending tool call), in
 *   that delivery or later ones, do not clear it, and neither does a delivery posted again (the
 *   answer has an id of its own: an old one seen again clears no later wait).
 * - `initialize`, `authenticate` and other messages that name no session feed none.
 */
import type { OriginHints } from '../core/origin.js'
import type { EndedOutcome } from '../core/session.js'
import { isRecord } from '../dialects/json.js'
import { ACP_PLAN_TOOL, ACP_TODOWRITE_TOOL } from '../dialects/opencode-todos/observe-acp.js'
import { digest } from './body.js'
import { IngestFormatError, type ObservedEvent, type Target } from './events.js'
import { exitEvent, nonEmpty, originHintsOf } from './parse-kit.js'

type Side = 'client' | 'agent'

/** One message, unwrapped, with what the wrapper said of it. */
interface WireMessage {
  message: Record<string, unknown>
  from?: Side
  /** The session the tap knew the message belongs to. */
  session?: string
  /** The tap's id of the message (`<connection>:<seq>`). */
  key?: string
  /** For a response: the method of the request it answers, when the tap saw it. */
  request?: string
}

/** A request seen in the body, waiting for its response. */
interface Pending {
  method: string
  session?: string
  from?: Side
  key: string
  /** What a `session/new` (`load`, `resume`, `fork`) request says of where the session runs. */
  origin?: OriginHints
}

/** The requests that open a session, whose params name its working directory. */
const OPENS_SESSION: ReadonlySet<string> = new Set([
  'session/new',
  'session/load',
  'session/resume',
  'session/fork',
])

/** The ACP stop reasons, as the run's end. */
const STOP_OUTCOMES: Record<string, EndedOutcome> = {
  end_turn: 'completed',
  max_tokens: 'max_turns',
  max_turn_requests: 'max_turns',
  refusal: 'error',
  cancelled: 'cancelled',
}

/** What a response's result says it answers: a request of this method. */
function answeredMethod(result: unknown): string | undefined {
  if (!isRecord(result)) return undefined
  if (isRecord(result.outcome)) return 'session/request_permission'
  if (typeof result.stopReason === 'string') return 'session/prompt'
  if (typeof result.sessionId === 'string') return 'session/new'
  return undefined
}

const isJsonRpc = (value: Record<string, unknown>) =>
  typeof value.method === 'string' || ('id' in value && ('result' in value || 'error' in value))

/** The tap's directions, by who sent the message. */
const SENDER_OF_DIR: Readonly<Record<string, Side>> = {
  'agent->client': 'agent',
  'client->agent': 'client',
}

/** Who sent a tap line's message and the message: `{dir, msg}`, or the older `{from, message}`. */
function tapLineParts(
  value: Record<string, unknown>
): { from: Side; message: unknown } | 'invalid' | null {
  if ('dir' in value) {
    const from = typeof value.dir === 'string' ? SENDER_OF_DIR[value.dir] : undefined
    return from ? { from, message: value.msg } : 'invalid'
  }
  if (value.from === 'client' || value.from === 'agent') {
    return { from: value.from, message: value.message }
  }
  return null
}

/** A body value as a message: the tap's line unwrapped, or a JSON-RPC message as it is. */
function wireMessage(value: unknown, index: number): WireMessage | 'exit' {
  const fail = () =>
    new IngestFormatError(
      `Value ${index + 1} is not an ACP JSON-RPC message (an object with a method, or an id and a result or error) nor the tap's line of one ({"dir": "agent->client" | "client->agent", "msg": <message>}).`,
      `/lines/${index}`
    )
  if (!isRecord(value)) throw fail()
  if (value.from === 'tap' && isRecord(value.exit)) return 'exit'
  const line = tapLineParts(value)
  if (line === 'invalid') throw fail()
  if (line) {
    if (!isRecord(line.message) || !isJsonRpc(line.message)) throw fail()
    const connection = nonEmpty(value.connection)
    const seq = typeof value.seq === 'number' && Number.isInteger(value.seq) ? value.seq : undefined
    return {
      message: line.message,
      from: line.from,
      session: nonEmpty(value.session),
      request: nonEmpty(value.request),
      key: connection !== undefined && seq !== undefined ? `${connection}:${seq}` : undefined,
    }
  }
  if (!isJsonRpc(value)) throw fail()
  return { message: value }
}

/** The JSON-RPC id as a map key (ids are strings or numbers). */
const idKey = (id: unknown) => (typeof id === 'string' || typeof id === 'number' ? `${id}` : null)

/**
 * The model a session opened with, from `session/new`'s result: the (unstable) models API's
 * current model by its name (`qwen3-coder-plus`, where its id is `$runtime|openai|…`), else the
 * value of the config option of category `model` (`fake/fake-model`, Claude's `default`).
 */
function modelOf(result: Record<string, unknown>): string | undefined {
  const models = isRecord(result.models) ? result.models : undefined
  const current = nonEmpty(models?.currentModelId)
  if (current !== undefined) {
    const available = Array.isArray(models?.availableModels) ? models.availableModels : []
    const named = (available as unknown[]).find(
      (model) => isRecord(model) && model.modelId === current
    )
    return (isRecord(named) ? nonEmpty(named.name) : undefined) ?? current
  }
  const options = Array.isArray(result.configOptions) ? (result.configOptions as unknown[]) : []
  const option = options.find(
    (entry) => isRecord(entry) && entry.category === 'model' && entry.id === 'model'
  )
  return isRecord(option) ? nonEmpty(option.currentValue) : undefined
}

/** The agent's name and version from `initialize`'s result (`qwen-code 0.24.4`). */
function agentVersionOf(result: Record<string, unknown> | undefined): string | undefined {
  const info = isRecord(result?.agentInfo) ? result.agentInfo : undefined
  const version = nonEmpty(info?.version)
  if (version === undefined) return undefined
  const name = nonEmpty(info?.name)
  return name ? `${name} ${version}` : version
}

/** A todo list in a tool call's `rawInput` or `rawOutput.metadata` (opencode / Kilo todowrite). */
function hasTodos(value: unknown): boolean {
  return isRecord(value) && Array.isArray(value.todos)
}

/**
 * Parses the messages of one ACP connection, in wire order.
 * @param values - the body's values (messages, or the tap's wrappers)
 * @throws IngestFormatError when a value is not a JSON-RPC message nor a wrapper of one
 */
export function parseAcp(values: readonly unknown[]): ObservedEvent[] {
  const events: ObservedEvent[] = []
  const pending = new Map<string, Pending[]>()
  /** Sessions with a permission request not answered yet in this body. */
  const asking = new Set<string>()
  /** The agent's `initialize` result seen in this body: its name and version. */
  let agentVersion: string | undefined

  /** The request a response answers: by id (and side, when known), the latest that fits. */
  const answered = (wire: WireMessage): Pending | undefined => {
    const id = idKey(wire.message.id)
    const list = id === null ? undefined : pending.get(id)
    if (!list?.length) return undefined
    const method = answeredMethod(wire.message.result)
    for (let i = list.length - 1; i >= 0; i--) {
      const request = list[i]
      // a response travels the other way from its request
      if (wire.from && request.from && wire.from === request.from) continue
      if (
        method &&
        request.method !== method &&
        !(method === 'session/new' && request.method.startsWith('session/'))
      )
        continue
      list.splice(i, 1)
      return request
    }
    return undefined
  }

  values.forEach((value, index) => {
    const wire = wireMessage(value, index)
    if (wire === 'exit') {
      const exit = value as Record<string, unknown>
      const session = nonEmpty(exit.session)
      const status = exit.exit as Record<string, unknown>
      if (session) {
        const signal = nonEmpty(status.signal)
        const code = typeof status.code === 'number' ? status.code : null
        events.push(exitEvent({ session }, signal ? `signal ${signal}` : `exit code ${code}`))
      }
      return
    }
    const { message } = wire
    const key = wire.key ?? digest({ index, message })
    const method = nonEmpty(message.method)
    const params = isRecord(message.params) ? message.params : {}
    if (method !== undefined) {
      const session = nonEmpty(params.sessionId) ?? wire.session
      const id = idKey(message.id)
      if (id !== null) {
        const list = pending.get(id) ?? []
        list.push({
          method,
          session,
          from: wire.from,
          key: wire.key ?? digest({ session, message }),
          origin: OPENS_SESSION.has(method) ? originHintsOf(params, { cwd: 'cwd' }) : undefined,
        })
        pending.set(id, list)
      }
      if (session === undefined) return
      events.push(...requestEvents(method, params, { session }, wire, asking))
      return
    }
    const request = answered(wire)
    const result = isRecord(message.result) ? message.result : undefined
    agentVersion = agentVersionOf(result) ?? agentVersion
    const session = nonEmpty(result?.sessionId) ?? request?.session ?? wire.session
    if (session === undefined) return
    const target = { session }
    const answers = request?.method ?? wire.request ?? answeredMethod(message.result)
    switch (answers) {
      case 'session/new':
      case 'session/load':
      case 'session/resume':
      case 'session/fork':
        if (result && nonEmpty(result.sessionId)) {
          // where it runs: the request's cwd, the result's model, the agent of `initialize`
          events.push({
            kind: 'session_start',
            target,
            run: true,
            id: `acp:new:${session}`,
            origin: { ...request?.origin, model: modelOf(result), agent_version: agentVersion },
          })
        } else events.push({ kind: 'activity', target, what: `${answers} result` })
        break
      case 'session/prompt': {
        const error = isRecord(message.error) ? message.error : undefined
        const stop = nonEmpty(result?.stopReason)
        const outcome: EndedOutcome = error ? 'error' : (STOP_OUTCOMES[stop ?? ''] ?? 'completed')
        events.push({
          kind: 'session_end',
          target,
          id: `acp:end:${request?.key ?? key}`,
          outcome,
          detail: error ? (nonEmpty(error.message) ?? 'error') : (stop ?? null),
          specific: true,
        })
        break
      }
      case 'session/request_permission':
        asking.delete(session)
        // its own id: the same answer in a delivery posted again clears no later wait
        events.push({
          kind: 'activity',
          target,
          id: `acp:answer:${key}`,
          what: 'permission answered',
        })
        break
      default:
        // the answer to another request (a mode set, the agent's own calls): no wait's answer
        events.push(aliveUnlessAsking(target, `${answers ?? 'response'}`, asking))
    }
  })
  return events
}

/** What a request or notification that names its session does. */
function requestEvents(
  method: string,
  params: Record<string, unknown>,
  target: Target & { session: string },
  wire: WireMessage,
  asking: Set<string>
): ObservedEvent[] {
  const key = wire.key ?? digest({ method, params, id: wire.message.id })
  switch (method) {
    case 'session/prompt':
      return [{ kind: 'session_start', target, run: true, id: `acp:prompt:${key}` }]
    case 'session/request_permission': {
      asking.add(target.session)
      const call = isRecord(params.toolCall) ? params.toolCall : {}
      return [
        {
          kind: 'waiting',
          target,
          id: `acp:permission:${wire.key ?? digest(params)}`,
          reason: 'permission_prompt',
          message: nonEmpty(call.title) ?? null,
        },
      ]
    }
    case 'session/update':
      return updateEvents(params, target, wire, asking)
    default:
      return [aliveUnlessAsking(target, method, asking)]
  }
}

/**
 * Activity that leaves a wait as it is: an ACP agent keeps streaming updates (its commands, usage,
 * the pending tool call) while it waits for the answer to `session/request_permission`, often in
 * a later delivery than the request; only the answer (or the prompt's end) clears the wait.
 */
function aliveUnlessAsking(
  target: Target & { session: string },
  what: string,
  asking: ReadonlySet<string>
): ObservedEvent {
  return asking.has(target.session)
    ? { kind: 'ignored', target, what }
    : { kind: 'activity', target, what, keepsWaiting: true }
}

/** A `session/update`: a plan, a todo tool call, or activity. */
function updateEvents(
  params: Record<string, unknown>,
  target: Target & { session: string },
  wire: WireMessage,
  asking: Set<string>
): ObservedEvent[] {
  const update = isRecord(params.update) ? params.update : {}
  const kind = nonEmpty(update.sessionUpdate) ?? 'update'
  if (kind === 'plan' && Array.isArray(update.entries)) {
    const id = `acp:plan:${wire.key ?? digest({ session: target.session, entries: update.entries })}`
    return [
      {
        kind: 'tool_result',
        target,
        call_id: id,
        name: ACP_PLAN_TOOL,
        input: { entries: update.entries },
        is_error: false,
      },
    ]
  }
  const callId = nonEmpty(update.toolCallId)
  if ((kind === 'tool_call' || kind === 'tool_call_update') && callId) {
    const id = `acp:tool:${callId}`
    const status = nonEmpty(update.status)
    const todos = hasTodos(update.rawInput)
    const output = isRecord(update.rawOutput) ? update.rawOutput : undefined
    const events: ObservedEvent[] = []
    if (todos) {
      events.push({
        kind: 'tool_call',
        target,
        call_id: id,
        name: ACP_TODOWRITE_TOOL,
        input: update.rawInput,
        stage: true,
      })
    }
    if (status === 'completed' || status === 'failed') {
      events.push({
        kind: 'tool_result',
        target,
        call_id: id,
        // the call staged earlier names its tool; a result that shows the list names it too
        name: todos || hasTodos(output?.metadata) ? ACP_TODOWRITE_TOOL : undefined,
        input: todos ? update.rawInput : undefined,
        is_error: status === 'failed',
        structured: output,
      })
    }
    if (events.length) return events
  }
  return [aliveUnlessAsking(target, kind, asking)]
}
