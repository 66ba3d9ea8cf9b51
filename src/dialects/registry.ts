/**
 * @module dialects/registry
 * Every dialect the service speaks, by name.
 */
import { claudeTasks } from './claude-tasks/index.js'
import { claudeTodoWrite } from './claude-todowrite/index.js'
import { codexPlan } from './codex-plan/index.js'
import { copilotTodos } from './copilot-todos/index.js'
import { geminiTodos } from './gemini-todos/index.js'
import { geminiTracker } from './gemini-tracker/index.js'
import { langchainTodos } from './langchain-todos/index.js'
import { opencodeTodos } from './opencode-todos/index.js'
import { openhandsTracker } from './openhands-tracker/index.js'
import { qwenTodos } from './qwen-todos/index.js'
import { s03 } from './s03/index.js'
import type { Dialect } from './types.js'

/** The dialect a new session gets when its first request names none. */
export const DEFAULT_DIALECT = 's03'

const ALL: readonly Dialect[] = [
  s03,
  claudeTodoWrite,
  claudeTasks,
  codexPlan,
  geminiTodos,
  langchainTodos,
  openhandsTracker,
  qwenTodos,
  opencodeTodos,
  copilotTodos,
  geminiTracker,
]

export const DIALECTS: ReadonlyMap<string, Dialect> = new Map(ALL.map((d) => [d.name, d]))

/** The names of every dialect, in listing order. */
export const DIALECT_NAMES = ALL.map((d) => d.name) as [string, ...string[]]

/**
 * The dialect of that name, or undefined.
 * @param name - a dialect name
 */
export function getDialect(name: string): Dialect | undefined {
  return DIALECTS.get(name)
}
