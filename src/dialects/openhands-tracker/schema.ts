/**
 * @module dialects/openhands-tracker/schema
 * The task_tracker tool's input schema (zod) and its statuses beside the canonical ones.
 */
import { z } from 'zod'
import type { Status } from '../../core/items.js'

export const TRACKER_STATUSES = ['todo', 'in_progress', 'done'] as const
export const COMMANDS = ['view', 'plan'] as const

export type TrackerStatus = (typeof TRACKER_STATUSES)[number]

/** One task as the SDK's `TaskItem` holds it. */
export interface TaskItem {
  title: string
  notes: string
  status: TrackerStatus
}

/** The tracker's statuses in canonical terms. */
export const TO_CANONICAL: Record<TrackerStatus, Status> = {
  todo: 'pending',
  in_progress: 'in_progress',
  done: 'completed',
}

export const FROM_CANONICAL: Partial<Record<Status, TrackerStatus>> = {
  pending: 'todo',
  in_progress: 'in_progress',
  completed: 'done',
}

/**
 * The advertised input schema of `task_tracker`, as the SDK's `to_openai_tool()` renders
 * `TaskTrackerAction` with the `summary` it adds to every tool (first, by
 * `_prioritize_schema_fields`; defaults dropped, no `additionalProperties`, the docstring as
 * description). `security_risk` is added only when the agent predicts risks, and is left out.
 */
export const TaskTrackerInput = z
  .object({
    summary: z
      .string()
      .describe(
        "A concise summary (approximately 10 words) describing what this specific action does. Focus on the key operation and target. Example: 'List all Python files in current directory'"
      )
      .optional(),
    command: z
      .enum(COMMANDS)
      .describe(
        'The command to execute. `view` shows the current task list. `plan` creates or updates the task list based on provided requirements and progress. Always `view` the current list before making changes.'
      )
      .optional(),
    task_list: z
      .array(
        z.object({
          title: z.string().describe('A brief title for the task.'),
          notes: z.string().describe('Additional details or notes about the task.').optional(),
          status: z
            .enum(TRACKER_STATUSES)
            .describe("The current status of the task. One of 'todo', 'in_progress', or 'done'.")
            .optional(),
        })
      )
      .describe('The full task list. Required parameter of `plan` command.')
      .optional(),
  })
  .describe('An action where the agent writes or updates a task list for task management.')
