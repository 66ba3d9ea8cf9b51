/**
 * @module dialects/qwen-todos/schema
 * Qwen Code's todo_write input schema (zod) and the todo it stores.
 */
import { z } from 'zod'

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const

/** A todo as Qwen stores it: the model's object, whatever keys it carried. */
export type QwenTodo = Record<string, unknown> & {
  id: string
  content: string
  status: (typeof TODO_STATUSES)[number]
  blockedBy?: string[]
}

/**
 * The advertised input schema of `todo_write` as Qwen sends it over its OpenAI-compatible API
 * (captured from Qwen Code 0.24.4): its `parametersJsonSchema` after
 * `relaxSchemaForFunctionCalling`, which drops `$schema`, `uniqueItems` and the items'
 * `additionalProperties: false` (an item has an optional property).
 */
export const TodoWriteInput = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().min(1),
        status: z.enum(TODO_STATUSES),
        id: z.string().max(500),
        blockedBy: z
          .array(z.string().max(500))
          .describe(
            'Todo IDs that must be completed before this item. Active-plan updates preserve omitted dependencies for existing IDs; use [] to remove them.'
          )
          .optional(),
      })
    )
    .describe('The updated todo list'),
})
