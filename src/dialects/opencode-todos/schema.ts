/**
 * @module dialects/opencode-todos/schema
 * opencode's todowrite input schema (zod) and the todo it stores.
 */
import { z } from 'zod'

/** A todo as opencode decodes it. */
export type OpencodeTodo = { content: string; status: string; priority: string }

export const KEYS = ['content', 'status', 'priority'] as const

export const KNOWN_STATUSES: readonly string[] = [
  'pending',
  'in_progress',
  'completed',
  'cancelled',
]

/** The priority an item gets when a person's list names none. */
export const DEFAULT_PRIORITY = 'medium'

/** The advertised input schema of `todowrite`, as opencode derives it from its effect Schema. */
export const TodoWriteInput = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().describe('Brief description of the task'),
        status: z
          .string()
          .describe('Current status of the task: pending, in_progress, completed, cancelled'),
        priority: z.string().describe('Priority level of the task: high, medium, low'),
      })
    )
    .describe('The updated todo list'),
})
