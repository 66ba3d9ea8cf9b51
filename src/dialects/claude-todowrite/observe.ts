/**
 * @module dialects/claude-todowrite/observe
 * Claude Code's `TodoWrite`, observed (`TodoWriteOutput` in `sdk-tools.d.ts` of
 * `@anthropic-ai/claude-code` 2.1.332): the list is the result's
 * `newTodos` (what the tool stored, after any hook rewrote the input), else the input's `todos`
 * (subagent lines carry no structured result). Unlike the dialect, an all-completed write is kept:
 * Claude clears its own store but returned the list, and the session shows done with it; the next
 * write (whose `oldTodos` is then empty) starts a new plan with fresh ids.
 */
import { parseStringified } from '../claude-shared.js'
import { todoWriteCleared } from './execute.js'
import { rewriteList, type NewItem } from '../list-rewrite.js'
import { canonicalStatus } from '../observe/types.js'
import { entriesWith, wholeListObserver } from '../observe/whole-list.js'

/**
 * A TodoWrite list, leniently: items with a string `content`, a known status (else pending) and
 * `activeForm` (or `active_form`); the CLI 1.0 shape `{content, status, priority, id}` too.
 * @param value - `newTodos` or the input's `todos`
 */
export function todoWriteItems(value: unknown): NewItem[] | undefined {
  return entriesWith(parseStringified(value), 'content', (entry, content) => {
    // `activeForm`, else its alias `active_form`, as repairKeys reads them, but without copying
    // every entry of every list (this runs on each hook of a busy agent)
    const activeForm = 'activeForm' in entry ? entry.activeForm : entry.active_form
    const item: NewItem = { content, status: canonicalStatus(entry.status) ?? 'pending' }
    if (typeof activeForm === 'string') item.active_form = activeForm
    return item
  })
}

/** The `claude-todowrite` observer. */
export const claudeTodoWriteObserver = wholeListObserver({
  dialect: 'claude-todowrite',
  tool: 'TodoWrite',
  listOf: (structured, input) =>
    todoWriteItems(structured?.newTodos) ?? todoWriteItems(input?.todos),
  write(state, todos, structured) {
    const oldTodos = structured?.oldTodos
    // a new plan after a cleared list: only an item written again word for word keeps its id
    const fresh =
      todoWriteCleared(state.items) && (!Array.isArray(oldTodos) || oldTodos.length === 0)
    return { applied: true, state: rewriteList(state, todos, { byPosition: !fresh }).state }
  },
})
