/**
 * @module dialects/types
 * The seam every agent dialect plugs into: its tools, how a call changes the list, its texts.
 */
import type { z } from 'zod'
import type { Item } from '../core/items.js'
import type { ReminderPolicy } from '../core/reminder.js'

/** One tool as the model sees it; `input` is the advertised input schema. */
export interface ToolSpec {
  name: string
  description: string
  input: z.ZodType
}

/** The part of a session a dialect reads and writes. */
export interface DialectState {
  items: Item[]
  data: Record<string, unknown>
}

/** What the round knows when it hands a call to the dialect. */
export interface CallContext {
  /** How many calls of this dialect's tools the round holds. */
  callsInRound: number
  /** This call's position among them (0-based). */
  indexInRound: number
  /** The arguments exactly as sent, when they came as JSON text (OpenAI `arguments`). */
  rawArguments?: string
  /** The list's cap (`MAX_ITEMS`): no call need name more task ids than a list can hold. */
  maxItems?: number
}

/** The tool result the loop hands back to the model. */
export interface CallResult {
  is_error: boolean
  content: string
  structured: unknown
}

export interface CallOutcome {
  result: CallResult
  state: DialectState
  /** Unfinished items a whole-list write removed. */
  dropped: Item[]
}

/** The result of checking an operator's canonical list against the dialect's rules. */
export type ListCheck = { ok: true; items: Item[] } | { ok: false; message: string }

export interface Dialect {
  name: string
  description: string
  tools: ToolSpec[]
  /**
   * The guidance the native agent puts in its system prompt beside the tool, byte for byte;
   * absent where the native has none (or none verified).
   */
  systemPrompt?: string
  /**
   * The dialect's other flavours by name (`settings.flavour`): the same tool as another package
   * of the native ships it, with that package's texts. The dialect itself is the default flavour.
   */
  flavours?: Readonly<Record<string, Dialect>>
  reminder: ReminderPolicy
  /**
   * Whether a call of this tool resets the reminder counter (default: every tool of the dialect).
   * Claude's task tools count only writes.
   */
  resetsReminder?(toolName: string): boolean
  /** The reminder text, given the current list. */
  reminderText(items: readonly Item[]): string
  /**
   * Applies one call of one of this dialect's tools. Never throws for bad input: an invalid call
   * returns an `is_error` result and the state unchanged.
   */
  apply(state: DialectState, toolName: string, input: unknown, ctx: CallContext): CallOutcome
  /** The result text for a call whose `arguments` string was not JSON. */
  argumentsError(toolName: string, raw: string): string
  /** The list as the dialect shows it (s03: the render text). */
  render(items: readonly Item[]): string
  /** Validates and normalises an operator's list (PUT) by the dialect's rules. */
  checkList(items: readonly Item[]): ListCheck
}
