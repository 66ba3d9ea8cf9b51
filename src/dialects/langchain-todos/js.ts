/**
 * @module dialects/langchain-todos/js
 * The texts of LangChain's `write_todos` tool in its JavaScript flavour: `todoListMiddleware`
 * of the npm package `langchain` 1.5.14 (`dist/agents/middleware/todoListMiddleware.js`), run
 * by `createAgent`'s ToolNode (`dist/agents/nodes/ToolNode.js`, `dist/agents/errors.js`) over
 * `@langchain/core` 1.2.13's `tool()` (`dist/tools/index.js`). The dialect object is assembled
 * in `index.ts`, beside the Python flavour (`schema.ts`, `texts.ts`, `execute.ts`) it shares the
 * rest with.
 *
 * - Description: the Python one plus a sentence, a longer item 5 and eleven examples.
 * - Schema: zod v3 through zod-to-json-schema, so each object is closed
 *   (`additionalProperties: false`) and the fields carry descriptions.
 * - Result: `Updated todo list to ${JSON.stringify(todos)}` of the parsed list (keys in the
 *   schema's order, extra keys dropped).
 * - Invalid input: ToolInvocationError's text around `@langchain/core`'s
 *   `Received tool input did not match expected schema` and zod's `prettifyError` of the zod v3
 *   issues. At home the error's `stack` sits in that text, ten `    at …` lines naming files of
 *   the agent's machine; those lines are left out, the rest is byte for byte.
 */
import { z } from 'zod'
import { isRecord } from '../json.js'
import { ADD_A_COMMENT, HELLO_WORLD_ASKED } from '../todo-examples.js'
import {
  HOW_TO_USE_SECTIONS,
  SYSTEM_PROMPT,
  TASK_STATES_SECTION,
  WHEN_TO_USE_SECTION,
} from './texts.js'

const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const

type Todo = { content: string; status: (typeof TODO_STATUSES)[number] }

/** `WRITE_TODOS_DESCRIPTION` of the JS package. */
export const JS_DESCRIPTION = `Use this tool to create and manage a structured task list for your current work session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.
It also helps the user understand the progress of the task and overall progress of their requests.
Only use this tool if you think it will be helpful in staying organized. If the user's request is trivial and takes less than 3 steps, it is better to NOT use this tool and just do the task directly.

${WHEN_TO_USE_SECTION}
5. The plan may need future revisions or updates based on results from the first few steps. Keeping track of this in a list is helpful.

${HOW_TO_USE_SECTIONS}

## Examples of When to Use the Todo List

<example>
User: I want to add a dark mode toggle to the application settings. Make sure you run the tests and build when you're done!
Assistant: I'll help add a dark mode toggle to your application settings. Let me create a todo list to track this implementation.
*Creates todo list with the following items:*
1. Create dark mode toggle component in Settings page
2. Add dark mode state management (context/store)
3. Implement CSS-in-JS styles for dark theme
4. Update existing components to support theme switching
5. Run tests and build process, addressing any failures or errors that occur
*Begins working on the first task*

<reasoning>
The assistant used the todo list because:
1. Adding dark mode in it of itself is a multi-step feature requiring UI, state management, and styling changes
2. The assistant inferred that tests and build need to pass by adding "Ensure tests and build succeed" as the final task
3. Both of the user's requests are complex and require multiple steps to complete.
</reasoning>
</example>

<example>
User: Help me plan a comprehensive marketing campaign for our new product launch, including social media, email marketing, and press releases.
Assistant: I'll help you plan a comprehensive marketing campaign for your product launch. Let me create a todo list to organize all the components.
*Creates todo list with the following items:*
1. Define target audience and key messaging
2. Create social media content calendar and posting schedule
3. Design email marketing sequence and automation flows
4. Draft press release and identify media contacts
5. Set up tracking and analytics for campaign performance
6. Create visual assets and brand materials
7. Coordinate launch timeline and deliverables
*Begins working on the first task*

<reasoning>
The assistant used the todo list because:
1. Marketing campaign planning involves multiple distinct channels and activities
2. Each component requires careful coordination and planning
3. The systematic approach ensures all aspects of the launch are covered
</reasoning>
</example>

<example>
User: Help me rename the function getCwd to getCurrentWorkingDirectory across my project
Assistant: Let me first search through your codebase to find all occurrences of 'getCwd'.
*Uses search tools to locate all instances of getCwd in the codebase*
Assistant: I've found 15 instances of 'getCwd' across 8 different files. Let me create a todo list to track these changes.
*Creates todo list with specific items for each file that needs updating*

<reasoning>
The assistant used the todo list because:
1. The assistant searched to understand the scope of the task
2. Upon finding multiple occurrences across different files, it determined this was a complex task with multiple steps (>3)
3. The todo list helps ensure every instance is tracked and updated systematically
4. This approach prevents missing any occurrences and maintains consistency.
</reasoning>
</example>

<example>
User: I need help organizing my home office: decluttering the desk, setting up a filing system, organizing digital files, and creating a daily workflow.
Assistant: I'll help you organize your home office systematically. Let me create a todo list to track each area of organization.
*Creates todo list with items like: 1) Sort and declutter desk items, 2) Set up physical filing system for documents, 3) Organize digital files and folders, 4) Create daily workflow and productivity systems, 5) Establish maintenance routines*
Let's start with decluttering your desk space to create a clean foundation for the other organizational systems.

<reasoning>
The assistant used the todo list because:
1. The user provided multiple distinct organizational tasks
2. Each area requires different approaches and careful planning
3. Home organization benefits from systematic, step-by-step completion
4. Progress tracking ensures all areas are addressed thoroughly
</reasoning>
</example>

## Examples of When NOT to Use the Todo List

<example>
${HELLO_WORLD_ASKED}

\`\`\`python
print("Hello World")
\`\`\`

This will output the text "Hello World" to the console when executed.</assistant>

<reasoning>
The assistant did not use the todo list because this is a single, trivial task that can be completed in one step. There's no need to track multiple tasks or steps for such a straightforward request.
</reasoning>
</example>

<example>
User: What's the best way to water houseplants?
Assistant: The best way to water houseplants depends on the specific plant type, but here are some general guidelines:

- Check soil moisture by inserting your finger about 1-2 inches into the soil
- Water thoroughly when the top inch feels dry, allowing water to drain from the bottom
- Use room temperature water and water in the morning when possible
- Avoid overwatering, which is more harmful than underwatering for most plants

Different plants have different needs, so it's important to research your specific varieties for optimal care.

<reasoning>
The assistant did not use the todo list because this is an informational request with no actual tasks to complete. The user is simply asking for advice and explanation, not for the assistant to perform multiple steps or activities.
</reasoning>
</example>

<example>
${ADD_A_COMMENT}

<reasoning>
The assistant did not use the todo list because this is a single, straightforward task confined to one location. Adding a comment doesn't require tracking multiple steps or systematic organization.
</reasoning>
</example>

<example>
User: What time is it in Tokyo right now?
Assistant: I'll check the current time in Tokyo for you.

*Searches for current time in Tokyo*

The current time in Tokyo, Japan is [current time]. Tokyo is in the Japan Standard Time (JST) zone, which is UTC+9.

<reasoning>
The assistant did not use the todo list because this is a single information lookup with immediate results. There are no multiple steps to track or organize, making the todo list unnecessary for this straightforward request.
</reasoning>
</example>

<example>
User: I need to write a function that checks if a number is prime and then test it out.
Assistant: I'll help you write a function that checks if a number is prime and then test it out.
*Writes function that checks if a number is prime*
*Tests the function*

<reasoning>
Even though this is a multi-step task, it is very straightforward and can be completed in two trivial steps (which is less than 3 steps!). Using the todo list here is overkill and wastes time and tokens.
</reasoning>
</example>

<example>
User: I want you to order a pizza from Dominos, order a burger from McDonald's, and order a salad from Subway.
Assistant: I'll help you order a pizza from Dominos, order a burger from McDonald's, and order a salad from Subway.
*Orders a pizza from Dominos*
*Orders a burger from McDonald's*
*Orders a salad from Subway*

<reasoning>
Even though this is a multi-step task, assuming the assistant has the ability to order from these restaurants, it is very straightforward and can be completed in three trivial tool calls. 
Using the todo list here is overkill and wastes time and tokens. These three tool calls should be made in parallel, in fact.
</reasoning>
</example>


${TASK_STATES_SECTION}`

/**
 * `TODO_LIST_MIDDLEWARE_SYSTEM_PROMPT`, which the JS middleware appends to the system message: the
 * Python package's text but for the space the JS one leaves after its first sentence.
 */
export const JS_SYSTEM_PROMPT = SYSTEM_PROMPT.replace(
  'plan complex objectives.\n',
  'plan complex objectives. \n'
)

/** The advertised input schema of the JS `write_todos` (closed objects, described fields). */
export const WriteTodosJsInput = z.strictObject({
  todos: z
    .array(
      z.strictObject({
        content: z.string().describe('Content of the todo item'),
        status: z.enum(TODO_STATUSES).describe('Status of the todo'),
      })
    )
    .describe('List of todo items to update'),
})

type Issue = { path: (string | number)[]; message: string }

/** zod v3's name for the type of a JSON value (`getParsedType`). */
function parsedType(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : 'number'
  return typeof value
}

/** zod v3's `invalid_type` message. */
const invalidType = (expected: string, value: unknown) =>
  value === undefined ? 'Required' : `Expected ${expected}, received ${parsedType(value)}`

const STATUS_VALUES = TODO_STATUSES.map((s) => `'${s}'`).join(' | ')

/** One todo's issues, in the schema's key order. */
function todoIssues(entry: unknown, i: number, issues: Issue[]): Todo | null {
  if (!isRecord(entry)) {
    issues.push({ path: ['todos', i], message: invalidType('object', entry) })
    return null
  }
  const before = issues.length
  if (typeof entry.content !== 'string') {
    issues.push({ path: ['todos', i, 'content'], message: invalidType('string', entry.content) })
  }
  const status = entry.status
  if (typeof status !== 'string') {
    issues.push({ path: ['todos', i, 'status'], message: invalidType(STATUS_VALUES, status) })
  } else if (!(TODO_STATUSES as readonly string[]).includes(status)) {
    const message = `Invalid enum value. Expected ${STATUS_VALUES}, received '${status}'`
    issues.push({ path: ['todos', i, 'status'], message })
  }
  if (issues.length > before) return null
  return { content: entry.content as string, status: status as Todo['status'] }
}

/** The zod v3 issues of `{todos: [{content, status}]}` and the parsed (stripped) todos. */
function zodIssues(args: unknown): { issues: Issue[]; todos: Todo[] } {
  const issues: Issue[] = []
  const todos: Todo[] = []
  if (!isRecord(args))
    return { issues: [{ path: [], message: invalidType('object', args) }], todos }
  if (!Array.isArray(args.todos)) {
    return { issues: [{ path: ['todos'], message: invalidType('array', args.todos) }], todos }
  }
  args.todos.forEach((entry: unknown, i) => {
    const todo = todoIssues(entry, i, issues)
    if (todo) todos.push(todo)
  })
  return { issues, todos }
}

/** zod's `toDotPath` for the paths this schema has. */
const dotPath = (path: readonly (string | number)[]) =>
  path.map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i > 0 ? `.${seg}` : seg)).join('')

/** zod's `prettifyError`: issues by path length (a stable sort), each `✖ message` `→ at path`. */
function prettify(issues: readonly Issue[]): string {
  return [...issues]
    .sort((a, b) => a.path.length - b.path.length)
    .flatMap((issue) =>
      issue.path.length > 0
        ? [`✖ ${issue.message}`, `  → at ${dotPath(issue.path)}`]
        : [`✖ ${issue.message}`]
    )
    .join('\n')
}

/**
 * Validates a JS `write_todos` call as `tool()` and ToolNode would: the parsed todos, or the
 * error text the model reads (without the stack frames, see the module's note).
 * @param args - the call's args as the model sent them
 */
export function validateWriteTodosJs(
  args: unknown
): { ok: true; todos: Todo[] } | { ok: false; message: string } {
  const { issues, todos } = zodIssues(args)
  if (issues.length === 0) return { ok: true, todos }
  return {
    ok: false,
    message: `Error invoking tool 'write_todos' with kwargs ${JSON.stringify(args)} with error: Error: Received tool input did not match expected schema\n\n${prettify(issues)}\n Please fix the error and try again.`,
  }
}

/**
 * The zod issues of an operator's list, one `✖ message` / `→ at path` pair each (PUT's 422).
 * @param todos - the list as `{content, status}` entries
 */
export function jsListProblems(todos: readonly unknown[]): string | null {
  const { issues } = zodIssues({ todos })
  return issues.length === 0 ? null : prettify(issues)
}

/**
 * The JS tool result of a successful call: `Updated todo list to [{"content":…,"status":…}]`.
 * @param todos - the parsed todos
 */
export function updatedTextJs(todos: readonly Todo[]): string {
  return `Updated todo list to ${JSON.stringify(todos.map((t) => ({ content: t.content, status: t.status })))}`
}
