/**
 * @module dialects/claude-tasks/schema
 * The task tools' input schemas (zod), as Claude Code declares them.
 */
import { z } from 'zod'

const TASK_STATUSES = ['pending', 'in_progress', 'completed'] as const
export const TaskStatus = z.enum(TASK_STATUSES)
export type TaskStatus = z.infer<typeof TaskStatus>

const ACTIVE_FORM =
  'Present continuous form shown in spinner when in_progress (e.g., "Running tests")'

/** The advertised input schema of `TaskCreate`, as Claude Code declares it. */
export const TaskCreateInput = z.strictObject({
  subject: z.string().describe('A brief title for the task'),
  description: z.string().describe('What needs to be done'),
  activeForm: z.string().optional().describe(ACTIVE_FORM),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Arbitrary metadata to attach to the task'),
})

/** The advertised input schema of `TaskGet`. */
export const TaskGetInput = z.strictObject({
  taskId: z.string().describe('The ID of the task to retrieve'),
})

/** The advertised input schema of `TaskUpdate`; `deleted` is an action, not a state. */
export const TaskUpdateInput = z.strictObject({
  taskId: z.string().describe('The ID of the task to update'),
  subject: z.string().optional().describe('New subject for the task'),
  description: z.string().optional().describe('New description for the task'),
  activeForm: z.string().optional().describe(ACTIVE_FORM),
  status: TaskStatus.or(z.literal('deleted')).optional().describe('New status for the task'),
  addBlocks: z.array(z.string()).optional().describe('Task IDs that this task blocks'),
  addBlockedBy: z.array(z.string()).optional().describe('Task IDs that block this task'),
  owner: z.string().optional().describe('New owner for the task'),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Metadata keys to merge into the task. Set a key to null to delete it.'),
})

/** The advertised input schema of `TaskList`: no input. */
export const TaskListInput = z.strictObject({})

export type TaskCreate = z.infer<typeof TaskCreateInput>
export type TaskUpdate = z.infer<typeof TaskUpdateInput>

export const TaskRecord = z.object({ id: z.string(), subject: z.string(), status: TaskStatus })
