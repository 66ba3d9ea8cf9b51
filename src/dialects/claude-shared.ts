/**
 * @module dialects/claude-shared
 * What Claude Code's todo and task tools share: the text a model reads when its input fails the
 * tool's schema, the `<system-reminder>` wrapper, and the lenient input repairs.
 */
import type { z } from 'zod'
import { parseJsonText } from './json.js'

/** Claude Code's path rendering: `['todos', 0, 'activeForm']` → `todos[0].activeForm`. */
function formatValidationPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, segment, index) => {
    if (typeof segment === 'number') return `${acc}[${segment}]`
    return index === 0 ? String(segment) : `${acc}.${String(segment)}`
  }, '')
}

/**
 * Claude Code's `formatZodValidationError` (v2.1.88): missing, unexpected and mistyped
 * parameters in plain sentences; any other failure falls back to zod's own message (its issues
 * as pretty JSON), as the native does.
 * @param toolName - the tool
 * @param error - the failed parse
 */
export function formatZodValidationError(toolName: string, error: z.ZodError): string {
  const missing: string[] = []
  const unexpected: string[] = []
  const mistyped: string[] = []
  for (const issue of error.issues) {
    if (issue.code === 'invalid_type') {
      const param = formatValidationPath(issue.path)
      if (issue.message.includes('received undefined')) {
        missing.push(`The required parameter \`${param}\` is missing`)
      } else {
        const received = /received (\w+)/.exec(issue.message)?.[1] ?? 'unknown'
        mistyped.push(
          `The parameter \`${param}\` type is expected as \`${issue.expected}\` but provided as \`${received}\``
        )
      }
    } else if (issue.code === 'unrecognized_keys') {
      unexpected.push(...issue.keys.map((key) => `An unexpected parameter \`${key}\` was provided`))
    }
  }
  const parts = [...missing, ...unexpected, ...mistyped]
  if (parts.length === 0) return error.message
  return `${toolName} failed due to the following ${parts.length > 1 ? 'issues' : 'issue'}:\n${parts.join('\n')}`
}

/**
 * The tool_result text of a call whose input failed the tool's schema.
 * @param toolName - the tool
 * @param error - the failed parse
 */
export function inputValidationError(toolName: string, error: z.ZodError): string {
  return `<tool_use_error>InputValidationError: ${formatZodValidationError(toolName, error)}</tool_use_error>`
}

// The prefix length Claude Code quotes back is not pinned by the reference; 200 bytes is a guess.
const UNPARSED_PREFIX_BYTES = 200

/**
 * The tool_result text of a call whose arguments were not JSON, as recent Claude Code words it.
 * @param toolName - the tool
 * @param raw - the arguments string
 */
export function unparsedInputError(toolName: string, raw: string): string {
  const bytes = Buffer.from(raw, 'utf8')
  const shown = bytes.subarray(0, UNPARSED_PREFIX_BYTES).toString('utf8')
  return (
    `<tool_use_error>InputValidationError: ${toolName} was called with input that could not be parsed as JSON.\n` +
    `You sent (first ${Math.min(bytes.length, UNPARSED_PREFIX_BYTES)} of ${bytes.length} bytes): ${shown}\n` +
    'Common causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, or truncated output. Retry with valid JSON.</tool_use_error>'
  )
}

/**
 * Claude Code's `wrapInSystemReminder`.
 * @param text - the reminder body
 */
export function systemReminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`
}

/**
 * Renames misspelt keys the way Claude Code repairs them silently; a key already present wins.
 * @param input - the call's input object
 * @param aliases - canonical key → accepted misspellings, in order of preference
 */
export function repairKeys(
  input: Record<string, unknown>,
  aliases: Record<string, readonly string[]>
): Record<string, unknown> {
  const out = { ...input }
  for (const [key, names] of Object.entries(aliases)) {
    if (key in out) continue
    const alias = names.find((name) => name in out)
    if (alias === undefined) continue
    out[key] = out[alias]
    delete out[alias]
  }
  return out
}

/**
 * A list or object the model sent as a JSON string, parsed; anything else unchanged, so the
 * schema reports it.
 * @param value - a field's value
 */
export function parseStringified(value: unknown): unknown {
  if (typeof value !== 'string') return value
  try {
    const parsed: unknown = parseJsonText(value)
    return typeof parsed === 'object' && parsed !== null ? parsed : value
  } catch {
    return value
  }
}

/**
 * An operator's list (PUT) failing the dialect's schema, one `path: message` line per issue.
 * @param root - the name the list goes by in the message
 * @param error - the failed parse
 */
export function listIssues(root: string, error: z.ZodError): string {
  return error.issues
    .map((issue) => `${formatValidationPath([root, ...issue.path])}: ${issue.message}`)
    .join('\n')
}

/**
 * The first id that occurs twice in a list, if any.
 * @param items - anything with an id
 */
export function duplicateId(items: readonly { id: string }[]): string | undefined {
  const seen = new Set<string>()
  for (const item of items) {
    if (seen.has(item.id)) return item.id
    seen.add(item.id)
  }
  return undefined
}
