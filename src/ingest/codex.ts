/**
 * @module ingest/codex
 * OpenAI Codex CLI 0.171.0 (events typed in `@openai/codex-sdk` 0.163.0 `dist/index.d.ts`; real
 * runs in test/fixtures/ingest/codex/real-*, see REAL-CAPTURES.md there): the JSONL of
 * `codex exec --json`, whole or in consecutive parts (only the first line, `thread.started`, names
 * the thread: later parts need `?session_id=`), or one command-hook input. The exec stream's
 * `todo_list` items are snapshots with done / not done only; a hook's `update_plan` PostToolUse
 * carries the plan with every status.
 */
import { isRecord } from '../dialects/json.js'
import { digest } from './body.js'
import { permissionWait } from './claude-code.js'
import { IngestFormatError, type ObservedEvent, type Target } from './events.js'
import { aliveOrIgnored, exitEvent, nonEmpty, originHintsOf, withOrigin } from './parse-kit.js'
import { parseLines, runEnd, type StreamLine } from './stream-lines.js'

/** Hook events that only say the agent is alive. */
const ACTIVITY_HOOKS: ReadonlySet<string> = new Set([
  'PreToolUse',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'PreCompact',
  'PostCompact',
  'SubagentStart',
  'SubagentStop',
  'PreModelRequest',
  'Interrupt',
])

/** Exec events that only say the agent is alive. */
const ACTIVITY_EVENTS: ReadonlySet<string> = new Set(['turn.started', 'error', 'item.plan.delta'])

/**
 * Parses one Codex command-hook input (Claude-shaped: `session_id`, `hook_event_name`,
 * `tool_name`, `tool_input`, `tool_response`, `tool_use_id`).
 * @param value - the hook input
 */
export function parseCodexHook(value: Record<string, unknown>): ObservedEvent[] {
  // every hook input says where the agent runs and on which model
  return withOrigin(codexHookEvents(value), originHintsOf(value, { cwd: 'cwd', model: 'model' }))
}

function codexHookEvents(value: Record<string, unknown>): ObservedEvent[] {
  const session = nonEmpty(value.session_id)
  if (!session) throw new IngestFormatError('session_id is missing.', '/session_id')
  const event = nonEmpty(value.hook_event_name)!
  const main: Target = { session }
  switch (event) {
    case 'PostToolUse': {
      if (value.tool_name !== 'update_plan') {
        return [
          {
            kind: 'activity',
            target: main,
            what: `PostToolUse:${nonEmpty(value.tool_name) ?? ''}`,
          },
        ]
      }
      const response = value.tool_response
      const text = typeof response === 'string' ? response : undefined
      return [
        {
          kind: 'tool_result',
          target: main,
          call_id: nonEmpty(value.tool_use_id) ?? `hook:${digest([value.tool_input, response])}`,
          name: 'update_plan',
          input: value.tool_input,
          // PostToolUse fires only for a call that ran; Codex's failure text says otherwise
          is_error: text?.startsWith('failed to parse') ?? false,
          structured: isRecord(response) ? response : undefined,
          text,
        },
      ]
    }
    case 'SessionStart':
      return [{ kind: 'session_start', target: main, run: true }]
    case 'SessionEnd':
      return [exitEvent(main, value.reason)]
    case 'PermissionRequest':
      // an approval prompt: Codex waits for a person to allow the call
      return [permissionWait(main, nonEmpty(value.tool_name))]
    default:
      return [aliveOrIgnored(ACTIVITY_HOOKS, event, main)]
  }
}

/**
 * Parses `codex exec --json` lines, in order.
 * @param values - the lines
 */
export function parseCodexExec(values: readonly unknown[]): ObservedEvent[] {
  return parseLines(values, 'a codex exec event', threadOf, execEvent)
}

/** The thread a line names: only `thread.started` does. */
const threadOf = (line: StreamLine) =>
  line.type === 'thread.started' ? nonEmpty(line.thread_id) : undefined

/**
 * The event of one `codex exec --json` line.
 * @param line - the line
 * @param main - the thread
 */
function execEvent(line: StreamLine, main: Target): ObservedEvent {
  switch (line.type) {
    case 'thread.started':
      // once per thread: a stream posted again (or resumed) does not open an ended session
      return {
        kind: 'session_start',
        target: main,
        run: true,
        id: main.session === undefined ? undefined : `thread.started:${main.session}`,
      }
    case 'turn.completed':
      return runEnd(main, 'completed', null)
    case 'turn.failed': {
      const error = isRecord(line.error) ? nonEmpty(line.error.message) : undefined
      return runEnd(main, 'error', error ?? 'turn failed')
    }
    case 'item.started':
    case 'item.updated':
    case 'item.completed': {
      const item = isRecord(line.item) ? line.item : undefined
      if (item?.type !== 'todo_list') {
        return {
          kind: 'activity',
          target: main,
          what: `${line.type}:${nonEmpty(item?.type) ?? ''}`,
        }
      }
      const items = item.items
      return {
        kind: 'tool_result',
        target: main,
        // no call id: the item, and what it holds (item ids restart per process)
        call_id: `todo_list:${nonEmpty(item.id) ?? ''}:${digest(items)}`,
        name: 'todo_list',
        input: { items },
        is_error: false,
      }
    }
    case 'request_user_input':
      return { kind: 'waiting', target: main, reason: 'request_user_input', message: null }
    default:
      return aliveOrIgnored(ACTIVITY_EVENTS, line.type, main)
  }
}

/**
 * Parses a Codex body: one hook input (an object with `hook_event_name`), else exec JSONL.
 * @param values - the body's values (lines, or array elements)
 */
export function parseCodex(values: readonly unknown[]): ObservedEvent[] {
  if (values.length === 1 && isRecord(values[0]) && typeof values[0].hook_event_name === 'string') {
    return parseCodexHook(values[0])
  }
  return parseCodexExec(values)
}
