/**
 * @module dialects/opencode-todos/texts
 * opencode's own texts for todowrite: its description and its error strings.
 */

export const DESCRIPTION = `Create and maintain a structured task list for the current coding session. Tracks progress, organizes multi-step work, and surfaces status to the user.

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

/** The message of opencode's `ToolInvalidArgumentsError`. */
export const invalidArguments = (detail: string) =>
  `The todowrite tool was called with invalid arguments: ${detail}.\nPlease rewrite the input so it satisfies the expected schema.`

/** effect's `SchemaError` as `String()` prints it: the issue, and its path when it has one. */
export const schemaError = (issue: string, path: readonly (string | number)[]) =>
  path.length === 0
    ? `SchemaError(${issue})`
    : `SchemaError(${issue}\n  at ${path.map((key) => `[${JSON.stringify(key)}]`).join('')})`

// effect prints the actual value as JSON (undefined as `undefined`)
/** A value as opencode's schema errors print it. */
export const shown = (value: unknown) => (value === undefined ? 'undefined' : JSON.stringify(value))

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
export function jsonParseMessage(raw: string): string {
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
