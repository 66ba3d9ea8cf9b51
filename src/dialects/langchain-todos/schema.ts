/**
 * @module dialects/langchain-todos/schema
 * write_todos' input schema (zod), Python flavour, as LangChain derives it from the signature.
 */
import { z } from 'zod'

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const

export type Todo = { content: string; status: (typeof TODO_STATUSES)[number] }

/** The advertised input schema of `write_todos`, as LangChain derives it from the signature. */
export const WriteTodosInput = z.object({
  todos: z.array(
    z
      .object({ content: z.string(), status: z.enum(TODO_STATUSES) })
      .describe('A single todo item with content and status.')
  ),
})
