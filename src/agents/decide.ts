/**
 * @module agents/decide
 * Decision points (docs/decisions.md): the hooks an agent lets answer a
 * person's prompt from outside, when its wiring asks for it (`?decide=1`). Each agent says what
 * request a hook input opens and how an answer is written in the agent's own hook output;
 * no answer is always the reply that decides nothing, so the agent asks at its own prompt.
 */
import { z } from '@hono/zod-openapi'
import {
  cutInput,
  PERMISSION_OPTIONS,
  questionOptions,
  type RequestDraft,
} from '../core/decisions.js'
import type { DecisionRecord } from '../core/session.js'
import { isRecord } from '../dialects/json.js'
import { elicitationMatch, requestMatch } from '../ingest/claude-code.js'
import { nonEmpty } from '../ingest/parse-kit.js'

/** A request as a hook input opens it (the route adds its channel and hold). */
export type HookDraft = Omit<RequestDraft, 'channel' | 'holdMs'>

const PermissionDecision = z
  .object({
    behavior: z.enum(['allow', 'deny']),
    message: z.string().optional(),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('HookPermissionDecision')

/** A PermissionRequest hook's output (Claude Code, Qwen Code, Codex). */
const PermissionOutput = z
  .object({
    hookSpecificOutput: z.object({
      hookEventName: z.literal('PermissionRequest'),
      decision: PermissionDecision,
    }),
  })
  .openapi('PermissionRequestHookOutput', {
    description: "With ?decide=1: a person's answer, as the agent's PermissionRequest hook output",
  })

/** An Elicitation hook's output (Claude Code). */
const ElicitationOutput = z
  .object({
    hookSpecificOutput: z.object({
      hookEventName: z.literal('Elicitation'),
      action: z.enum(['accept', 'decline']),
      content: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi('ElicitationHookOutput', {
    description: "With ?decide=1: a person's answer to an MCP elicitation",
  })

/** Copilot CLI's flat permissionRequest output. */
const CopilotOutput = z
  .object({ behavior: z.enum(['allow', 'deny']), message: z.string().optional() })
  .openapi('CopilotPermissionOutput', {
    description: "With ?decide=1: a person's answer, as Copilot CLI's permissionRequest output",
  })

/** No answer: the hook decides nothing, and the agent asks at its own prompt. */
const NoDecision = z
  .object({})
  .strict()
  .openapi('NoDecision', { description: 'With ?decide=1 and no answer: decides nothing' })

/** An agent's decision point. */
export interface DecisionPoint {
  /** What its held hook replies (the 200's schema besides the agent's own reply). */
  schema: z.ZodType
  /**
   * `wait`: the agent shows its own prompt while the hook is held (Claude Code), so the hold is
   * long (`DECISION_WAIT_SECONDS`); `short`: it shows none until the hook returns
   * (`DECISION_HOLD_SECONDS`).
   */
  hold: 'wait' | 'short'
  /** The request a hook input opens, or null (a hook that asks nothing). */
  draft(value: unknown): HookDraft | null
  /** The hook's reply for the request's record (null or unanswered: decide nothing). */
  reply(record: DecisionRecord | null): Record<string, unknown>
}

const DENIED = 'Denied from agent-todos'

/** A deny's message to the model: the person's reason, or who denied it. */
const denyMessage = (record: DecisionRecord) =>
  record.answer?.message ?? (record.answer?.by ? `${DENIED} by ${record.answer.by}` : DENIED)

/** A permission request of a snake_case hook (Claude Code, Qwen Code, Codex). */
function permissionDraft(value: Record<string, unknown>): HookDraft {
  const tool = nonEmpty(value.tool_name) ?? null
  const input = value.tool_input ?? null
  if (tool === 'AskUserQuestion' && isRecord(input) && Array.isArray(input.questions)) {
    return {
      kind: 'question',
      tool,
      input: cutInput(input),
      questions: input.questions,
      options: questionOptions(input.questions),
      match: requestMatch(tool ?? undefined, input),
    }
  }
  return {
    kind: 'permission',
    tool,
    input: cutInput(input),
    options: [...PERMISSION_OPTIONS],
    match: requestMatch(tool ?? undefined, input),
  }
}

/** A snake_case hook input's event, when it is one. */
const eventOf = (value: unknown) => (isRecord(value) ? nonEmpty(value.hook_event_name) : undefined)

/** `hookSpecificOutput.decision` of a PermissionRequest (Claude Code, Qwen Code, Codex). */
function permissionOutput(record: DecisionRecord, questions: boolean) {
  const answer = record.answer!
  if (answer.outcome === 'denied') {
    return { behavior: 'deny', message: denyMessage(record) }
  }
  if (answer.outcome === 'allowed') return { behavior: 'allow' }
  if (answer.outcome === 'answered' && questions && Array.isArray(record.request.questions)) {
    return {
      behavior: 'allow',
      updatedInput: { questions: record.request.questions, answers: answer.answers ?? {} },
    }
  }
  return null
}

/** Whether a record holds a person's answer (not the terminal's, not the clock's). */
const answered = (record: DecisionRecord | null): record is DecisionRecord =>
  record?.answer !== undefined &&
  record.answer !== null &&
  ['allowed', 'denied', 'answered'].includes(record.answer.outcome)

/** Claude Code: `PermissionRequest` (AskUserQuestion too) and `Elicitation` HTTP hooks. */
export const claudeDecisions: DecisionPoint = {
  schema: z.union([PermissionOutput, ElicitationOutput, NoDecision]),
  hold: 'wait',
  draft(value) {
    const event = eventOf(value)
    if (!isRecord(value)) return null
    if (event === 'PermissionRequest') return permissionDraft(value)
    if (event === 'Elicitation') {
      const server = nonEmpty(value.mcp_server_name)
      return {
        kind: 'elicitation',
        tool: server ?? null,
        input: cutInput({ message: value.message ?? null, mode: value.mode ?? null }),
        questions: value.requested_schema ?? null,
        options: [
          { id: 'accept', label: 'Accept', kind: 'answer' },
          { id: 'decline', label: 'Decline', kind: 'deny' },
        ],
        match: elicitationMatch(server),
      }
    }
    return null
  },
  reply(record) {
    if (!answered(record)) return {}
    if (record.request.kind === 'elicitation') {
      const accept = record.answer!.outcome !== 'denied'
      return {
        hookSpecificOutput: {
          hookEventName: 'Elicitation',
          action: accept ? 'accept' : 'decline',
          ...(accept ? { content: record.answer!.answers ?? {} } : {}),
        },
      }
    }
    const decision = permissionOutput(record, true)
    return decision ? { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } } : {}
  },
}

/**
 * Qwen Code: its HTTP `PermissionRequest` hook, Claude's shape. An allow of a tool that needs
 * the person's own input (`ask_user_question`) is ignored by Qwen, so questions are not offered.
 */
export const qwenDecisions: DecisionPoint = {
  schema: z.union([PermissionOutput, NoDecision]),
  hold: 'short',
  draft: (value) =>
    isRecord(value) && eventOf(value) === 'PermissionRequest' ? permissionDraft(value) : null,
  reply(record) {
    if (!answered(record)) return {}
    const decision = permissionOutput(record, false)
    return decision ? { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } } : {}
  },
}

/**
 * Codex: its `PermissionRequest` command hook through `forward-hook.sh --decide`. Only allow and
 * deny with a message: `updatedInput`, `interrupt` or `updatedPermissions` make Codex fail closed.
 */
export const codexDecisions: DecisionPoint = {
  schema: z.union([PermissionOutput, NoDecision]),
  hold: 'short',
  draft: (value) => {
    if (!isRecord(value) || eventOf(value) !== 'PermissionRequest') return null
    const draft = permissionDraft(value)
    return draft.kind === 'permission' ? draft : null
  },
  reply(record) {
    if (!answered(record)) return {}
    const decision = permissionOutput(record, false)
    return decision ? { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } } : {}
  },
}

/** Copilot CLI: its `permissionRequest` hook (camelCase or PascalCase); a flat reply. */
export const copilotDecisions: DecisionPoint = {
  schema: z.union([CopilotOutput, NoDecision]),
  hold: 'short',
  draft(value) {
    if (!isRecord(value)) return null
    const event = nonEmpty(value.hookName) ?? nonEmpty(value.hook_event_name)
    if (event !== 'permissionRequest' && event !== 'PermissionRequest') return null
    const tool = nonEmpty(value.toolName) ?? nonEmpty(value.tool_name) ?? null
    const input = value.toolInput ?? value.toolArgs ?? value.tool_input ?? null
    return {
      kind: 'permission',
      tool,
      input: cutInput(input),
      options: [...PERMISSION_OPTIONS],
      match: requestMatch(tool ?? undefined, input),
    }
  },
  reply(record) {
    if (!answered(record)) return {}
    if (record.answer!.outcome === 'denied') {
      return { behavior: 'deny', message: denyMessage(record) }
    }
    return record.answer!.outcome === 'allowed' ? { behavior: 'allow' } : {}
  },
}
