/**
 * @module ingest/qwen-code
 * Qwen Code 0.24.4 (real runs in test/fixtures/ingest/qwen-code/real-*, see REAL-CAPTURES.md
 * there): one `"type": "http"` hook input, or `qwen -p … --output-format stream-json` NDJSON.
 *
 * Hooks. `PostToolUse` of `todo_write` commits the call with its `tool_response` (the list the
 * tool stored in `returnDisplay.todos`); its id is the model's call id (`tool_call_id`; its
 * `tool_use_id` is Qwen's own), the one `PostToolBatch` and the stream carry, so any of them
 * applies a write once. A write the tool refused fires only `PostToolBatch` (`status: "error"`;
 * a denied one `"cancelled"`): it changes nothing. `TodoCreated` / `TodoCompleted` arrive twice
 * per item, phase `validation` (a hook may still block the write: activity only) then
 * `postWrite` (persisted): a postWrite carries the whole list (`all_todos`) and is applied as a
 * snapshot of its own, one per distinct list of a prompt, so the items of one write, the other
 * phase and the PostToolUse of the same write leave the list as it is. A change to in_progress, a
 * clear or a no-op write fires no todo hook: the PostToolUse snapshot rules. `PermissionRequest`
 * and `Notification(permission_prompt)` mark the session waiting until its next tool event; `Stop`
 * ends a turn (activity: `-p` never sends SessionEnd, `agent-todos observe` ends the run);
 * `SessionStart` starts a run, `SessionEnd` ends it.
 *
 * Stream. Claude-like lines: `system/init` (its `tools` say whether `todo_write` is on), assistant
 * `tool_use` and user `tool_result` (the result text holds the written list), `result` (the end
 * of a turn), and in the SDK protocol `control_request can_use_tool` (waiting for a person).
 */
import { isRecord } from '../dialects/json.js'
import { digest } from './body.js'
import {
  IngestFormatError,
  IngestWrongAgentError,
  type ObservedEvent,
  type Target,
} from './events.js'
import { aliveOrIgnored, exitEvent, nonEmpty, originHintsOf, withOrigin } from './parse-kit.js'
import { assertStreamLine } from './stream-lines.js'

/** Qwen Code's todo tool (off unless `tools.todoWrite.enabled`). */
export const QWEN_TODO_TOOL = 'todo_write'

/** The wait reason of a permission prompt (both of its hooks, and the stream's control request). */
const PERMISSION = 'permission_prompt'

/** Hook events that only say the agent is alive (and end a wait for a person). */
const ACTIVITY_HOOKS: ReadonlySet<string> = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'Notification',
  'TodoCreated',
  'TodoCompleted',
])

const permissionMessage = (tool: unknown) =>
  `Qwen Code needs your permission to use ${nonEmpty(tool) ?? 'a tool'}`

/** A hook's call id: the model's (`tool_call_id`), else Qwen's own, else a digest of the call. */
function hookCallId(value: Record<string, unknown>): string {
  return (
    nonEmpty(value.tool_call_id) ??
    nonEmpty(value.tool_use_id) ??
    `hook:${digest([value.tool_name, value.tool_input, value.timestamp])}`
  )
}

/** The text the model read from one `PostToolBatch` call (`response_parts`' functionResponse). */
function batchText(response: Record<string, unknown> | undefined): string | undefined {
  const parts = Array.isArray(response?.response_parts) ? response.response_parts : []
  for (const part of parts as unknown[]) {
    const reply =
      isRecord(part) && isRecord(part.functionResponse) && isRecord(part.functionResponse.response)
        ? part.functionResponse.response
        : undefined
    const text = nonEmpty(reply?.output) ?? nonEmpty(reply?.error)
    if (text) return text
  }
  return nonEmpty(response?.error)
}

/** `PostToolBatch`: each todo call's outcome (failed and denied calls are seen only here). */
function batchEvents(value: Record<string, unknown>, main: Target): ObservedEvent[] {
  const calls = Array.isArray(value.tool_calls) ? (value.tool_calls as unknown[]) : []
  const events: ObservedEvent[] = []
  for (const call of calls) {
    if (!isRecord(call) || call.tool_name !== QWEN_TODO_TOOL) continue
    const response = isRecord(call.tool_response) ? call.tool_response : undefined
    events.push({
      kind: 'tool_result',
      target: main,
      call_id: hookCallId(call),
      name: QWEN_TODO_TOOL,
      input: call.tool_input,
      is_error: call.status !== 'success',
      structured: { timestamp: value.timestamp },
      text: batchText(response),
    })
  }
  return events.length > 0 ? events : [{ kind: 'activity', target: main, what: 'PostToolBatch' }]
}

/**
 * A `TodoCreated` / `TodoCompleted` hook: its `postWrite` phase is the whole list as stored, a
 * snapshot whose id is the prompt and the list (every item's hook of one write has the same).
 */
function todoHookEvents(
  value: Record<string, unknown>,
  event: string,
  main: Target
): ObservedEvent[] {
  if (value.phase !== 'postWrite' || !Array.isArray(value.all_todos)) {
    return [{ kind: 'activity', target: main, what: `${event}:${nonEmpty(value.phase) ?? ''}` }]
  }
  const list = value.all_todos
  return [
    {
      kind: 'tool_result',
      target: main,
      call_id: `todos:${digest([value.prompt_id ?? null, list])}`,
      name: QWEN_TODO_TOOL,
      input: { todos: list },
      is_error: false,
      structured: { returnDisplay: { type: 'todo_list', todos: list }, timestamp: value.timestamp },
    },
  ]
}

/**
 * Whether a hook input is Qwen Code's (its hooks look like Claude Code's): its transcript is under
 * `~/.qwen/`, or it has a `timestamp` (Claude's hooks have none) with a Qwen-only mark: a
 * `prompt_id` of `<session>########<n>`, a `tool_call_id`, a todo hook.
 * @param value - a hook input posted to another agent's route
 */
export function isQwenHook(value: unknown): boolean {
  if (!isRecord(value) || typeof value.hook_event_name !== 'string') return false
  if (typeof value.transcript_path === 'string' && value.transcript_path.includes('/.qwen/')) {
    return true
  }
  return (
    typeof value.timestamp === 'string' &&
    ((typeof value.prompt_id === 'string' && value.prompt_id.includes('########')) ||
      typeof value.tool_call_id === 'string' ||
      value.hook_event_name === 'TodoCreated' ||
      value.hook_event_name === 'TodoCompleted')
  )
}

/**
 * Parses one Qwen Code hook input.
 * @param value - the hook input
 * @throws IngestFormatError when it names no session
 */
export function parseQwenHook(value: Record<string, unknown>): ObservedEvent[] {
  // every hook input says where the agent runs (`cwd`; `model` on SessionStart)
  return withOrigin(qwenHookEvents(value), originHintsOf(value, { cwd: 'cwd', model: 'model' }))
}

function qwenHookEvents(value: Record<string, unknown>): ObservedEvent[] {
  const session = nonEmpty(value.session_id)
  if (!session) throw new IngestFormatError('session_id is missing.', '/session_id')
  if (typeof value.timestamp !== 'string') {
    // every Qwen hook input has one; Claude Code's, which look alike, have none
    throw new IngestWrongAgentError(
      'A Qwen Code hook input carries a timestamp; this one looks like a Claude Code hook input: post it to /v1/ingest/claude-code.',
      '/v1/ingest/claude-code'
    )
  }
  const event = nonEmpty(value.hook_event_name)!
  const main: Target = { session }
  const todo = value.tool_name === QWEN_TODO_TOOL
  // a lifecycle hook posted again (a retry) is the same event: its time names it
  const lifecycleId = `${event}:${nonEmpty(value.timestamp) ?? digest(value)}`
  switch (event) {
    case 'PostToolUse':
    case 'PostToolUseFailure':
      if (!todo)
        return [
          { kind: 'activity', target: main, what: `${event}:${nonEmpty(value.tool_name) ?? ''}` },
        ]
      return [
        {
          kind: 'tool_result',
          target: main,
          call_id: hookCallId(value),
          name: QWEN_TODO_TOOL,
          input: value.tool_input,
          is_error: event === 'PostToolUseFailure',
          // the hook's time beside what the tool returned: the observer takes no older write
          structured: {
            ...(isRecord(value.tool_response) ? value.tool_response : {}),
            timestamp: value.timestamp,
          },
          text: typeof value.tool_response === 'string' ? value.tool_response : undefined,
        },
      ]
    case 'PostToolBatch':
      return batchEvents(value, main)
    case 'TodoCreated':
    case 'TodoCompleted':
      return todoHookEvents(value, event, main)
    case 'PermissionRequest':
      return [
        {
          kind: 'waiting',
          target: main,
          reason: PERMISSION,
          message: permissionMessage(value.tool_name),
        },
      ]
    case 'Notification':
      if (value.notification_type === PERMISSION) {
        return [
          {
            kind: 'waiting',
            target: main,
            reason: PERMISSION,
            message: nonEmpty(value.message) ?? null,
          },
        ]
      }
      return [
        {
          kind: 'activity',
          target: main,
          what: `Notification:${nonEmpty(value.notification_type) ?? ''}`,
        },
      ]
    case 'SessionStart':
      return [{ kind: 'session_start', target: main, id: lifecycleId, run: true }]
    case 'SessionEnd':
      return [{ ...exitEvent(main, value.reason), id: lifecycleId }]
    default:
      return [aliveOrIgnored(ACTIVITY_HOOKS, event, main)]
  }
}

/** The text of a stream `tool_result` block. */
function blockText(content: unknown): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  return (content as unknown[])
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .join('')
}

/** The blocks of a stream line's message. */
const blocksOf = (line: Record<string, unknown>): unknown[] => {
  const message = isRecord(line.message) ? line.message : undefined
  return Array.isArray(message?.content) ? (message.content as unknown[]) : []
}

/** One stream-json line's events. */
function streamLineEvents(line: Record<string, unknown>, main: Target): ObservedEvent[] {
  const uuid = nonEmpty(line.uuid)
  switch (line.type) {
    case 'system':
      if (line.subtype !== 'init') return [{ kind: 'activity', target: main, what: 'system' }]
      return [
        {
          kind: 'session_start',
          target: main,
          run: true,
          id: uuid === undefined ? undefined : `init:${uuid}`,
          tools: Array.isArray(line.tools)
            ? line.tools.filter((tool): tool is string => typeof tool === 'string')
            : undefined,
          origin: originHintsOf(line, {
            cwd: 'cwd',
            model: 'model',
            agent_version: 'qwen_code_version',
          }),
        },
      ]
    case 'assistant':
    case 'user': {
      const events: ObservedEvent[] = []
      for (const block of blocksOf(line)) {
        if (!isRecord(block)) continue
        const id = nonEmpty(block.id)
        if (block.type === 'tool_use' && block.name === QWEN_TODO_TOOL && id) {
          // the call and its result may come in different deliveries (observe's batches)
          events.push({
            kind: 'tool_call',
            target: main,
            call_id: id,
            name: QWEN_TODO_TOOL,
            input: block.input,
            stage: true,
          })
        } else if (block.type === 'tool_result' && nonEmpty(block.tool_use_id)) {
          events.push({
            kind: 'tool_result',
            target: main,
            call_id: nonEmpty(block.tool_use_id)!,
            is_error: block.is_error === true,
            text: blockText(block.content),
          })
        }
      }
      return events.length > 0 ? events : [{ kind: 'activity', target: main, what: line.type }]
    }
    case 'control_request': {
      const request = isRecord(line.request) ? line.request : undefined
      if (request?.subtype !== 'can_use_tool') {
        return [{ kind: 'activity', target: main, what: 'control_request' }]
      }
      return [
        {
          kind: 'waiting',
          target: main,
          reason: PERMISSION,
          message: permissionMessage(request.tool_name),
        },
      ]
    }
    case 'result':
    case 'stream_event':
    case 'control_response':
      return [{ kind: 'activity', target: main, what: line.type }]
    default:
      return [{ kind: 'ignored', target: main, what: String(line.type) }]
  }
}

/** The session a line names: its `session_id`, or the SDK protocol's initialize reply's. */
function sessionOfLine(line: unknown): string | undefined {
  if (!isRecord(line)) return undefined
  const reply = isRecord(line.response) ? line.response.response : undefined
  return nonEmpty(line.session_id) ?? (isRecord(reply) ? nonEmpty(reply.session_id) : undefined)
}

/**
 * Parses `qwen --output-format stream-json` lines, in order.
 * @param values - the lines
 * @throws IngestFormatError when a line is not a stream-json event
 */
export function parseQwenStream(values: readonly unknown[]): ObservedEvent[] {
  const events: ObservedEvent[] = []
  // lines before the first that names the session are of it too
  let session = values.map(sessionOfLine).find((id) => id !== undefined)
  values.forEach((line, index) => {
    assertStreamLine(line, index, 'a Qwen Code stream-json event')
    session = sessionOfLine(line) ?? session
    events.push(...streamLineEvents(line, { session }))
  })
  return events
}

/**
 * Parses a Qwen Code body: one hook input (an object with `hook_event_name`), else stream-json.
 * @param values - the body's values
 */
export function parseQwen(values: readonly unknown[]): ObservedEvent[] {
  if (values.length === 1 && isRecord(values[0]) && typeof values[0].hook_event_name === 'string') {
    return parseQwenHook(values[0])
  }
  return parseQwenStream(values)
}
