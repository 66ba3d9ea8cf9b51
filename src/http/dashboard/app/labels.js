// @ts-check
/**
 * @module dashboard/labels
 * The words the page shows for the service's values.
 */

/** Every item status, in the order the editor offers them. */
export const STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'blocked']

/** @type {Record<string, string>} */
export const STATUS_LABEL = {
  pending: 'Pending',
  in_progress: 'In progress',
  completed: 'Completed',
  cancelled: 'Cancelled',
  blocked: 'Blocked',
}

/** @type {Record<string, string>} */
export const STATUS_MARK = {
  pending: '○',
  in_progress: '▶',
  completed: '✓',
  cancelled: '✕',
  blocked: '!',
}

// the observed agents, by a session's `source`; sessions fed by rounds have no badge
/** @type {Record<string, string>} */
export const AGENT_LABEL = {
  'claude-code': 'Claude Code',
  'claude-agent-sdk': 'Claude Agent SDK',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  openhands: 'OpenHands',
  'qwen-code': 'Qwen Code',
  opencode: 'opencode',
  kilo: 'Kilo CLI',
  acp: 'ACP agent',
  copilot: 'Copilot CLI',
}

/** Claude Code's switch for its todo tools, off by default on current models. */
export const CLAUDE_TODO_TOOLS_ENV = 'CLAUDE_CODE_ENABLE_TODO_TOOLS'

/** @type {Record<string, string>} */
export const OUTCOME_LABEL = {
  completed: 'Ended · completed',
  max_turns: 'Ended at max turns',
  error: 'Ended with error',
  cancelled: 'Ended · cancelled',
}

/**
 * What wrote a history entry.
 * @type {Record<string, string>}
 */
export const SOURCE_LABEL = {
  round: 'Round',
  put: 'Operator edit',
  end: 'Ended',
  delete: 'Deleted',
}
