/**
 * @module dialects/claude-tasks
 * Claude Code's task tools `TaskCreate`, `TaskGet`, `TaskUpdate` and `TaskList`, byte for byte
 * (their input and output types: `sdk-tools.d.ts` of `@anthropic-ai/claude-code` 2.1.332, a dev
 * dependency): per-item CRUD with server ids "1", "2", … never reused, partial updates,
 * bidirectional blocks/blockedBy. Follows Claude Code 2.1.332: the tools' long prompts
 * as descriptions, its input repairs and steering text (`claude-tasks/repairs`), TaskGet's open
 * blockers only, TaskCreate's `{task: {id, subject, description}}`.
 */
import { unparsedInputError } from '../claude-shared.js'
import {
  TASK_CREATE_PROMPT,
  TASK_GET_PROMPT,
  TASK_LIST_PROMPT,
  TASK_UPDATE_PROMPT,
  TASKS_SYSTEM_PROMPT,
} from './texts.js'
import type { Dialect } from '../types.js'
import { TaskCreateInput, TaskGetInput, TaskListInput, TaskUpdateInput } from './schema.js'
import { applyTask, checkList, renderTaskList, taskReminder } from './execute.js'
export { TaskCreateInput, TaskGetInput, TaskUpdateInput, TaskListInput } from './schema.js'
export { renderTaskList, taskReminder } from './execute.js'

/** The `claude-tasks` dialect. */
export const claudeTasks: Dialect = {
  name: 'claude-tasks',
  description:
    "Claude Code's task tools TaskCreate / TaskGet / TaskUpdate / TaskList: server ids, partial updates, bidirectional blocks/blockedBy, `deleted` removes; reminder after 10 rounds without TaskCreate/TaskUpdate.",
  tools: [
    { name: 'TaskCreate', description: TASK_CREATE_PROMPT, input: TaskCreateInput },
    { name: 'TaskGet', description: TASK_GET_PROMPT, input: TaskGetInput },
    { name: 'TaskUpdate', description: TASK_UPDATE_PROMPT, input: TaskUpdateInput },
    { name: 'TaskList', description: TASK_LIST_PROMPT, input: TaskListInput },
  ],
  systemPrompt: TASKS_SYSTEM_PROMPT,
  reminder: { afterRounds: 10, repeatEvery: 10 },
  resetsReminder: (toolName) => toolName === 'TaskCreate' || toolName === 'TaskUpdate',
  reminderText: taskReminder,
  apply: (state, toolName, input, ctx) => applyTask(state, toolName, input, ctx),
  argumentsError: unparsedInputError,
  render: renderTaskList,
  checkList,
}
