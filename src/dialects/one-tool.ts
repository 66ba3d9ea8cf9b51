/**
 * @module dialects/one-tool
 * The dialects of one whole-list tool whose native has no reminder of its own (codex-plan,
 * gemini-todos, langchain-todos, opencode-todos, openhands-tracker, qwen-todos): each gets the
 * service's reminder, s03's counter, worded after its tool.
 */
import type { ReminderPolicy } from '../core/reminder.js'
import type { CallContext, CallOutcome, Dialect, DialectState, ToolSpec } from './types.js'

/**
 * The service's own reminder policy, s03's counter (s03 uses it too): due after 3 rounds without
 * the tool, then every round.
 */
export const SERVICE_REMINDER: ReminderPolicy = { afterRounds: 3, repeatEvery: 1 }

/** A one-tool dialect as its module defines it: everything but the tool list and the reminder. */
export interface OneToolSpec extends Omit<
  Dialect,
  'tools' | 'reminder' | 'reminderText' | 'apply'
> {
  /** The dialect's only tool. */
  tool: ToolSpec
  /** What the reminder asks the model to update with the tool (default `todo list`). */
  reminds?: string
  /** The dialect's `apply` without the tool name, which one tool does not need. */
  write: (state: DialectState, input: unknown, ctx: CallContext) => CallOutcome
}

/**
 * A dialect of one tool with the service's reminder: `<reminder>Update your {reminds} with
 * {tool}.</reminder>` after 3 rounds without the tool, every round.
 * @param spec - the dialect's name, texts and behaviour, its tool and what its reminder names
 */
export function oneToolDialect({
  tool,
  reminds = 'todo list',
  write,
  ...dialect
}: OneToolSpec): Dialect {
  // built once: the reminder never depends on the list
  const text = `<reminder>Update your ${reminds} with ${tool.name}.</reminder>`
  return {
    ...dialect,
    tools: [tool],
    reminder: SERVICE_REMINDER,
    reminderText: () => text,
    apply: (state, _toolName, input, ctx) => write(state, input, ctx),
  }
}
