/**
 * @module dialects/gemini-todos/observe
 * Gemini CLI's `write_todos`, observed (hook inputs: `google-gemini/gemini-cli`
 * `packages/core/src/hooks/types.ts`, as in 0.61.0): the list is the hook's
 * `tool_response.returnDisplay.todos`, else the call's `todos` (stream-json results carry no
 * output). Gemini's five statuses map one to one.
 */
import { isRecord } from '../json.js'
import type { NewItem } from '../list-rewrite.js'
import { canonicalStatus } from '../observe/types.js'
import { entriesWith, rewritten, wholeListObserver } from '../observe/whole-list.js'

function todoItems(value: unknown): NewItem[] | undefined {
  return entriesWith(value, 'description', (todo, description) => ({
    content: description,
    status: canonicalStatus(todo.status) ?? 'pending',
  }))
}

/** The `gemini-todos` observer. */
export const geminiTodosObserver = wholeListObserver({
  dialect: 'gemini-todos',
  tool: 'write_todos',
  listOf: (structured, input) => {
    const display = isRecord(structured?.returnDisplay) ? structured.returnDisplay : undefined
    return todoItems(display?.todos) ?? todoItems(input?.todos)
  },
  write: rewritten,
})
