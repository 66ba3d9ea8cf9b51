/**
 * @module dialects/gemini-todos
 * Google Gemini CLI's `write_todos` tool as `@google/gemini-cli-core` 0.61.0 ships it
 * (`google-gemini/gemini-cli`: `packages/core/src/tools/write-todos.ts`, declaration in
 * `packages/core/src/tools/definitions/model-family-sets/gemini-3.ts`). Served in the
 * gemini format as `parametersJsonSchema`, as gemini-cli declares it.
 *
 * - Input `{todos: [{description, status}]}`, status one of pending, in_progress, completed,
 *   cancelled, blocked; a full replace.
 * - Checks in the native's order: first its JSON Schema through Ajv (`SchemaValidator`, first
 *   error, `params/…` paths, e.g. `params/todos/0/status must be equal to one of the allowed
 *   values`), then `validateToolParamValues` (non-empty description, one in_progress). Gemini
 *   hands args as an object, so there is no string-to-list leniency.
 * - Result: `Successfully updated the todo list. The current list is now:` and numbered
 *   `N. [status] description` lines; `Successfully cleared the todo list.` when empty.
 *   `structured` is the native's `returnDisplay` (`{todos}`).
 * - Render: the numbered lines; `The todo list is empty.` when empty.
 * - Reminder: the service's own (Gemini has none; s03's counter): after 3 rounds without
 *   `write_todos`, `<reminder>Update your todo list with write_todos.</reminder>` every round.
 */
import { z } from 'zod'
import type { Item } from '../../core/items.js'
import { isRecord } from '../json.js'
import { renderNumbered, rewriteList } from '../list-rewrite.js'
import type { CallOutcome, Dialect, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'

const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'blocked'] as const

type GeminiTodo = { description: string; status: (typeof TODO_STATUSES)[number] }

const DESCRIPTION = `This tool can help you list out the current subtasks that are required to be completed for a given user request. The list of subtasks helps you keep track of the current task, organize complex queries and help ensure that you don't miss any steps. With this list, the user can also see the current progress you are making in executing a given task.

Depending on the task complexity, you should first divide a given task into subtasks and then use this tool to list out the subtasks that are required to be completed for a given user request.
Each of the subtasks should be clear and distinct. 

Use this tool for complex queries that require multiple steps. If you find that the request is actually complex after you have started executing the user task, create a todo list and use it. If execution of the user task requires multiple steps, planning and generally is higher complexity than a simple Q&A, use this tool.

DO NOT use this tool for simple tasks that can be completed in less than 2 steps. If the user query is simple and straightforward, do not use the tool. If you can respond with an answer in a single turn then this tool is not required.

## Task state definitions

- pending: Work has not begun on a given subtask.
- in_progress: Marked just prior to beginning work on a given subtask. You should only have one subtask as in_progress at a time.
- completed: Subtask was successfully completed with no errors or issues. If the subtask required more steps to complete, update the todo list with the subtasks. All steps should be identified as completed only when they are completed.
- cancelled: As you update the todo list, some tasks are not required anymore due to the dynamic nature of the task. In this case, mark the subtasks as cancelled.
- blocked: Subtask is blocked and cannot be completed at this time.


## Methodology for using this tool
1. Use this todo list as soon as you receive a user request based on the complexity of the task.
2. Keep track of every subtask that you update the list with.
3. Mark a subtask as in_progress before you begin working on it. You should only have one subtask as in_progress at a time.
4. Update the subtask list as you proceed in executing the task. The subtask list is not static and should reflect your progress and current plans, which may evolve as you acquire new information.
5. Mark a subtask as completed when you have completed it.
6. Mark a subtask as cancelled if the subtask is no longer needed.
7. You must update the todo list as soon as you start, stop or cancel a subtask. Don't batch or wait to update the todo list.


## Examples of When to Use the Todo List

<example>
User request: Create a website with a React for creating fancy logos using gemini-2.5-flash-image

ToDo list created by the agent:
1. Initialize a new React project environment (e.g., using Vite).
2. Design and build the core UI components: a text input (prompt field) for the logo description, selection controls for style parameters (if the API supports them), and an image preview area.
3. Implement state management (e.g., React Context or Zustand) to manage the user's input prompt, the API loading status (pending, success, error), and the resulting image data.
4. Create an API service module within the React app (using "fetch" or "axios") to securely format and send the prompt data via an HTTP POST request to the specified "gemini-2.5-flash-image" (Gemini model) endpoint.
5. Implement asynchronous logic to handle the API call: show a loading indicator while the request is pending, retrieve the generated image (e.g., as a URL or base64 string) upon success, and display any errors.
6. Display the returned "fancy logo" from the API response in the preview area component.
7. Add functionality (e.g., a "Download" button) to allow the user to save the generated image file.
8. Deploy the application to a web server or hosting platform.

<reasoning>
The agent used the todo list to break the task into distinct, manageable steps:
1. Building an entire interactive web application from scratch is a highly complex, multi-stage process involving setup, UI development, logic integration, and deployment.
2. The agent inferred the core functionality required for a "logo creator," such as UI controls for customization (Task 3) and an export feature (Task 7), which must be tracked as distinct goals.
3. The agent rightly inferred the requirement of an API service model for interacting with the image model endpoint.
</reasoning>
</example>


## Examples of When NOT to Use the Todo List

<example>
User request: Ensure that the test <test file> passes.

Agent:
<Goes into a loop of running the test, identifying errors, and updating the code until the test passes.>

<reasoning>
The agent did not use the todo list because this task could be completed by a tight loop of execute test->edit->execute test.
</reasoning>
</example>`

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

const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v)

/**
 * `SchemaValidator.validate(parametersJsonSchema, params)`: Ajv's first error as
 * `errorsText(…, {dataVar: 'params'})`, keywords in Ajv's order (required, additionalProperties,
 * properties; type before enum).
 */
function schemaError(params: unknown): string | null {
  if (typeof params !== 'object' || params === null) return 'Value of params must be an object'
  if (!isRecord(params)) return 'params must be object'
  if (params.todos === undefined) return "params must have required property 'todos'"
  if (Object.keys(params).some((k) => k !== 'todos'))
    return 'params must NOT have additional properties'
  if (!Array.isArray(params.todos)) return 'params/todos must be array'
  for (let i = 0; i < params.todos.length; i++) {
    const todo: unknown = params.todos[i]
    const at = `params/todos/${i}`
    if (!isRecord(todo)) return `${at} must be object`
    if (todo.description === undefined) return `${at} must have required property 'description'`
    if (todo.status === undefined) return `${at} must have required property 'status'`
    if (Object.keys(todo).some((k) => k !== 'description' && k !== 'status')) {
      return `${at} must NOT have additional properties`
    }
    if (typeOf(todo.description) !== 'string') return `${at}/description must be string`
    if (typeOf(todo.status) !== 'string') return `${at}/status must be string`
    if (!(TODO_STATUSES as readonly unknown[]).includes(todo.status)) {
      return `${at}/status must be equal to one of the allowed values`
    }
  }
  return null
}

/** `WriteTodosTool.validateToolParamValues`, verbatim in behaviour and text. */
function valueError(params: Record<string, unknown>): string | null {
  const todos = params.todos
  if (!Array.isArray(todos)) return '`todos` parameter must be an array'
  for (const todo of todos as unknown[]) {
    if (typeof todo !== 'object' || todo === null) return 'Each todo item must be an object'
    const { description, status } = todo as Record<string, unknown>
    if (typeof description !== 'string' || !description.trim()) {
      return 'Each todo must have a non-empty description string'
    }
    if (!(TODO_STATUSES as readonly unknown[]).includes(status)) {
      return `Each todo must have a valid status (${TODO_STATUSES.join(', ')})`
    }
  }
  const inProgress = (todos as GeminiTodo[]).filter((todo) => todo.status === 'in_progress').length
  if (inProgress > 1) return 'Invalid parameters: Only one task can be "in_progress" at a time.'
  return null
}

/**
 * `validateToolParams`: the schema first, then the value rules. Returns the error text the model
 * reads, or the todos.
 * @param params - the call's args
 */
export function validateWriteTodos(
  params: unknown
): { ok: true; todos: GeminiTodo[] } | { ok: false; message: string } {
  const message = schemaError(params) ?? valueError(params as Record<string, unknown>)
  if (message !== null) return { ok: false, message }
  return { ok: true, todos: (params as { todos: GeminiTodo[] }).todos }
}

function numbered(todos: readonly { description: string; status: string }[]): string {
  return todos.map((todo, index) => `${index + 1}. [${todo.status}] ${todo.description}`).join('\n')
}

/**
 * The list as Gemini CLI writes it into its tool result: `N. [status] description` lines.
 * @param items - the list
 */
export function renderGeminiTodos(items: readonly Item[]): string {
  return renderNumbered(items, 'The todo list is empty.')
}

function applyWriteTodos(state: DialectState, input: unknown): CallOutcome {
  const checked = validateWriteTodos(input)
  if (!checked.ok) {
    return refused(state, checked.message)
  }
  const todos = checked.todos.map((todo) => ({
    description: todo.description,
    status: todo.status,
  }))
  const next = rewriteList(
    state,
    todos.map((todo) => ({ content: todo.description, status: todo.status }))
  )
  const content =
    todos.length > 0
      ? `Successfully updated the todo list. The current list is now:\n${numbered(todos)}`
      : 'Successfully cleared the todo list.'
  return {
    result: { is_error: false, content, structured: { todos } },
    state: next.state,
    dropped: next.dropped,
  }
}

function checkList(items: readonly Item[]): ListCheck {
  const params = {
    todos: items.map((item) => ({ description: item.content, status: item.status })),
  }
  const checked = validateWriteTodos(params)
  if (!checked.ok) return checked
  return { ok: true, items: items.map((item) => ({ ...item })) }
}

/** The `gemini-todos` dialect. */
export const geminiTodos: Dialect = {
  name: 'gemini-todos',
  description:
    "Google Gemini CLI's `write_todos` tool (todos [{description, status}] with cancelled and blocked, one in_progress, numbered result list).",
  tools: [{ name: 'write_todos', description: DESCRIPTION, input: WriteTodosInput }],
  reminder: { afterRounds: 3, repeatEvery: 1 },
  reminderText: () => '<reminder>Update your todo list with write_todos.</reminder>',
  apply: (state, _toolName, input) => applyWriteTodos(state, input),
  // Gemini's API hands args as an object; a text that is no object fails the same first check
  argumentsError: () => 'Value of params must be an object',
  render: renderGeminiTodos,
  checkList,
}
