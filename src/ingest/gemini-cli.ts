/**
 * @module ingest/gemini-cli
 * Gemini CLI 0.61.0 (`google-gemini/gemini-cli` `packages/core/src/hooks/types.ts` and
 * `packages/core/src/output/types.ts`; real runs in test/fixtures/ingest/gemini-cli/real-*, see
 * REAL-CAPTURES.md there): one command-hook input, or `--output-format stream-json` NDJSON. Hooks
 * carry no call id: a repeat of the same tool input at the same `timestamp` is the same call. A
 * stream-json `tool_result` of `write_todos` carries no output: the list is in its `tool_use`, so
 * that call waits for its result. Only `init` names the session: later parts of a stream need
 * `?session_id=`. The experimental task tracker's tools (`tracker_*`, dialect `gemini-tracker`)
 * give their ids only in what they answer: an `AfterTool` hook carries it (`tool_response.
 * llmContent`), a stream-json `tool_result` does not, so only hooks feed them.
 */
import type { EndedOutcome } from '../core/session.js'
import { isRecord } from '../dialects/json.js'
import { digest } from './body.js'
import { IngestFormatError, type ObservedEvent, type Target } from './events.js'
import { aliveOrIgnored, exitEvent, nonEmpty, originHintsOf, withOrigin } from './parse-kit.js'
import { parseLines, runEnd, type StreamLine } from './stream-lines.js'

/** Gemini CLI's todo tool (offered on Gemini 2.x non-preview models with the task tracker off). */
const TODO_TOOL = 'write_todos'

/** Its experimental task tracker's tools (`experimental.taskTracker`), in place of `write_todos`. */
const TRACKER_TOOL = /^tracker_[a-z_]+$/

/** Whether an `AfterTool` hook's tool is one whose result the service applies. */
const isTodoTool = (name: unknown): name is string =>
  typeof name === 'string' && (name === TODO_TOOL || TRACKER_TOOL.test(name))

/** The text the model read of a tool's answer (`llmContent`: a string, or text parts). */
function llmText(response: Record<string, unknown> | undefined): string | undefined {
  const content = response?.llmContent
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const texts = content.flatMap((part) =>
    isRecord(part) && typeof part.text === 'string' ? [part.text] : []
  )
  return texts.length > 0 ? texts.join('') : undefined
}

const ACTIVITY_HOOKS: ReadonlySet<string> = new Set([
  'BeforeTool',
  'AfterTool',
  'BeforeAgent',
  'AfterAgent',
  'PreCompress',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
  'Notification',
])

/**
 * Parses one Gemini CLI hook input.
 * @param value - the hook input
 */
export function parseGeminiHook(value: Record<string, unknown>): ObservedEvent[] {
  // every hook input says where the agent runs
  return withOrigin(geminiHookEvents(value), originHintsOf(value, { cwd: 'cwd' }))
}

function geminiHookEvents(value: Record<string, unknown>): ObservedEvent[] {
  const session = nonEmpty(value.session_id)
  if (!session) throw new IngestFormatError('session_id is missing.', '/session_id')
  const event = nonEmpty(value.hook_event_name)!
  const main: Target = { session }
  if (event === 'AfterTool' && isTodoTool(value.tool_name)) {
    const response = isRecord(value.tool_response) ? value.tool_response : undefined
    const name = value.tool_name
    return [
      {
        kind: 'tool_result',
        target: main,
        // write_todos' id stays what it was (hooks stored before keep recognising their replays)
        call_id: `hook:${nonEmpty(value.timestamp) ?? ''}:${digest(name === TODO_TOOL ? value.tool_input : [name, value.tool_input])}`,
        name,
        input: value.tool_input,
        is_error: response?.error !== undefined && response.error !== null,
        structured: response,
        text: name === TODO_TOOL ? undefined : llmText(response),
      },
    ]
  }
  switch (event) {
    case 'SessionStart':
      return [{ kind: 'session_start', target: main, run: true }]
    case 'SessionEnd':
      return [exitEvent(main, value.reason)]
    case 'Notification':
      if (value.notification_type === 'ToolPermission') {
        return [
          {
            kind: 'waiting',
            target: main,
            reason: 'permission_prompt',
            message: nonEmpty(value.message) ?? null,
          },
        ]
      }
      return [{ kind: 'activity', target: main, what: event }]
    default:
      return [aliveOrIgnored(ACTIVITY_HOOKS, event, main)]
  }
}

/** The stream's `result` event's outcome, one of those `POST /v1/sessions/{id}/end` takes. */
function resultOutcome(line: Record<string, unknown>): {
  outcome: EndedOutcome
  detail: string | null
} {
  if (line.status === 'success') return { outcome: 'completed', detail: null }
  const error = isRecord(line.error) ? line.error : undefined
  const type = nonEmpty(error?.type)
  const detail = nonEmpty(error?.message) ?? type ?? 'error'
  if (type === 'FatalTurnLimitedError') return { outcome: 'max_turns', detail }
  if (type === 'FatalCancellationError') return { outcome: 'cancelled', detail }
  return { outcome: 'error', detail }
}

/**
 * Parses `gemini --output-format stream-json` lines, in order.
 * @param values - the lines
 */
export function parseGeminiStream(values: readonly unknown[]): ObservedEvent[] {
  return parseLines(values, 'a Gemini CLI stream-json event', sessionOfInit, streamEvent)
}

/** The session a line names: only `init` does. */
const sessionOfInit = (line: StreamLine) =>
  line.type === 'init' ? nonEmpty(line.session_id) : undefined

/**
 * The event of one stream-json line.
 * @param line - the line
 * @param main - the session
 */
function streamEvent(line: StreamLine, main: Target): ObservedEvent {
  switch (line.type) {
    case 'init':
      return {
        kind: 'session_start',
        target: main,
        run: true,
        id: `init:${nonEmpty(line.timestamp) ?? ''}`,
        origin: originHintsOf(line, { model: 'model' }),
      }
    case 'tool_use': {
      const id = nonEmpty(line.tool_id)
      if (line.tool_name !== TODO_TOOL || !id) {
        return {
          kind: 'activity',
          target: main,
          what: `tool_use:${nonEmpty(line.tool_name) ?? ''}`,
        }
      }
      return {
        kind: 'tool_call',
        target: main,
        call_id: id,
        name: TODO_TOOL,
        input: line.parameters,
        stage: true,
      }
    }
    case 'tool_result': {
      const id = nonEmpty(line.tool_id)
      if (!id) return { kind: 'activity', target: main, what: 'tool_result' }
      return {
        kind: 'tool_result',
        target: main,
        call_id: id,
        is_error: line.status !== 'success',
        text: nonEmpty(line.output),
      }
    }
    case 'result': {
      const { outcome, detail } = resultOutcome(line)
      return runEnd(main, outcome, detail)
    }
    case 'message':
    case 'error':
      return { kind: 'activity', target: main, what: line.type }
    default:
      return { kind: 'ignored', target: main, what: line.type }
  }
}

/**
 * Parses a Gemini CLI body: one hook input (an object with `hook_event_name`), else stream-json.
 * @param values - the body's values
 */
export function parseGemini(values: readonly unknown[]): ObservedEvent[] {
  if (values.length === 1 && isRecord(values[0]) && typeof values[0].hook_event_name === 'string') {
    return parseGeminiHook(values[0])
  }
  return parseGeminiStream(values)
}
