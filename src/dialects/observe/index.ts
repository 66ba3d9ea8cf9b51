/**
 * @module dialects/observe
 * The observers of every dialect an observed agent's todo tools map to, and which dialect a tool
 * of each agent family fixes: a session's dialect follows its first todo tool (docs/observe.md).
 */
import { claudeTasksObserver } from '../claude-tasks/observe.js'
import { claudeTodoWriteObserver } from '../claude-todowrite/observe.js'
import { codexPlanObserver } from '../codex-plan/observe.js'
import { copilotTodosObserver } from '../copilot-todos/observe.js'
import { geminiTodosObserver } from '../gemini-todos/observe.js'
import { geminiTrackerObserver } from '../gemini-tracker/observe.js'
import { opencodeTodosObserver } from '../opencode-todos/observe.js'
import { getDialect } from '../registry.js'
import { guardObserved } from './guard.js'
import { openhandsTrackerObserver } from '../openhands-tracker/observe.js'
import { qwenTodosObserver } from '../qwen-todos/observe.js'
import { acpPlanObserver } from '../opencode-todos/observe-acp.js'
import type { Observer } from './types.js'

export type { ObservedCall, ObservedResult, ObserveOutcome, Observer } from './types.js'
export { ObservePending, observeSettled } from './types.js'

/** The agent families whose tool names the service knows. */
export type AgentFamily =
  'claude' | 'codex' | 'gemini' | 'openhands' | 'qwen' | 'opencode' | 'copilot' | 'acp'

const OBSERVERS: readonly Observer[] = [
  claudeTodoWriteObserver,
  claudeTasksObserver,
  codexPlanObserver,
  geminiTodosObserver,
  openhandsTrackerObserver,
  qwenTodosObserver,
  opencodeTodosObserver,
  acpPlanObserver,
  copilotTodosObserver,
  geminiTrackerObserver,
]

/**
 * The observers of one dialect as one: several agents' tools may write the same list shape (an
 * ACP plan and opencode's own `todowrite`), each observed by its own observer of its own tools.
 */
function merged(dialect: string, observers: readonly Observer[]): Observer {
  if (observers.length === 1) return observers[0]
  return {
    dialect,
    tools: observers.flatMap((observer) => observer.tools),
    observe: (call, result, state) =>
      observers
        .find((observer) => observer.tools.includes(call.name))!
        .observe(call, result, state),
  }
}

// every list an observer makes is held to the list rules before it is stored (observe/guard)
const BY_DIALECT = new Map(
  [...new Set(OBSERVERS.map((observer) => observer.dialect))].map((name): [string, Observer] => {
    const dialect = getDialect(name)!
    const observer = merged(
      name,
      OBSERVERS.filter((one) => one.dialect === name)
    )
    return [
      name,
      {
        ...observer,
        observe: (call, result, state) =>
          guardObserved(dialect, observer.observe(call, result, state)),
      },
    ]
  })
)

const FAMILY_DIALECTS: Record<AgentFamily, readonly string[]> = {
  claude: ['claude-todowrite', 'claude-tasks'],
  codex: ['codex-plan'],
  gemini: ['gemini-todos', 'gemini-tracker'],
  openhands: ['openhands-tracker'],
  qwen: ['qwen-todos'],
  opencode: ['opencode-todos'],
  acp: ['opencode-todos'],
  copilot: ['copilot-todos'],
}

/**
 * The dialects a family's todo tools write (an agent's default dialect is one of them).
 * @param family - the agent family
 */
export const dialectsOf = (family: AgentFamily): readonly string[] => FAMILY_DIALECTS[family]

/**
 * The dialect a todo tool of that agent family fixes, or undefined for any other tool.
 * @param family - the agent family
 * @param toolName - the tool the agent ran
 */
export function todoDialectOf(family: AgentFamily, toolName: string): string | undefined {
  for (const dialect of FAMILY_DIALECTS[family]) {
    if (BY_DIALECT.get(dialect)!.tools.includes(toolName)) return dialect
  }
  return undefined
}

/**
 * The observer of a dialect, its lists held to the list rules (`guardObserved`).
 * @param dialect - a dialect name
 */
export function observerOf(dialect: string): Observer | undefined {
  return BY_DIALECT.get(dialect)
}
