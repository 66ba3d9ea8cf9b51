/**
 * @module ingest/copilot
 * GitHub Copilot CLI 1.0.102 (real runs in test/fixtures/ingest/copilot/real-*, REAL-CAPTURES.md):
 * one hook input, camelCase or PascalCase, or the JSONL of `copilot -p … --output-format json`.
 *
 * - camelCase hooks (`~/.copilot/hooks/*.json` keys `sessionStart`, `postToolUse`, …) carry no
 *   event name: `{sessionId, timestamp: <ms>, cwd, …}`, the event told by its fields
 *   (`toolResult` → postToolUse, `stopReason` → agentStop, `reason` → sessionEnd, …);
 *   `permissionRequest` says `hookName`. PascalCase hooks (`PostToolUse`, …) carry
 *   `hook_event_name`, `session_id`, an ISO `timestamp` and snake_case fields.
 * - Todo writes are the `sql` tool's statements on the built-in `todos` / `todo_deps` tables
 *   (dialect `copilot-todos`, which replays them on a private copy). Hooks carry no call id: a
 *   repeat of the same query at the same `timestamp` is the same call. Only a successful result
 *   (`resultType: "success"`) counts; a failed call fires no postToolUse hook at all. A query that
 *   failed after completing its first statements (its text says how many) counts for those.
 * - Waiting: `permissionRequest` and `Notification` of `permission_prompt`, until the next event.
 *   `agentStop` / `Stop` end a turn (activity); `sessionEnd` / `SessionEnd` end the session.
 * - The stream: `tool.execution_start {toolCallId, toolName: "sql", arguments}` is the call (kept
 *   until its `tool.execution_complete {success}`), `result {sessionId, exitCode}` ends the run;
 *   only `result` names the session, so a part of a stream without it needs `?session_id=`.
 */
import { isRecord } from '../dialects/json.js'
import { digest } from './body.js'
import { IngestFormatError, type ObservedEvent, type Target } from './events.js'
import { aliveOrIgnored, exitEvent, nonEmpty, originHintsOf, withOrigin } from './parse-kit.js'
import { assertStreamLine, runEnd } from './stream-lines.js'

/** Copilot's tool whose statements write its todo tables. */
const TODO_TOOL = 'sql'

/** PascalCase event names in the camelCase spelling the parser speaks. */
const PASCAL_EVENTS: Readonly<Record<string, string>> = {
  SessionStart: 'sessionStart',
  UserPromptSubmit: 'userPromptSubmitted',
  PreToolUse: 'preToolUse',
  PostToolUse: 'postToolUse',
  PostToolUseFailure: 'postToolUseFailure',
  Stop: 'agentStop',
  SubagentStop: 'subagentStop',
  SessionEnd: 'sessionEnd',
  Notification: 'notification',
  PermissionRequest: 'permissionRequest',
  ErrorOccurred: 'errorOccurred',
}

const ACTIVITY_HOOKS: ReadonlySet<string> = new Set([
  'userPromptSubmitted',
  'preToolUse',
  'postToolUse',
  'postToolUseFailure',
  'agentStop',
  'subagentStop',
  'errorOccurred',
  'notification',
])

const ACTIVITY_LINES: ReadonlySet<string> = new Set([
  'user.message',
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.message',
  'assistant.idle',
  'session.todos_changed',
  'tool.execution_start',
  'tool.execution_complete',
])

/** The camelCase event a hook input is, told by its fields when it names none. */
function hookEvent(value: Record<string, unknown>): string {
  const named = nonEmpty(value.hook_event_name) ?? nonEmpty(value.hookName)
  if (named) return PASCAL_EVENTS[named] ?? named
  if ('toolResult' in value) return 'postToolUse'
  if ('toolName' in value) return 'preToolUse'
  if ('initialPrompt' in value || 'source' in value) return 'sessionStart'
  if ('stopReason' in value) return 'agentStop'
  if ('reason' in value) return 'sessionEnd'
  if ('prompt' in value) return 'userPromptSubmitted'
  if ('notificationType' in value || 'notification_type' in value) return 'notification'
  if ('error' in value) return 'errorOccurred'
  return 'unknown'
}

/**
 * Whether a hook input is Copilot CLI's: camelCase (`sessionId`, or `hookName`), or PascalCase,
 * which looks like Claude Code's but carries `tool_result` (Claude: `tool_response`), an ISO
 * `timestamp` (Claude's hooks have none) with no `transcript_path` or with Copilot's
 * `stop_reason`, or `initial_prompt`.
 * @param value - a hook input
 */
export function isCopilotHook(value: Record<string, unknown>): boolean {
  if (typeof value.type === 'string') return false
  if (typeof value.sessionId === 'string' && value.session_id === undefined) return true
  if (value.hookName === 'permissionRequest') return true
  if (typeof value.hook_event_name !== 'string' || typeof value.session_id !== 'string') {
    return false
  }
  if (isRecord(value.tool_result) && 'result_type' in value.tool_result) return true
  if ('initial_prompt' in value) return true
  if (typeof value.timestamp !== 'string') return false
  return !('transcript_path' in value) || 'stop_reason' in value
}

/**
 * How many statements a failed `sql` query completed before the one that failed, from its result
 * text (`SQL Error after statement 2 (INSERT): … Completed 1 statement(s) before failure:`): Copilot
 * keeps those, so they are a successful write of their own. Undefined when none completed.
 * @param text - the result text
 */
export function completedBeforeFailure(text: string | undefined): number | undefined {
  const match =
    text === undefined ? null : /Completed (\d+) statement\(s\) before failure/.exec(text)
  const count = match ? Number(match[1]) : 0
  return count > 0 ? count : undefined
}

/** A `sql` result: failed, succeeded, or failed after completing its first statements. */
function sqlOutcome(failed: boolean, text: string | undefined) {
  const completed = failed ? completedBeforeFailure(text) : undefined
  return completed
    ? { is_error: false, structured: { completed_statements: completed }, text }
    : { is_error: failed, text }
}

/** The hook's field under either spelling. */
const field = (value: Record<string, unknown>, camel: string, snake: string): unknown =>
  value[camel] !== undefined ? value[camel] : value[snake]

/**
 * Parses one Copilot CLI hook input (camelCase or PascalCase).
 * @param value - the hook input
 */
export function parseCopilotHook(value: Record<string, unknown>): ObservedEvent[] {
  // every hook input, in either spelling, says where the agent runs (`cwd`)
  return withOrigin(copilotHookEvents(value), originHintsOf(value, { cwd: 'cwd' }))
}

function copilotHookEvents(value: Record<string, unknown>): ObservedEvent[] {
  const session = nonEmpty(field(value, 'sessionId', 'session_id'))
  if (!session) throw new IngestFormatError('sessionId is missing.', '/sessionId')
  const main: Target = { session }
  const event = hookEvent(value)
  const stamp =
    typeof value.timestamp === 'string' || typeof value.timestamp === 'number'
      ? String(value.timestamp)
      : ''
  switch (event) {
    case 'postToolUse': {
      const tool = nonEmpty(field(value, 'toolName', 'tool_name'))
      if (tool !== TODO_TOOL) return [{ kind: 'activity', target: main, what: event }]
      const input = field(value, 'toolArgs', 'tool_input') ?? value.toolInput
      const result = field(value, 'toolResult', 'tool_result')
      const outcome = isRecord(result) ? result : {}
      const query = isRecord(input) ? input.query : undefined
      return [
        {
          kind: 'tool_result',
          target: main,
          call_id: `hook:${stamp}:${digest(query ?? input)}`,
          name: TODO_TOOL,
          input,
          ...sqlOutcome(
            field(outcome, 'resultType', 'result_type') !== 'success',
            nonEmpty(field(outcome, 'textResultForLlm', 'text_result_for_llm'))
          ),
        },
      ]
    }
    case 'sessionStart':
      return [{ kind: 'session_start', target: main, run: true, id: `sessionStart:${stamp}` }]
    case 'sessionEnd':
      return [{ ...exitEvent(main, value.reason), id: `sessionEnd:${stamp}` }]
    case 'permissionRequest': {
      const tool = nonEmpty(field(value, 'toolName', 'tool_name'))
      return [
        {
          kind: 'waiting',
          target: main,
          reason: 'permission_prompt',
          message: tool ? `Permission needed: ${tool}` : null,
        },
      ]
    }
    case 'notification':
      if (field(value, 'notificationType', 'notification_type') === 'permission_prompt') {
        return [
          {
            kind: 'waiting',
            target: main,
            reason: 'permission_prompt',
            message: nonEmpty(value.message) ?? nonEmpty(value.title) ?? null,
          },
        ]
      }
      return [{ kind: 'activity', target: main, what: event }]
    default:
      return [aliveOrIgnored(ACTIVITY_HOOKS, event, main)]
  }
}

/**
 * Parses `copilot -p … --output-format json` lines, in order.
 * @param values - the lines
 */
export function parseCopilotStream(values: readonly unknown[]): ObservedEvent[] {
  values.forEach((line, index) => {
    assertStreamLine(line, index, 'a Copilot CLI JSON event')
  })
  const lines = values as Record<string, unknown>[]
  // only the closing `result` names the session: it names every line of the body
  const session = lines
    .map((line) => (line.type === 'result' ? nonEmpty(line.sessionId) : undefined))
    .find((id) => id !== undefined)
  const main: Target = { session }
  const otherTools = new Set<string>()
  const events: ObservedEvent[] = []
  for (const line of lines) {
    const type = line.type as string
    const data = isRecord(line.data) ? line.data : {}
    const callId = nonEmpty(data.toolCallId)
    if (type === 'tool.execution_start' && callId) {
      if (data.toolName === TODO_TOOL) {
        events.push({
          kind: 'tool_call',
          target: main,
          call_id: callId,
          name: TODO_TOOL,
          input: data.arguments,
          stage: true,
        })
        continue
      }
      otherTools.add(callId)
    } else if (type === 'tool.execution_complete' && callId && !otherTools.has(callId)) {
      const result = isRecord(data.result) ? data.result : {}
      const error = isRecord(data.error) ? data.error : {}
      events.push({
        kind: 'tool_result',
        target: main,
        call_id: callId,
        ...sqlOutcome(data.success !== true, nonEmpty(result.content) ?? nonEmpty(error.message)),
      })
      continue
    } else if (type === 'result') {
      const code = line.exitCode
      events.push(
        code === 0
          ? runEnd(main, 'completed', null, 'result')
          : runEnd(main, 'error', `exit code ${String(code)}`, 'result')
      )
      continue
    }
    events.push(aliveOrIgnored(ACTIVITY_LINES, type, main))
  }
  return events
}

/**
 * Parses a Copilot CLI body: one hook input, else `--output-format json` lines.
 * @param values - the body's values
 */
export function parseCopilot(values: readonly unknown[]): ObservedEvent[] {
  if (values.length === 1 && isRecord(values[0]) && typeof values[0].type !== 'string') {
    if (!isCopilotHook(values[0])) {
      throw new IngestFormatError(
        'Not a Copilot CLI hook input (no sessionId, session_id with hook_event_name, or hookName).'
      )
    }
    return parseCopilotHook(values[0])
  }
  return parseCopilotStream(values)
}
