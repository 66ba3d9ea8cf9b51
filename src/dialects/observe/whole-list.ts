/**
 * @module dialects/observe/whole-list
 * What the observers of whole-list tools share (Claude's TodoWrite, Gemini's `write_todos`,
 * opencode's `todowrite`, OpenHands' `task_tracker`): each call writes the entire list, which the
 * tool's result holds, else the call's own input does; a failed call changes nothing.
 */
import { isRecord } from '../json.js'
import { rewriteList, type NewItem } from '../list-rewrite.js'
import type { DialectState } from '../types.js'
import { notApplied, type ObserveOutcome, type Observer } from './types.js'

/**
 * The entries of a JSON list, each as `map` makes it, when every entry is an object whose `key`
 * is a string; undefined when the value is no list or an entry is not such an object.
 * @param value - the list as the agent sent it
 * @param key - the entry's text field (`content`, `description`, `title`, `step`)
 * @param map - the entry in the observer's terms, given the entry and its text
 */
export function entriesWith<T>(
  value: unknown,
  key: string,
  map: (entry: Record<string, unknown>, text: string) => T
): T[] | undefined {
  if (!Array.isArray(value)) return undefined
  const entries: T[] = []
  for (const entry of value as unknown[]) {
    if (!isRecord(entry)) return undefined
    const text = entry[key]
    if (typeof text !== 'string') return undefined
    entries.push(map(entry, text))
  }
  return entries
}

/**
 * The list written over the session's: stable ids by id, content, then position (`rewriteList`).
 * @param state - the session's state
 * @param items - the observed list
 */
export const rewritten = (state: DialectState, items: readonly NewItem[]): ObserveOutcome => ({
  applied: true,
  state: rewriteList(state, items).state,
})

/** One whole-list tool's observer, as `wholeListObserver` assembles it. */
export interface WholeListSpec<T> {
  dialect: string
  tool: string
  /**
   * The list the call wrote: the result's, else the call's; undefined when neither holds one.
   * @param structured - the result's structured output, when it is an object
   * @param input - the call's input, when it is an object
   */
  listOf(
    structured: Record<string, unknown> | undefined,
    input: Record<string, unknown> | undefined
  ): T | undefined
  /** Why nothing was applied when `listOf` found no list (default: none in the call or result). */
  noList?: string
  /** The list applied to the session's state (most: `rewritten`). */
  write(
    state: DialectState,
    list: T,
    structured: Record<string, unknown> | undefined
  ): ObserveOutcome
}

/**
 * The observer of a whole-list tool: a failed call, or one whose result and input hold no list,
 * is not applied; else the list is written.
 * @param spec - the tool, where its list is and how it is written
 */
export function wholeListObserver<T>(spec: WholeListSpec<T>): Observer {
  const noList = spec.noList ?? 'no list in the call or its result'
  return {
    dialect: spec.dialect,
    tools: [spec.tool],
    observe(call, result, state) {
      if (result.is_error) return notApplied('the call failed')
      const structured = isRecord(result.structured) ? result.structured : undefined
      const list = spec.listOf(structured, isRecord(call.input) ? call.input : undefined)
      if (list === undefined) return notApplied(noList)
      return spec.write(state, list, structured)
    },
  }
}
