/**
 * @module dialects/claude-todowrite/schema
 * TodoWrite's input schema (zod), as Claude Code declares it.
 */
import { z } from 'zod'

const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const

const TodoItem = z.object({
  content: z.string().min(1, 'Content cannot be empty'),
  status: z.enum(TODO_STATUSES),
  activeForm: z.string().min(1, 'Active form cannot be empty'),
})

export type Todo = z.infer<typeof TodoItem>

/** The advertised input schema of `TodoWrite`, as Claude Code declares it. */
export const TodoWriteInput = z.strictObject({
  todos: z.array(TodoItem).describe('The updated todo list'),
})

// an operator may leave the active form out; it then defaults to the content
export const OperatorTodo = TodoItem.extend({ activeForm: TodoItem.shape.activeForm.optional() })
