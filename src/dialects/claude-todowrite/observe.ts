/**
 * @module dialects/claude-todowrite/observe
 * Claude Code's `TodoWrite`, observed (`TodoWriteOutput` in `sdk-tools.d.ts` of
 * `@anthropic-ai/claude-code` 2.1.332): the list is the result's
 * `newTodos` (what the tool stored, after any hook rewrote the input), else the input's `todos`
 * (subagent lines carry no structured result). Unlike the dialect, an all-completed write is kept:
 * Claude clears its own store but returned the list, and the session shows done with it; the next
 * write (whose `oldTodos` is then empty) starts a new plan with fresh ids.
 */
import { isRecord } from '../json.js'
import { parseStringified } from '../claude-shared.js'
import { todoWriteCleared } from './execute.js'
import { rewriteList, type NewItem } from '../list-rewrite.js'
import { canonicalStatus, notApplied, type Observer } from '../observe/types.js'

/**
 * A TodoWrite list, leniently: items with a string `content`, a known status (else pending) and
 * `activeForm` (or `active_form`); the CLI 1.0 shape `{content, status, priority, id}` too.
 * @param value - `newTodos` or the input's `todos`
 */
export function todoWriteItems(value: unknown): NewItem[] | undefined {
  const list = parseStringified(value)
  if (!Array.isArray(list)) return undefined
  const items: NewItem[] = []
  for (const entry of list as unknown[]) {
    if (!isRecord(entry) || typeof entry.content !== 'string') return undefined
    // `activeForm`, else its alias `active_form`, as repairKeys reads them, but without copying
    // every entry of every list (this runs on each hook of a busy agent)
    const activeForm = 'activeForm' in entry ? entry.activeForm : entry.active_form
    const item: NewItem = {
      content: entry.content,
      status: canonicalStatus(entry.status) ?? 'pending',
    }
    if (typeof activeForm === 'string') item.active_form = activeForm
    items.push(item)
  }
  return items
}

/** The `claude-todowrite` observer. */
export const claudeTodoWriteObserver: Observer = {
  dialect: 'claude-todowrite',
  tools: ['TodoWrite'],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    const structured = isRecord(result.structured) ? result.structured : undefined
    const todos =
      todoWriteItems(structured?.newTodos) ??
      (isRecord(call.input) ? todoWriteItems(call.input.todos) : undefined)
    if (!todos) return notApplied('no list in the call or its result')
    const oldTodos = structured?.oldTodos
    // a new plan after a cleared list: only an item written again word for word keeps its id
    const fresh =
      todoWriteCleared(state.items) && (!Array.isArray(oldTodos) || oldTodos.length === 0)
    return { applied: true, state: rewriteList(state, todos, { byPosition: !fresh }).state }
  },
}
