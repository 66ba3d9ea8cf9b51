/**
 * @module ingest/claude-code
 * Claude Code hook inputs, one per request, as its `"type": "http"` hooks post them (hook input
 * types in `sdk.d.ts` of `@anthropic-ai/claude-agent-sdk` 0.3.332; Claude Code 2.1.332's real hooks
 * in test/fixtures/ingest/claude-code/real-*, see REAL-CAPTURES.md there). `PostToolUse` of a todo
 * tool commits the call with its structured `tool_response`; a schema-invalid call fires no tool
 * hook at all, and `PostToolUseFailure` changes nothing. Subagent hooks carry `agent_id`: a
 * subagent's TodoWrite list is its own; Task lists are shared with the main session.
 */
import { isRecord } from '../dialects/json.js'
import { digest } from './body.js'
import { IngestFormatError, type ObservedEvent, type Target } from './events.js'
import { aliveOrIgnored, exitEvent, nonEmpty, originHintsOf, withOrigin } from './parse-kit.js'

/** Claude Code's todo tools (TodoWrite, or the Task family: one of the two per session). */
export const CLAUDE_TODO_TOOLS: ReadonlySet<string> = new Set([
  'TodoWrite',
  'TaskCreate',
  'TaskUpdate',
  'TaskList',
  'TaskGet',
])

/** Hook events that only say the agent is alive. */
const ACTIVITY_HOOKS: ReadonlySet<string> = new Set([
  'PreToolUse',
  'PostToolBatch',
  'UserPromptSubmit',
  'StopFailure',
  'SubagentStart',
  'PreCompact',
  'PostCompact',
  'TaskCreated',
  'TaskCompleted',
  'Setup',
])

/**
 * Notification types that mean the agent waits for a person: its own prompts, a background
 * agent session that needs input (`agent_needs_input`), a team worker that needs a permission
 * (`worker_permission_prompt`).
 */
const WAITING_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'idle_prompt',
  'permission_prompt',
  'agent_needs_input',
  'worker_permission_prompt',
])

/** Hooks that end the turn: a pending request was answered at the terminal, or dropped. */
const TURN_ENDS: ReadonlySet<string> = new Set(['Stop', 'StopFailure', 'UserPromptSubmit'])

/**
 * What ties a tool call's hooks to the request its `PermissionRequest` opened (PermissionRequest
 * has no `tool_use_id`; PreToolUse, PermissionRequest and PostToolUse carry the same tool name and
 * input). A question (AskUserQuestion) is matched by its tool: its answer is added to its input.
 * @param toolName - the tool
 * @param input - its input
 */
export function requestMatch(toolName: string | undefined, input: unknown): string {
  if (toolName === 'AskUserQuestion') return 'tool:AskUserQuestion'
  return `call:${digest([toolName ?? null, input ?? null])}`
}

/** The match of an MCP server's elicitation (its tool's result settles it). */
export const elicitationMatch = (server: string | undefined) => `mcp:${server ?? ''}`

/** The MCP server of a tool named `mcp__<server>__<tool>`. */
const mcpServerOf = (toolName: string | undefined) =>
  toolName?.startsWith('mcp__') ? toolName.slice(5).split('__')[0] : undefined

/**
 * The request matches a tool's hook settles: its call, the question it asked, the MCP server's
 * elicitation.
 */
function toolMatches(toolName: string | undefined, input: unknown): string[] {
  const matches = [
    requestMatch(toolName, input),
    `call:${digest([toolName ?? null, input ?? null])}`,
  ]
  const server = mcpServerOf(toolName)
  if (server !== undefined) matches.push(elicitationMatch(server))
  return matches
}

/**
 * An `Interrupt` hook (Claude Code 2.1.335+): the turn ended by the person or the system; the
 * session waits for its person (`interrupted`). `reason: permission_denied` is a prompt answered
 * No.
 * @param target - the session
 * @param value - the hook input
 */
function interruptEvent(target: Target, value: Record<string, unknown>): ObservedEvent {
  const reason = nonEmpty(value.reason)
  const via = nonEmpty(value.via)
  const denied = reason === 'permission_denied'
  return {
    kind: 'waiting',
    target,
    reason: 'interrupted',
    message: denied
      ? `Interrupted: permission denied${via ? ` at the ${via}` : ''}`
      : `Interrupted${reason ? ` (${reason}${via ? `, via ${via}` : ''})` : ''}`,
    settles: { message: denied ? 'denied at the terminal' : 'the turn was interrupted' },
  }
}

/**
 * An `Elicitation` hook: an MCP server asks the person a question (a form or a URL).
 * @param target - the session
 * @param value - the hook input
 */
function elicitationEvent(target: Target, value: Record<string, unknown>): ObservedEvent {
  const server = nonEmpty(value.mcp_server_name)
  const message = nonEmpty(value.message)
  return {
    kind: 'waiting',
    target,
    reason: 'question',
    message: message ?? (server ? `${server} asks a question` : 'A question'),
  }
}

/**
 * A `PermissionRequest` hook (Claude Code, Codex): the agent asks a person to allow a tool call
 * and waits for the answer.
 * @param target - the session
 * @param toolName - the tool it asks for
 */
export function permissionWait(target: Target, toolName: string | undefined): ObservedEvent {
  return {
    kind: 'waiting',
    target,
    reason: 'permission_prompt',
    message: toolName ? `Permission needed to use ${toolName}` : 'Permission needed',
  }
}

/**
 * The target of a Claude todo tool: a subagent's TodoWrite is its own list, Task lists are shared.
 * @param session - the session id
 * @param agent - the subagent, if the event came from one
 * @param toolName - the tool
 */
export function claudeTarget(
  session: string | undefined,
  agent: string | undefined,
  toolName: string
): Target {
  return toolName === 'TodoWrite' && agent ? { session, agent } : { session }
}

/** A parsed hook: its events, and where a reply's `additionalContext` would land. */
export interface ClaudeHook {
  event: string
  events: ObservedEvent[]
  /** The list whose pending edit this hook's reply may hand to the model (PostToolUse only). */
  replyTarget: Target | null
}

/**
 * Parses one Claude Code hook input.
 * @param value - the request body as JSON
 * @throws IngestFormatError when it is not a hook input
 */
export function parseClaudeHook(value: unknown): ClaudeHook {
  if (!isRecord(value)) throw new IngestFormatError('A Claude Code hook input is a JSON object.')
  const session = nonEmpty(value.session_id)
  if (!session) throw new IngestFormatError('session_id is missing.', '/session_id')
  const event = nonEmpty(value.hook_event_name)
  if (!event) throw new IngestFormatError('hook_event_name is missing.', '/hook_event_name')
  const agent = nonEmpty(value.agent_id)
  const main: Target = { session }
  const toolName = nonEmpty(value.tool_name)
  const todo = toolName !== undefined && CLAUDE_TODO_TOOLS.has(toolName)
  const callId = () =>
    nonEmpty(value.tool_use_id) ??
    `hook:${digest([toolName, value.tool_input, value.tool_response])}`
  const events: ObservedEvent[] = []
  let replyTarget: Target | null = null
  let settles: ObservedEvent['settles']
  switch (event) {
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      // the call ran or failed: a prompt it opened was answered (here or at the terminal)
      settles = { matches: toolMatches(toolName, value.tool_input) }
      if (!todo) {
        events.push({ kind: 'activity', target: main, what: `${event}:${toolName ?? ''}` })
      } else {
        const response = value.tool_response
        events.push({
          kind: 'tool_result',
          target: claudeTarget(session, agent, toolName),
          call_id: callId(),
          name: toolName,
          input: value.tool_input,
          is_error: event === 'PostToolUseFailure',
          structured: isRecord(response) ? response : undefined,
          text: typeof response === 'string' ? response : nonEmpty(value.error),
        })
      }
      // a subagent's context gets only its own list's edit
      if (event === 'PostToolUse' && (!agent || toolName === 'TodoWrite')) {
        replyTarget = agent ? { session, agent } : main
      }
      break
    }
    case 'SessionStart':
      // a compaction goes on with the same run
      events.push({ kind: 'session_start', target: main, run: value.source !== 'compact' })
      break
    case 'SessionEnd':
      settles = {}
      events.push(exitEvent(main, value.reason))
      break
    case 'Stop': {
      settles = {}
      // work still running in the background will wake the session: not the end of the work
      const background = Array.isArray(value.background_tasks) ? value.background_tasks.length : 0
      events.push({ kind: 'activity', target: main, what: event, background })
      break
    }
    case 'Interrupt':
      events.push(interruptEvent(main, value))
      break
    case 'Elicitation':
      events.push(elicitationEvent(main, value))
      break
    case 'SubagentStop':
      if (agent) {
        events.push({
          kind: 'session_end',
          target: { session, agent },
          outcome: 'auto',
          detail: 'subagent stopped',
          specific: false,
        })
      }
      events.push({ kind: 'activity', target: main, what: event })
      break
    case 'PermissionRequest':
      // the permission dialog is about to show: the agent waits for a person (as the
      // Notification of permission_prompt that follows says; the same reason keeps one mark)
      events.push(permissionWait(main, toolName))
      break
    case 'Notification': {
      const type = nonEmpty(value.notification_type)
      if (type && WAITING_NOTIFICATIONS.has(type)) {
        events.push({
          kind: 'waiting',
          target: main,
          reason: type,
          message: nonEmpty(value.message) ?? null,
        })
      } else {
        events.push({ kind: 'activity', target: main, what: `Notification:${type ?? ''}` })
      }
      break
    }
    default:
      if (TURN_ENDS.has(event)) settles = {}
      events.push(aliveOrIgnored(ACTIVITY_HOOKS, event, main))
  }
  // the first event of the hook carries what it says of a pending request
  if (settles && events.length > 0) events[0] = { ...events[0], settles }
  // every hook input says where the agent runs (`cwd`; `model` on SessionStart)
  const hints = originHintsOf(value, { cwd: 'cwd', model: 'model' })
  return { event, events: withOrigin(events, hints), replyTarget }
}
