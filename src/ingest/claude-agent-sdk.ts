/**
 * @module ingest/claude-agent-sdk
 * Claude Agent SDK messages, which are also the lines of `claude -p --output-format stream-json
 * --verbose` (`SDKMessage` in `sdk.d.ts` of `@anthropic-ai/claude-agent-sdk` 0.3.332; the Python
 * SDK's `claude_agent_sdk/types.py`, 0.2.143): an assistant `tool_use` stages a call, the user
 * frame with its `tool_result` (and `tool_use_result`, the tool's structured output) commits it,
 * the `result` frame ends the run. Replays (`isReplay`) and partial frames (`stream_event`) are
 * ignored. The Python SDK's messages come as `{"type": type(m).__name__, **asdict(m)}`: its
 * dataclasses carry no block types, so blocks are told apart by their keys.
 */
import type { EndedOutcome } from '../core/session.js'
import { isRecord } from '../dialects/json.js'
import { CLAUDE_TODO_TOOLS, claudeTarget } from './claude-code.js'
import { IngestFormatError, type ObservedEvent, type Target } from './events.js'
import { nonEmpty, originHintsOf } from './parse-kit.js'
import { runEnd } from './stream-lines.js'

/** The Python SDK's message classes → the wire `type`. */
const PYTHON_TYPES: Record<string, string> = {
  AssistantMessage: 'assistant',
  UserMessage: 'user',
  SystemMessage: 'system',
  ResultMessage: 'result',
  StreamEvent: 'stream_event',
}

/** A Python SDK content block (no `type`) as its wire block. */
function pythonBlock(block: unknown): unknown {
  if (!isRecord(block) || typeof block.type === 'string') return block
  if ('tool_use_id' in block) return { type: 'tool_result', ...block }
  if ('id' in block && 'name' in block && 'input' in block) return { type: 'tool_use', ...block }
  if ('thinking' in block) return { type: 'thinking', ...block }
  if ('text' in block) return { type: 'text', ...block }
  return block
}

const pythonContent = (content: unknown) =>
  Array.isArray(content) ? content.map(pythonBlock) : content

/** A message of either SDK in the wire shape. */
function wireMessage(message: Record<string, unknown>): Record<string, unknown> {
  const type = typeof message.type === 'string' ? PYTHON_TYPES[message.type] : undefined
  switch (type) {
    case 'assistant':
      return {
        type,
        session_id: message.session_id,
        parent_tool_use_id: message.parent_tool_use_id ?? null,
        message: { id: message.message_id, content: pythonContent(message.content) },
      }
    case 'user':
      return {
        type,
        session_id: message.session_id,
        parent_tool_use_id: message.parent_tool_use_id ?? null,
        tool_use_result: message.tool_use_result,
        message: { role: 'user', content: pythonContent(message.content) },
      }
    case 'system':
      return { ...(isRecord(message.data) ? message.data : {}), type, subtype: message.subtype }
    case 'result':
    case 'stream_event':
      return { ...message, type }
    default:
      return message
  }
}

/** The text of a tool_result's content (a string, or text blocks). */
function resultText(content: unknown): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const texts = content.flatMap((block) =>
    isRecord(block) && typeof block.text === 'string' ? [block.text] : []
  )
  return texts.length > 0 ? texts.join('\n') : undefined
}

/**
 * The todo tool a result came from, read off its structured output or text, for a result whose
 * call was not seen (an SDK forwarder posts one message per request); undefined for other tools.
 * @param structured - the `tool_use_result`
 * @param text - the result text
 */
export function claudeToolOfResult(
  structured: unknown,
  text: string | undefined
): string | undefined {
  if (isRecord(structured)) {
    if (Array.isArray(structured.oldTodos) && Array.isArray(structured.newTodos)) return 'TodoWrite'
    const task = structured.task
    if (isRecord(task) && typeof task.id === 'string' && typeof task.subject === 'string') {
      return 'status' in task ? 'TaskGet' : 'TaskCreate'
    }
    if (
      typeof structured.success === 'boolean' &&
      typeof structured.taskId === 'string' &&
      Array.isArray(structured.updatedFields)
    ) {
      return 'TaskUpdate'
    }
    if (
      Array.isArray(structured.tasks) &&
      structured.tasks.every(
        (t) => isRecord(t) && typeof t.id === 'string' && typeof t.subject === 'string'
      )
    ) {
      return 'TaskList'
    }
  }
  if (text?.startsWith('Todos have been modified successfully')) return 'TodoWrite'
  if (text && /^Task #\S+ created successfully/.test(text)) return 'TaskCreate'
  return undefined
}

/** Whether a call's result will lack what the call did, so the call must wait for it. */
function mustStage(name: string, input: unknown, subagent: boolean): boolean {
  // a subagent's results carry no tool_use_result
  if (name === 'TodoWrite') return subagent
  // a TaskCreate's result has the id, subject and description, not activeForm nor metadata
  if (name === 'TaskCreate' && isRecord(input)) {
    return Object.keys(input).some((key) => !['subject', 'description'].includes(key))
  }
  // a TaskUpdate's result names the changed fields, not their values (but for the status)
  if (name === 'TaskUpdate' && isRecord(input)) {
    return Object.keys(input).some((key) => !['taskId', 'task_id', 'id', 'status'].includes(key))
  }
  return false
}

/**
 * The SDK `result` frame's outcome, as one of the outcomes `POST /v1/sessions/{id}/end` takes.
 * @param message - the result frame
 */
export function sdkOutcome(message: Record<string, unknown>): {
  outcome: EndedOutcome
  detail: string | null
} {
  const subtype = nonEmpty(message.subtype)
  const reason = nonEmpty(message.terminal_reason)
  const errors = Array.isArray(message.errors) ? message.errors : []
  const firstError = nonEmpty(errors[0])
  if (subtype === 'error_max_turns' || reason === 'max_turns') {
    return { outcome: 'max_turns', detail: firstError ?? subtype ?? reason ?? null }
  }
  if (reason === 'aborted_streaming' || reason === 'aborted_tools') {
    return { outcome: 'cancelled', detail: reason }
  }
  if (subtype?.startsWith('error')) return { outcome: 'error', detail: firstError ?? subtype }
  if (message.is_error === true) {
    const status = message.api_error_status
    const detail =
      typeof status === 'number'
        ? `api_error_status ${status}`
        : (reason ?? nonEmpty(message.result))
    return { outcome: 'error', detail: detail ?? 'error' }
  }
  return { outcome: 'completed', detail: null }
}

/** A message's own id (its uuid), for lifecycle frames that must apply once. */
const idOf = (kind: string, message: Record<string, unknown>) => {
  const uuid = nonEmpty(message.uuid)
  return uuid === undefined ? undefined : `${kind}:${uuid}`
}

/**
 * Parses Agent SDK messages (or stream-json lines), in order.
 * @param values - the messages
 * @throws IngestFormatError when one is not an SDK message
 */
export function parseClaudeMessages(values: readonly unknown[]): ObservedEvent[] {
  const events: ObservedEvent[] = []
  let session: string | undefined
  values.forEach((raw, index) => {
    if (!isRecord(raw) || typeof raw.type !== 'string') {
      throw new IngestFormatError(
        `Message ${index} is not an Agent SDK message (an object with a type).`,
        `/${index}`
      )
    }
    const message = wireMessage(raw)
    session = nonEmpty(message.session_id) ?? session
    const main: Target = { session }
    // subagent frames: agent_id (SDK 0.3), else the Agent tool call that started the subagent
    const agent = nonEmpty(message.agent_id) ?? nonEmpty(message.parent_tool_use_id)
    const body = isRecord(message.message) ? message.message : undefined
    const content = body?.content
    switch (message.type) {
      case 'system': {
        if (message.subtype === 'init') {
          const tools = Array.isArray(message.tools)
            ? message.tools.filter((tool): tool is string => typeof tool === 'string')
            : undefined
          events.push({
            kind: 'session_start',
            target: main,
            run: true,
            tools,
            id: idOf('init', message),
            origin: originHintsOf(message, {
              cwd: 'cwd',
              model: 'model',
              agent_version: 'claude_code_version',
            }),
          })
        } else if (
          message.subtype === 'session_state_changed' &&
          message.state === 'requires_action'
        ) {
          events.push({ kind: 'waiting', target: main, reason: 'requires_action', message: null })
        } else {
          events.push({
            kind: 'activity',
            target: main,
            what: `system:${nonEmpty(message.subtype) ?? ''}`,
          })
        }
        break
      }
      case 'assistant': {
        if (message.isReplay === true) {
          events.push({ kind: 'ignored', target: main, what: 'replay' })
          break
        }
        let other = false
        for (const block of Array.isArray(content) ? content : []) {
          if (!isRecord(block) || block.type !== 'tool_use') {
            other = true
            continue
          }
          const name = nonEmpty(block.name)
          const id = nonEmpty(block.id)
          if (!name || !id || !CLAUDE_TODO_TOOLS.has(name)) {
            other = true
            continue
          }
          events.push({
            kind: 'tool_call',
            target: claudeTarget(session, agent, name),
            call_id: id,
            name,
            input: block.input,
            stage: mustStage(name, block.input, agent !== undefined),
          })
        }
        if (other || !Array.isArray(content)) {
          events.push({ kind: 'activity', target: main, what: 'assistant' })
        }
        break
      }
      case 'user': {
        if (message.isReplay === true) {
          events.push({ kind: 'ignored', target: main, what: 'replay' })
          break
        }
        const results = Array.isArray(content)
          ? content.filter((block) => isRecord(block) && block.type === 'tool_result')
          : []
        for (const block of results as Record<string, unknown>[]) {
          const id = nonEmpty(block.tool_use_id)
          if (!id) continue
          const structured = results.length === 1 ? message.tool_use_result : undefined
          const text = resultText(block.content)
          events.push({
            kind: 'tool_result',
            // a subagent's results go to its list; a Task call there would be the shared one's,
            // but subagents have no Task tools
            target: agent ? { session, agent } : main,
            call_id: id,
            name: claudeToolOfResult(structured, text),
            is_error: block.is_error === true,
            // one structured output per user frame: it belongs to its one result
            structured,
            text,
          })
        }
        if (results.length === 0) events.push({ kind: 'activity', target: main, what: 'user' })
        break
      }
      case 'result': {
        const { outcome, detail } = sdkOutcome(message)
        events.push(runEnd(main, outcome, detail, idOf('result', message)))
        break
      }
      case 'tool_progress':
        events.push({ kind: 'activity', target: main, what: 'tool_progress' })
        break
      default:
        events.push({ kind: 'ignored', target: main, what: message.type as string })
    }
  })
  return events
}
