/**
 * @module dialects/gemini-todos/observe
 * Gemini CLI's `write_todos`, observed (hook inputs: `google-gemini/gemini-cli`
 * `packages/core/src/hooks/types.ts`, as in 0.61.0): the list is the hook's
 * `tool_response.returnDisplay.todos`, else the call's `todos` (stream-json results carry no
 * output). Gemini's five statuses map one to one.
 */
import { isRecord } from '../json.js'
import { rewriteList, type NewItem } from '../list-rewrite.js'
import { canonicalStatus, notApplied, type Observer } from '../observe/types.js'

function todoItems(value: unknown): NewItem[] | undefined {
  if (!Array.isArray(value)) return undefined
  const items: NewItem[] = []
  for (const todo of value as unknown[]) {
    if (!isRecord(todo) || typeof todo.description !== 'string') return undefined
    items.push({ content: todo.description, status: canonicalStatus(todo.status) ?? 'pending' })
  }
  return items
}

/** The `gemini-todos` observer. */
export const geminiTodosObserver: Observer = {
  dialect: 'gemini-todos',
  tools: ['write_todos'],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    const display =
      isRecord(result.structured) && isRecord(result.structured.returnDisplay)
        ? result.structured.returnDisplay
        : undefined
    const todos =
      todoItems(display?.todos) ?? (isRecord(call.input) ? todoItems(call.input.todos) : undefined)
    if (!todos) return notApplied('no list in the call or its result')
    return { applied: true, state: rewriteList(state, todos).state }
  },
}
