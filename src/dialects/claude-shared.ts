/**
 * @module dialects/claude-shared
 * What Claude Code's todo and task tools share (as Claude Code 2.1.332 ships them): the text a
 * model reads when its input fails the tool's schema or is no JSON, the `<system-reminder>`
 * wrapper, and the lenient input repairs.
 */
import { z } from 'zod'
import { parseJsonText } from './json.js'

// What Claude Code 2.1.332 escapes where it quotes model text back (its `v()`): control, format
// and separator characters and a few invisible ones, as `\u{HEX}`.
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- U+1160 and U+FE00 combine with the character before them in text, but here each is a class member of its own
  /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2065\u3164\uFE00-\uFE0F\uFFA0\uFFF0-\uFFF8\u{E0000}-\u{E0FFF}]/u

/** One character as Claude Code quotes it: invisible ones as `\u{HEX}`, no backticks or brackets. */
function quoteChar(ch: string, force: boolean): string {
  if (force || INVISIBLE.test(ch)) return `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`
  if (ch === '`') return "'"
  if (ch === '<') return '\u2039'
  if (ch === '>') return '\u203A'
  return ch
}

const plural = (n: number, word: string) => `${word}${n === 1 ? '' : 's'}`

// Claude Code's limits on a quoted name: 64 characters, the last 24 kept when it cuts.
const NAME_MAX = 64
const NAME_TAIL = 24

/**
 * A parameter name as Claude Code quotes it (`BKt`): escaped, leading and trailing whitespace
 * made visible, and a long one cut in the middle (`head… [+N chars] …tail`).
 * @param text - the name
 */
export function quoteName(text: string): string {
  const lead = text.length - text.trimStart().length
  const trail = text.trimEnd().length
  let out = ''
  let head = ''
  let headEnd = 0
  let at = 0
  for (const ch of text) {
    out += quoteChar(ch, at < lead || at >= trail)
    at += ch.length
    if (out.length <= NAME_MAX - NAME_TAIL) {
      head = out
      headEnd = at
    }
    if (out.length > NAME_MAX) break
  }
  if (out.length <= NAME_MAX) return out
  let tail = ''
  let tailStart = text.length
  for (const ch of Array.from(text).slice(-NAME_TAIL).reverse()) {
    const start = tailStart - ch.length
    const next = quoteChar(ch, start < lead || start >= trail) + tail
    if (next.length > NAME_TAIL) break
    tail = next
    tailStart = start
  }
  const cut = tailStart - headEnd
  return `${head}\u2026 [+${cut} ${plural(cut, 'char')}] \u2026${tail}`
}

/** Claude Code's path rendering: `['todos', 0, 'activeForm']` → `todos[0].activeForm`. */
function formatValidationPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return ''
  return quoteName(
    path.reduce<string>((acc, segment, index) => {
      if (typeof segment === 'number') return `${acc}[${segment}]`
      return index === 0 ? String(segment) : `${acc}.${String(segment)}`
    }, '')
  )
}

type Issue = z.core.$ZodIssue

// Claude Code's caps: 20 parameters and 20 other issues listed, 500 characters of a message,
// 4000 of zod's own text.
const MAX_LISTED = 20
const MAX_MESSAGE = 500
const MAX_ZOD_TEXT = 4000

/** An issue that is neither a missing, mistyped nor unexpected parameter. */
const isOther = (issue: Issue) =>
  issue.code !== 'invalid_type' && issue.code !== 'unrecognized_keys'

const isMissing = (issue: Issue) =>
  issue.code === 'invalid_type' && issue.message.includes('received undefined')

/** How badly a union branch misses at its own level (Claude Code's branch choice). */
function missDepth(issues: readonly Issue[]): number {
  return Math.max(
    0,
    ...issues
      .filter((issue) => issue.path.length === 0)
      .map((issue) => {
        if (issue.code === 'invalid_type') return 2
        if (issue.code === 'invalid_value') return 1
        if (issue.code === 'invalid_union' && issue.errors.length > 0) {
          return Math.min(...issue.errors.map(missDepth))
        }
        return 0
      })
  )
}

/** A union's issues replaced by those of the branch that came closest. */
function flattenUnion(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue]
  const best = issue.errors.reduce((a, b) => {
    const d = missDepth(b) - missDepth(a)
    return d < 0 || (d === 0 && b.length < a.length) ? b : a
  })
  return best.flatMap((inner) => flattenUnion({ ...inner, path: [...issue.path, ...inner.path] }))
}

/** Whether every path segment of zod's issues reads the same once quoted. */
function quotesCleanly(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(quotesCleanly)
  if (typeof value !== 'object' || value === null) return true
  return Object.entries(value).every(([key, inner]) =>
    (key === 'path' || key === 'keys') && Array.isArray(inner)
      ? inner.every((part) => typeof part !== 'string' || quoteName(part) === part)
      : quotesCleanly(inner)
  )
}

const cap = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`

/**
 * Claude Code's `formatZodValidationError` (2.1.332): missing, unexpected and mistyped parameters
 * in plain sentences (20 at most), then every other issue as `The parameter \`p\` is invalid: …`;
 * when every issue is of the other kind, zod's own message (its issues as pretty JSON).
 * @param toolName - the tool
 * @param error - the failed parse
 */
export function formatZodValidationError(toolName: string, error: z.ZodError): string {
  const allOther = error.issues.every(isOther)
  if (allOther && error.message.length <= MAX_ZOD_TEXT && quotesCleanly(error.issues)) {
    return error.message
  }
  const issues = allOther ? error.issues.flatMap(flattenUnion) : error.issues
  const missing = issues.filter(isMissing).map((issue) => issue.path)
  const unexpected = issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : []
  )
  const mistyped = issues.filter((issue) => issue.code === 'invalid_type' && !isMissing(issue))
  const others = issues.filter(isOther)
  const count = missing.length + unexpected.length + mistyped.length
  const room = count === MAX_LISTED + 1 ? count : MAX_LISTED
  const shownMissing = missing.slice(0, room)
  const shownMistyped = mistyped.slice(0, room - shownMissing.length)
  const shownUnexpected = unexpected.slice(0, room - shownMissing.length - shownMistyped.length)
  const parts = [
    ...shownMissing.map(
      (path) => `The required parameter \`${formatValidationPath(path)}\` is missing`
    ),
    ...shownUnexpected.map(
      (path) => `An unexpected parameter \`${formatValidationPath(path)}\` was provided`
    ),
    ...shownMistyped.map((issue) => {
      const received = /received (\w+)/.exec(issue.message)?.[1] ?? 'unknown'
      const expected = issue.code === 'invalid_type' ? issue.expected : 'unknown'
      return `The parameter \`${formatValidationPath(issue.path)}\` type is expected as \`${expected}\` but provided as \`${received}\``
    }),
  ]
  const unlisted = count - parts.length
  if (unlisted > 0) parts.push(`(${unlisted} more ${plural(unlisted, 'parameter')} not listed)`)
  for (const issue of others.slice(0, MAX_LISTED)) {
    const path = formatValidationPath(issue.path)
    const subject = path === '' ? 'The input' : `The parameter \`${path}\``
    const message = cap(issue.message.replace(/^Invalid input(?:: |$)/, ''), MAX_MESSAGE)
    if (message !== '') parts.push(`${subject} is invalid: ${message}`)
    else if (issue.code === 'invalid_union')
      parts.push(`${subject} matches none of the accepted forms`)
    else parts.push(`${subject} is invalid`)
  }
  const more = others.length - MAX_LISTED
  if (more > 0) parts.push(`(${more} more ${plural(more, 'issue')} not listed)`)
  return `${toolName} failed due to the following ${parts.length > 1 ? 'issues' : 'issue'}:\n${parts.join('\n')}`
}

/**
 * The tool_result text of a call whose input failed the tool's schema.
 * @param toolName - the tool
 * @param error - the failed parse
 * @param steer - the tool's steering text for this kind of mistake, put first
 */
export function inputValidationError(toolName: string, error: z.ZodError, steer?: string): string {
  const text = formatZodValidationError(toolName, error)
  return `<tool_use_error>InputValidationError: ${steer ? `${steer}\n\n${text}` : text}</tool_use_error>`
}

// Claude Code quotes at most 200 characters of unparsable input, escaped.
const UNPARSED_SHOWN = 200

/**
 * The tool_result text of a call whose arguments were not JSON, as Claude Code 2.1.332 words it:
 * the first characters of what was sent, escaped (control characters as `\u{HEX}`, backticks
 * and angle brackets replaced), and how many of how many (UTF-16 units, which it calls bytes).
 * @param toolName - the tool
 * @param raw - the arguments string
 */
export function unparsedInputError(toolName: string, raw: string): string {
  let shown = ''
  let taken = 0
  for (const ch of raw) {
    const quoted = quoteChar(ch, false)
    if (shown.length + quoted.length > UNPARSED_SHOWN) break
    shown += quoted
    taken += ch.length
  }
  return (
    `<tool_use_error>InputValidationError: ${toolName} was called with input that could not be parsed as JSON.\n` +
    `You sent (first ${taken} of ${raw.length} bytes): ${shown}\n` +
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

/**
 * What both Claude dialects' `checkList` refuse first: an operator's list (PUT) whose records fail
 * the native's record schema (`listIssues` under `todos` / `tasks`), or that holds an id twice.
 * @param noun - `todo` or `task`, as the messages name an entry
 * @param record - the native's record schema
 * @param records - the operator's items as the native's records
 * @param items - the operator's items, for their ids
 * @returns the refusal, or undefined when the list passes both
 */
export function operatorListRefusal(
  noun: 'todo' | 'task',
  record: z.ZodType,
  records: readonly unknown[],
  items: readonly { id: string }[]
): string | undefined {
  const parsed = z.array(record).safeParse(records)
  if (!parsed.success) return listIssues(`${noun}s`, parsed.error)
  const duplicate = duplicateId(items)
  return duplicate === undefined ? undefined : `Duplicate ${noun} id '${duplicate}'`
}

/**
 * When a task counts as completed, as the TaskUpdate prompt lists it; the TodoWrite prompt has the
 * same bullets, indented under its item 3.
 */
export const COMPLETION_REQUIREMENTS = `- ONLY mark a task as completed when you have FULLY accomplished it
- If you encounter errors, blockers, or cannot finish, keep the task as in_progress
- When blocked, create a new task describing what needs to be resolved
- Never mark a task as completed if:
  - Tests are failing
  - Implementation is partial
  - You encountered unresolved errors
  - You couldn't find necessary files or dependencies`

/**
 * The line Claude Code 2.1.332's system prompt gives the todo tool among its `# Using your tools`
 * bullets (`fks`: the first of TaskCreate and TodoWrite the session has; outside the REPL mode
 * and the lean prompt, which say otherwise or nothing).
 * @param tool - `TaskCreate` or `TodoWrite`
 */
export const usingYourTools = (tool: string) =>
  `Use ${tool} to plan and track work. Mark each task completed as soon as it's done; don't batch.`
