/**
 * @module dialects/gemini-tracker/schema
 * Gemini CLI's experimental task tracker tools (`experimental.taskTracker`, 0.61.0): their input
 * schemas (zod) as the native declares them (the `tool.parameterSchema` its `tool_call` spans
 * carry; `tracker_get_task`, `tracker_add_dependency` and `tracker_visualize` from
 * reference/dialects.md section 4).
 */
import { z } from 'zod'

/** The tracker's task statuses. */
export const TRACKER_STATUSES = ['open', 'in_progress', 'blocked', 'closed'] as const
export type TrackerStatus = (typeof TRACKER_STATUSES)[number]

/** The tracker's task types. */
export const TASK_TYPES = ['epic', 'task', 'bug'] as const

export const CreateTaskInput = z.object({
  title: z
    .string()
    .describe(
      'Detailed title of the task. Should be concise but provide enough detail to understand the objective.'
    ),
  description: z
    .string()
    .describe(
      'Detailed description of the task. Must contain more specific details and context than the title.'
    ),
  type: z.enum(TASK_TYPES).describe('Type of the task.'),
  parentId: z.string().optional().describe('Optional ID of the parent task.'),
  dependencies: z
    .array(z.string())
    .optional()
    .describe('Optional list of task IDs that this task depends on.'),
})

export const UpdateTaskInput = z.object({
  id: z.string().describe('The 6-character hex ID of the task to update.'),
  title: z.string().optional().describe('New title for the task.'),
  description: z.string().optional().describe('New detailed description for the task.'),
  status: z.enum(TRACKER_STATUSES).optional().describe('New status for the task.'),
  dependencies: z.array(z.string()).optional().describe('New list of dependency IDs.'),
})

export const GetTaskInput = z.object({
  id: z.string().describe('The 6-character hex ID of the task.'),
})

export const ListTasksInput = z.object({
  status: z.enum(TRACKER_STATUSES).optional().describe('Filter by status.'),
  type: z.enum(TASK_TYPES).optional().describe('Filter by type.'),
  parentId: z.string().optional().describe('Filter by parent task ID.'),
})

export const AddDependencyInput = z.object({
  taskId: z.string().describe('The ID of the task that depends on another.'),
  dependencyId: z.string().describe('The ID of the task it depends on.'),
})

export const VisualizeInput = z.object({})
