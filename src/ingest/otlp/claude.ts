/**
 * @module ingest/otlp/claude
 * Claude Code's telemetry (2.1.332; reference/otel/claude-code-2.1.332), session
 * `claude:<session.id>` (a subagent's TodoWrite list its own, as with hooks):
 *
 * - `claude_code.tool_result` log records (with `OTEL_LOG_TOOL_DETAILS=1`) carry the call's
 *   `tool_input` but never its result. `TaskCreate` (flat input, whole) is numbered as Claude
 *   numbers a list's tasks, in order of successful creation; `TaskUpdate` (`taskId`, `status`)
 *   whole. `TodoWrite`'s input is cut at depth 2 (`{"todos":["<nested>",…]}`): only its item count
 *   is left, a list whose texts are unknown. Both are partial reports of the call: the same call
 *   reported whole (a hook, a beta span) replaces them.
 * - The beta tracer's `claude_code.tool` spans carry `tool_input` (`[TOOL INPUT: <tool>]\n{json}`)
 *   and `new_context` (`[TOOL RESULT: <tool>]\n{json}`): everything a PostToolUse hook has.
 * - `claude_code.tool.blocked_on_user` spans tell a wait for a person after it was answered: the
 *   agent is alive again, nothing waits any more.
 */
import { CLAUDE_TODO_TOOLS, claudeTarget } from '../claude-code.js'
import type { ObservedEvent, ResultEvent } from '../events.js'
import {
  flag,
  inOrder,
  json,
  newReading,
  noteSession,
  originOf,
  reject,
  text,
  withActivity,
  type AliveSessions,
  type OtlpReading,
} from './kit.js'
import type { OtlpRecord } from './normalize.js'

/** The text after a beta span's `[TOOL INPUT: …]` / `[TOOL RESULT: …]` line, as JSON. */
function tagged(value: string | undefined): unknown {
  if (value === undefined) return undefined
  const newline = value.indexOf('\n')
  return json(value.startsWith('[TOOL ') && newline !== -1 ? value.slice(newline + 1) : value)
}

/** TodoWrite's input cut at depth 2: only the count of its items is left. */
function cutTodos(input: unknown): number | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const todos = (input as { todos?: unknown }).todos
  if (!Array.isArray(todos) || !todos.every((todo) => typeof todo === 'string')) return undefined
  return todos.length
}

/** A list of `count` items whose texts telemetry does not carry. */
const unknownTodos = (count: number) => ({
  todos: Array.from({ length: count }, (_, i) => ({
    content: `Item ${i + 1} (its text is not in the telemetry)`,
    status: 'pending',
    activeForm: `Item ${i + 1}`,
  })),
})

/** The event of a `tool_result` log record of a todo tool, or a reason it cannot be applied. */
function logResult(record: OtlpRecord, session: string, tool: string): ResultEvent | string {
  const id = text(record, 'tool_use_id')
  if (!id) return 'claude_code.tool_result without tool_use_id'
  const input = json(text(record, 'tool_input'))
  if (input === undefined) {
    return 'claude_code.tool_result without tool_input (set OTEL_LOG_TOOL_DETAILS=1)'
  }
  const event: ResultEvent = {
    kind: 'tool_result',
    target: claudeTarget(session, text(record, 'agent_id'), tool),
    call_id: `otlp-log:${id}`,
    name: tool,
    input,
    is_error: flag(record, 'success') === false,
    text: text(record, 'error'),
    telemetry: { partialOf: id },
  }
  if (tool === 'TodoWrite') {
    const count = cutTodos(input)
    if (count !== undefined) {
      event.input = unknownTodos(count)
      event.telemetry = { partialOf: id, itemsUnknown: true }
    }
  }
  // the id Claude gave a task is in its result, which the log does not carry
  if (tool === 'TaskCreate') event.structured = { numbered: true }
  return event
}

/** The event of a beta `claude_code.tool` span of a todo tool (its input and its result). */
function spanResult(
  record: OtlpRecord,
  session: string,
  tool: string
): ResultEvent | string | null {
  const id = text(record, 'tool_use_id') ?? text(record, 'gen_ai.tool.call.id')
  const input = tagged(text(record, 'tool_input'))
  const result = text(record, 'new_context')
  // the documented tracer's span holds neither: the log record reports the call
  if (!id || input === undefined || result === undefined) return null
  const structured = tagged(result)
  return {
    kind: 'tool_result',
    target: claudeTarget(session, text(record, 'agent_id'), tool),
    call_id: id,
    name: tool,
    input,
    is_error: false,
    structured: typeof structured === 'object' && structured !== null ? structured : undefined,
    text: structured === undefined ? result : undefined,
    telemetry: {},
  }
}

/** A record's event of a todo call, a reason it cannot be applied, or null for any other record. */
function todoEvent(record: OtlpRecord, session: string): ResultEvent | string | null {
  const tool = text(record, 'tool_name')
  if (!tool || !CLAUDE_TODO_TOOLS.has(tool)) return null
  if (record.kind === 'log') {
    return text(record, 'event.name') === 'tool_result' ? logResult(record, session, tool) : null
  }
  return record.name === 'claude_code.tool' ? spanResult(record, session, tool) : null
}

/**
 * Reads Claude Code's records of an export.
 * @param records - its log records and spans
 */
export function readClaude(records: OtlpRecord[]): OtlpReading {
  const reading = newReading()
  const alive: AliveSessions = new Map()
  const events: ObservedEvent[] = []
  for (const record of inOrder(records)) {
    const session = text(record, 'session.id')
    if (!session) {
      if (todoEvent(record, '-') !== null) reject(reading, 'Claude Code record without session.id')
      continue
    }
    const origin = originOf(record, 'claude-code', 'service.version')
    noteSession(alive, session, record, origin)
    const event = todoEvent(record, session)
    if (typeof event === 'string') reject(reading, event)
    else if (event) events.push({ ...event, origin })
  }
  withActivity(reading, alive, events)
  return reading
}
