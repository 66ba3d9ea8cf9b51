/**
 * @module dialects/qwen-todos/texts
 * Qwen Code's own texts for todo_write: its description and its result and error strings.
 */
import type { QwenTodo } from './schema.js'

export const DESCRIPTION = `
Use this tool to create and manage a user-visible task list when explicit progress tracking improves clarity.

## When to Use This Tool
Use this tool for work that is complex, ambiguous, or multi-phase; has multiple independent outcomes or important dependencies; benefits from checkpoints; or when the user explicitly asks for a todo list.

Do not use it for simple or single-step work, purely conversational or informational requests, or tasks that can be answered or completed directly unless the user explicitly requests a todo list.

## Planning with Todos

Keep the list short and outcome-oriented. Use a small number of meaningful, logically ordered, verifiable steps. Do not create a separate todo for every error, file, command, or minor edit.

Use blockedBy only when the work has real dependencies. Reference Todo IDs from the same list and keep independent work unblocked.

Keep at most one task in_progress. When a plan exists, keep its statuses current, mark finished work completed, revise the plan when the scope or approach changes, and remove items that are no longer relevant. Do not mark incomplete or blocked work completed.
`

export const CYCLE_ERROR = 'Todo dependencies must not contain a cycle.'

/**
 * The tool result of a write that changed the list.
 * @param todos - the list as written
 */
export function modifiedText(todos: readonly QwenTodo[]): string {
  if (todos.length === 0) {
    return `Todo list has been cleared.

<system-reminder>
Your todo list is now empty. DO NOT mention this explicitly to the user. You have no pending tasks in your todo list.
</system-reminder>`
  }
  return `Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable

<system-reminder>
Your todo list has changed. DO NOT mention this explicitly to the user. Here are the latest contents of your todo list:

${JSON.stringify(todos)}. Continue on with the tasks at hand if applicable.
</system-reminder>`
}

/** The tool result of a write equal to the stored list. */
export const UNCHANGED_TEXT = `Todo list is already up to date. No changes were needed.

<system-reminder>
Your todo list was not modified because it is already current. Continue with your existing tasks.
</system-reminder>`

/** The text of a failure inside `execute` (after the arguments passed). */
export const failedText = (
  message: string
) => `Failed to modify todos. An error occurred during the operation.

<system-reminder>
Todo list modification failed with error: ${message}. You may need to retry or handle this error appropriately.
</system-reminder>`
