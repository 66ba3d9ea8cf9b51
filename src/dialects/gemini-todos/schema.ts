/**
 * @module dialects/gemini-todos/schema
 * Gemini CLI's write_todos input schema (zod).
 */
import { z } from 'zod'

export const TODO_STATUSES = [
  'pending',
  'in_progress',
  'completed',
  'cancelled',
  'blocked',
] as const

export type GeminiTodo = { description: string; status: (typeof TODO_STATUSES)[number] }

/** The advertised input schema of `write_todos`, exactly the native's `parametersJsonSchema`. */
export const WriteTodosInput = z.strictObject({
  todos: z
    .array(
      z
        .strictObject({
          description: z.string().describe('The description of the task.'),
          status: z.enum(TODO_STATUSES).describe('The current status of the task.'),
        })
        .describe('A single todo item.')
    )
    .describe('The complete list of todo items. This will replace the existing list.'),
})
