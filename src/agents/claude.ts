/**
 * @module agents/claude
 * What Claude Code and the Claude Agent SDK share: one session id space (`claude:<session_id>`,
 * so a run's hooks and its stream feed one session), the Claude todo tools (TodoWrite, or the
 * Task family).
 */
import type { ObservedAgent } from '../ingest/agent.js'

/** The facts of the Claude family (until a todo tool fixes it, a session is `claude-tasks`). */
export const CLAUDE_FAMILY = {
  prefix: 'claude',
  family: 'claude',
  defaultDialect: 'claude-tasks',
} as const satisfies Partial<ObservedAgent>
