/**
 * @module ingest/openhands
 * OpenHands agent-server webhooks (`OpenHands/software-agent-sdk`
 * `openhands-agent-server/openhands/agent_server/config.py` and `conversation_service.py`):
 * `POST {base_url}/events/{hex}` with a JSON array of events (batched, retried: duplicates are
 * expected), and `POST {base_url}/conversations` with the conversation's info. A `task_tracker`
 * observation carries the list after the call; `execution_status` and `ConversationErrorEvent`
 * end the run.
 */
import type { OriginHints } from '../core/origin.js'
import type { EndedOutcome } from '../core/session.js'
import { isRecord } from '../dialects/json.js'
import { IngestFormatError, type ObservedEvent, type Target } from './events.js'
import { nonEmpty, originHintsOf } from './parse-kit.js'

const TODO_TOOL = 'task_tracker'

/**
 * What an `execution_status` means (`is_terminal()` = finished, error, stuck).
 * @param status - the status
 * @param target - the session
 */
function statusEvent(status: unknown, target: Target): ObservedEvent {
  const end = (outcome: EndedOutcome, detail: string | null): ObservedEvent => ({
    kind: 'session_end',
    target,
    outcome,
    detail,
    specific: true,
  })
  switch (status) {
    case 'finished':
      return end('completed', null)
    case 'error':
      return end('error', 'error')
    case 'stuck':
      return end('error', 'stuck')
    case 'running':
      return { kind: 'session_start', target, run: true }
    case 'waiting_for_confirmation':
      return { kind: 'waiting', target, reason: 'waiting_for_confirmation', message: null }
    default:
      return { kind: 'activity', target, what: `execution_status:${nonEmpty(status) ?? ''}` }
  }
}

/**
 * What a conversation's full state says of where it runs: the workspace's directory and the
 * agent's model (OpenHands SDK `ConversationState`: `workspace.working_dir`, `agent.llm.model`).
 * @param state - the full state
 */
function stateOrigin(state: Record<string, unknown>): OriginHints | undefined {
  const workspace = isRecord(state.workspace) ? state.workspace : {}
  const llm = isRecord(state.agent) && isRecord(state.agent.llm) ? state.agent.llm : {}
  const hints: OriginHints = {
    ...originHintsOf(workspace, { cwd: 'working_dir' }),
    ...originHintsOf(llm, { model: 'model' }),
  }
  return Object.keys(hints).length ? hints : undefined
}

/**
 * Parses one OpenHands event (`kind` = its class name).
 * @param event - the event
 * @param index - its position, for the problem's pointer
 * @param target - the conversation's session
 */
function parseEvent(event: unknown, index: number, target: Target): ObservedEvent {
  const parsed = parseOne(event, index, target)
  const id = isRecord(event) ? nonEmpty(event.id) : undefined
  // batches are retried: a lifecycle event applies once, by its id
  if (
    id !== undefined &&
    (parsed.kind === 'session_start' || parsed.kind === 'session_end' || parsed.kind === 'waiting')
  ) {
    return { ...parsed, id: `event:${id}` }
  }
  return parsed
}

function parseOne(event: unknown, index: number, target: Target): ObservedEvent {
  if (!isRecord(event) || typeof event.kind !== 'string') {
    throw new IngestFormatError(
      `Event ${index} is not an OpenHands event (an object with a kind).`,
      `/${index}`
    )
  }
  switch (event.kind) {
    case 'ActionEvent': {
      const id = nonEmpty(event.tool_call_id)
      if (event.tool_name !== TODO_TOOL || !id) {
        return { kind: 'activity', target, what: `ActionEvent:${nonEmpty(event.tool_name) ?? ''}` }
      }
      // the observation carries the list: nothing to keep waiting
      return {
        kind: 'tool_call',
        target,
        call_id: id,
        name: TODO_TOOL,
        input: event.action,
        stage: false,
      }
    }
    case 'ObservationEvent': {
      const id = nonEmpty(event.tool_call_id) ?? nonEmpty(event.action_id)
      if (event.tool_name !== TODO_TOOL || !id) {
        return {
          kind: 'activity',
          target,
          what: `ObservationEvent:${nonEmpty(event.tool_name) ?? ''}`,
        }
      }
      const observation = isRecord(event.observation) ? event.observation : undefined
      return {
        kind: 'tool_result',
        target,
        call_id: id,
        name: TODO_TOOL,
        is_error: observation?.is_error === true,
        structured: observation,
      }
    }
    case 'AgentErrorEvent': {
      const id = nonEmpty(event.tool_call_id)
      if (event.tool_name !== TODO_TOOL || !id)
        return { kind: 'activity', target, what: event.kind }
      return {
        kind: 'tool_result',
        target,
        call_id: id,
        name: TODO_TOOL,
        is_error: true,
        text: nonEmpty(event.error),
      }
    }
    case 'ConversationStateUpdateEvent': {
      if (event.key === 'execution_status') return statusEvent(event.value, target)
      if (event.key === 'full_state' && isRecord(event.value)) {
        return {
          ...statusEvent(event.value.execution_status, target),
          origin: stateOrigin(event.value),
        }
      }
      return { kind: 'activity', target, what: `state:${nonEmpty(event.key) ?? ''}` }
    }
    case 'ConversationErrorEvent': {
      const code = nonEmpty(event.code)
      const detail = nonEmpty(event.detail) ?? code ?? 'error'
      return {
        kind: 'session_end',
        target,
        outcome: code === 'MaxIterationsReached' ? 'max_turns' : 'error',
        detail,
        specific: true,
      }
    }
    default:
      return { kind: 'activity', target, what: event.kind }
  }
}

/**
 * Parses a webhook batch of one conversation's events.
 * @param values - the events
 * @param conversationId - the conversation (from the URL)
 */
export function parseOpenHandsEvents(
  values: readonly unknown[],
  conversationId: string
): ObservedEvent[] {
  const target: Target = { session: conversationId }
  return values.map((event, index) => parseEvent(event, index, target))
}

/**
 * Parses a conversation-info webhook (`{id, execution_status, …}`): its status.
 * @param value - the info
 */
export function parseOpenHandsConversation(value: unknown): ObservedEvent[] {
  if (!isRecord(value) || typeof value.id !== 'string' || value.id === '') {
    throw new IngestFormatError('An OpenHands conversation info is an object with an id.', '/id')
  }
  // the events URL names the conversation by its hex form: a UUID without dashes
  const target: Target = { session: value.id.replaceAll('-', '') }
  if (value.execution_status === undefined)
    return [{ kind: 'activity', target, what: 'conversation' }]
  return [statusEvent(value.execution_status, target)]
}
