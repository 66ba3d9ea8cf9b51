/**
 * @module dialects/opencode-todos
 * opencode's `todowrite` tool as `opencode-ai` 1.18.33 ships it (the `opencode-linux-x64`
 * binary's bundled JS: the tool `todowrite` with description `bt` and parameters `Ms`, the tool
 * wrapper's `ToolInvalidArgumentsError`; source `anomalyco/opencode`
 * `packages/opencode/src/tool/todo.ts`). Kilo CLI 7.7.9 has the same tool, byte for byte.
 *
 * - Input `{todos: [{content, status, priority}]}`, all three required plain strings (the
 *   descriptions name pending/in_progress/completed/cancelled and high/medium/low, nothing
 *   enforces them); a full replace. The four known statuses map to the canonical ones; any other
 *   is stored as pending with the model's word in `metadata.status`; `priority` is kept in
 *   `metadata.priority`. Items have no ids: identity is kept by content, then position.
 * - Checks: effect's Schema decode (effect 4.0.0-beta.87 gives these texts): the first issue, in
 *   key order, as `The todowrite tool was called with invalid arguments: SchemaError(<issue>\n
 *   at <path>).\nPlease rewrite the input so it satisfies the expected schema.` Issues:
 *   `Missing key`, `Expected array|string, got <JSON>`, `Expected Todo, got <JSON>` for an item
 *   that is no object, `Expected object, got <JSON>` for arguments that are no object.
 * - Result: `JSON.stringify(todos, null, 2)` of the decoded todos (keys content, status,
 *   priority in that order; extra keys dropped, as the decode drops them). `structured` is the
 *   tool's metadata, `{todos}`.
 * - Render: the same JSON of the list. Reminder: the service's own (opencode has none; s03's
 *   counter): after 3 rounds without `todowrite`, `<reminder>Update your todo list with
 *   todowrite.</reminder>` every round.
 * - Arguments that are not JSON: opencode's AI SDK hands them to its `invalid` tool, whose
 *   result embeds Bun's `JSON.parse` message; the commonest breaks (cut off, unterminated
 *   string, text after the value, bad escape) get Bun's words, others V8's. opencode answers
 *   them as a normal result; here, as every dialect's unparseable arguments, `is_error`.
 *
 * Checked against the real opencode 1.18.33 binary (`opencode run` against a scripted model):
 * the description and schema it sent, the result text, the schema errors above and the four
 * JSON messages are the same bytes. Not reproduced: opencode truncates tool outputs over its
 * limits (2000 lines or 50 KB) into a file; lists that long are answered whole here.
 */
import { z } from 'zod'
import type { Item, Status } from '../../core/items.js'
import { isRecord } from '../json.js'
import { rewriteList } from '../list-rewrite.js'
import { refused } from '../outcome.js'
import type { CallOutcome, Dialect, DialectState, ListCheck } from '../types.js'

/** A todo as opencode decodes it. */
export type OpencodeTodo = { content: string; status: string; priority: string }

const KEYS = ['content', 'status', 'priority'] as const

const KNOWN_STATUSES: readonly string[] = ['pending', 'in_progress', 'completed', 'cancelled']

/** The priority an item gets when a person's list names none. */
export const DEFAULT_PRIORITY = 'medium'

const DESCRIPTION = `Create and maintain a structured task list for the current coding session. Tracks progress, organizes multi-step work, and surfaces status to the user.

## When to use
Use proactively when:
- The task requires 3+ distinct steps or actions (not just 3 tool calls for a single conceptual step)
- The work is non-trivial and benefits from planning
- The user provides multiple tasks (numbered or comma-separated) or explicitly asks for a todo list
- New instructions arrive - capture them as todos
- You start a task - mark it \`in_progress\` (only one at a time) before working
- You finish a task - mark it \`completed\` and add any follow-ups discovered during the work

## When NOT to use
Skip when:
- The work is a single, straightforward task (or <3 trivial steps)
- The request is purely informational or conversational
- Tracking adds no organizational value

## States
- \`pending\` - not started
- \`in_progress\` - actively working (exactly ONE at a time)
- \`completed\` - finished successfully
- \`cancelled\` - no longer needed

## Rules
- Update status in real time; don't batch completions
- Mark \`completed\` only after the required work is actually done, including any required verification. Never based on intent.
- Keep exactly one \`in_progress\` while work remains
- If blocked or partial, keep it \`in_progress\` and add a follow-up todo describing the blocker
- Preserve user-provided commands verbatim (flags, args, order)
- Items should be specific and actionable; break large work into smaller steps

## Examples

Use it:
- "Add a dark mode toggle and run the tests" -> multi-step feature + explicit verification
- "Rename getCwd -> getCurrentWorkingDirectory across the repo" -> grep reveals 15 occurrences in 8 files
- "Implement registration, catalog, cart, checkout" -> multiple complex features

Skip it:
- "How do I print Hello World in Python?" -> informational
- "Add a comment to calculateTotal" -> single edit
- "Run npm install and tell me what happened" -> one command

When in doubt, use it.
`

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

/** The message of opencode's `ToolInvalidArgumentsError`. */
const invalidArguments = (detail: string) =>
  `The todowrite tool was called with invalid arguments: ${detail}.\nPlease rewrite the input so it satisfies the expected schema.`

/** effect's `SchemaError` as `String()` prints it: the issue, and its path when it has one. */
const schemaError = (issue: string, path: readonly (string | number)[]) =>
  path.length === 0
    ? `SchemaError(${issue})`
    : `SchemaError(${issue}\n  at ${path.map((key) => `[${JSON.stringify(key)}]`).join('')})`

// effect prints the actual value as JSON (undefined as `undefined`)
const shown = (value: unknown) => (value === undefined ? 'undefined' : JSON.stringify(value))

/**
 * Decodes `todowrite`'s arguments as opencode's effect Schema does: the todos with their three
 * keys, or the error text the model reads.
 * @param params - the call's args
 */
export function decodeTodoWrite(
  params: unknown
): { ok: true; todos: OpencodeTodo[] } | { ok: false; message: string } {
  const fail = (issue: string, path: (string | number)[]) => ({
    ok: false as const,
    message: invalidArguments(schemaError(issue, path)),
  })
  if (!isRecord(params)) return fail(`Expected object, got ${shown(params)}`, [])
  if (!Object.hasOwn(params, 'todos')) return fail('Missing key', ['todos'])
  const list = params.todos
  if (!Array.isArray(list)) return fail(`Expected array, got ${shown(list)}`, ['todos'])
  const todos: OpencodeTodo[] = []
  for (let i = 0; i < list.length; i++) {
    const entry: unknown = list[i]
    if (!isRecord(entry)) return fail(`Expected Todo, got ${shown(entry)}`, ['todos', i])
    for (const key of KEYS) {
      if (!Object.hasOwn(entry, key)) return fail('Missing key', ['todos', i, key])
      if (typeof entry[key] !== 'string') {
        return fail(`Expected string, got ${shown(entry[key])}`, ['todos', i, key])
      }
    }
    todos.push({
      content: entry.content as string,
      status: entry.status as string,
      priority: entry.priority as string,
    })
  }
  return { ok: true, todos }
}

/**
 * The tool's output: the todos as JSON, two-space indented.
 * @param todos - the decoded todos
 */
export const todosText = (todos: readonly OpencodeTodo[]) => JSON.stringify(todos, null, 2)

/** A canonical status for opencode's free-text one; unknown words are pending. */
const canonicalStatus = (status: string): Status =>
  KNOWN_STATUSES.includes(status) ? (status as Status) : 'pending'

/**
 * The todo an item stands for: the model's status word while the item is still the pending it
 * was stored as (a person may have moved it on since), its priority, else the canonical ones.
 */
function todoOf(item: Item): OpencodeTodo {
  const status = item.metadata?.status
  const priority = item.metadata?.priority
  return {
    content: item.content,
    status: typeof status === 'string' && item.status === 'pending' ? status : item.status,
    priority: typeof priority === 'string' ? priority : DEFAULT_PRIORITY,
  }
}

/** The metadata that keeps what the canonical item cannot hold. */
function metadataOf(todo: OpencodeTodo): Record<string, unknown> {
  return KNOWN_STATUSES.includes(todo.status)
    ? { priority: todo.priority }
    : { priority: todo.priority, status: todo.status }
}

/**
 * The list after a write of these todos (executed here, or observed): stable ids by content, then
 * position; the four known statuses as they are, any other word pending with the word kept in
 * `metadata.status`; the priority in `metadata.priority`.
 * @param state - the dialect state before the write
 * @param todos - the todos written, in order
 */
export function writeTodos(
  state: DialectState,
  todos: readonly OpencodeTodo[]
): { state: DialectState; dropped: Item[] } {
  const next = rewriteList(
    state,
    todos.map((todo) => ({ content: todo.content, status: canonicalStatus(todo.status) }))
  )
  const items = next.state.items.map((item, i) => ({ ...item, metadata: metadataOf(todos[i]) }))
  return { state: { ...next.state, items }, dropped: next.dropped }
}

function applyTodoWrite(state: DialectState, params: unknown): CallOutcome {
  const decoded = decodeTodoWrite(params)
  if (!decoded.ok) return refused(state, decoded.message)
  const { todos } = decoded
  const next = writeTodos(state, todos)
  return {
    result: { is_error: false, content: todosText(todos), structured: { todos } },
    state: next.state,
    dropped: next.dropped,
  }
}

/**
 * The list as opencode shows it to the model: the JSON of its todos.
 * @param items - the list
 */
export function renderOpencodeTodos(items: readonly Item[]): string {
  return todosText(items.map(todoOf))
}

// opencode takes any strings; a person's list only needs each item to stand for a todo
function checkList(items: readonly Item[]): ListCheck {
  return { ok: true, items: items.map((item) => ({ ...item })) }
}

/** The `opencode-todos` dialect. */
export const opencodeTodos: Dialect = {
  name: 'opencode-todos',
  description:
    'opencode / Kilo `todowrite` (todos [{content, status, priority}] as free strings, no ids, result the list as JSON.stringify(todos, null, 2)).',
  tools: [{ name: 'todowrite', description: DESCRIPTION, input: TodoWriteInput }],
  reminder: { afterRounds: 3, repeatEvery: 1 },
  reminderText: () => '<reminder>Update your todo list with todowrite.</reminder>',
  apply: (state, _toolName, input) => applyTodoWrite(state, input),
  // the AI SDK's InvalidToolInputError, answered by opencode's `invalid` tool
  argumentsError: (toolName, raw) =>
    `The arguments provided to the tool are invalid: Invalid input for tool ${toolName}: JSON parsing failed: Text: ${raw}.\nError message: ${jsonParseMessage(raw)}`,
  render: renderOpencodeTodos,
  checkList,
}

/**
 * Bun's (JavaScriptCore's) words for the commonest ways a JSON text breaks, from V8's: cut off,
 * an unterminated string, text after the value, a bad escape (as opencode 1.18.33 printed them).
 * Other breaks keep V8's message.
 */
const JSC_MESSAGES: [RegExp, (match: RegExpMatchArray, raw: string) => string][] = [
  [/^Unexpected end of JSON input$/, () => 'Unexpected EOF'],
  [/^Unterminated string in JSON/, () => 'Unterminated string'],
  [/^Unexpected non-whitespace character after JSON/, () => 'Unable to parse JSON string'],
  [
    /^Bad escaped character in JSON at position (\d+)/,
    (match, raw) => `Invalid escape character ${raw.charAt(Number(match[1]))}`,
  ],
]

/** The message Bun's `JSON.parse` gives for a text it refuses, where known (see above). */
function jsonParseMessage(raw: string): string {
  let message: string
  try {
    JSON.parse(raw)
    return ''
  } catch (error) {
    message = error instanceof Error ? error.message : String(error)
  }
  for (const [pattern, word] of JSC_MESSAGES) {
    const match = message.match(pattern)
    if (match) return `JSON Parse error: ${word(match, raw)}`
  }
  return message
}
