/**
 * @module dialects/claude-tasks/repairs
 * How Claude Code 2.1.332 repairs a malformed task-tool call before its schema sees it, and the
 * steering text it puts before the schema errors when it cannot (`coerceInput` and
 * `validationErrorSteer` of TaskCreate and TaskUpdate, read from the `claude` executable of
 * `@anthropic-ai/claude-agent-sdk-linux-x64@0.3.332`). TaskGet and TaskList repair nothing.
 */
import { isRecord } from '../json.js'

/** A non-blank string. */
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== ''

/** The call tried to write a list (`tasks` / `todos`), which TaskCreate does not take. */
const writesList = (input: Record<string, unknown>) => 'tasks' in input || 'todos' in input

/** The call carries the Agent tool's parameters. */
const agentParams = (input: Record<string, unknown>) =>
  'prompt' in input || 'subagent_type' in input

const TASK_CREATE_KEYS = new Set(['subject', 'description', 'activeForm', 'metadata'])

const TASK_CREATE_ALIASES: [readonly string[], string][] = [
  [['title', 'name'], 'subject'],
  [['content'], 'description'],
  [['active_form'], 'activeForm'],
]

// Claude Code's subject made from a description: 80 characters at most, cut at a word past 40.
const SUBJECT_MAX = 80
const SUBJECT_MIN_CUT = 40

/**
 * A subject from a description: the text on one line, at most 80 characters, cut at the last
 * space past the 40th when it must be cut.
 */
function subjectOf(description: string): string {
  const text = description.replace(/\s+/g, ' ').trim()
  const chars = Array.from(text)
  if (chars.length <= SUBJECT_MAX) return text
  const head = chars.slice(0, SUBJECT_MAX).join('')
  const space = head.lastIndexOf(' ')
  return (space > SUBJECT_MIN_CUT ? head.slice(0, space) : head).trim()
}

/**
 * TaskCreate's input repairs: a `task` wrapper unwrapped (a string becomes the description),
 * `title`/`name` → `subject`, `content` → `description`, `active_form` → `activeForm` (each only
 * when the target is absent and the value a non-blank string), a missing description filled with
 * the subject (or a missing subject made from the description), then, once both are there, every
 * other key stripped and a non-string `activeForm` or non-object `metadata` dropped. A call that
 * writes a list or carries Agent parameters is left alone, for the schema and the steering text.
 * @param input - the call's input
 */
export function repairTaskCreate(input: unknown): unknown {
  if (!isRecord(input) || writesList(input)) return input
  const out: Record<string, unknown> = { ...input }
  if (agentParams(out) && !(isText(out.subject) && isText(out.description))) return input
  if (!('subject' in out) && !('description' in out) && 'task' in out) {
    const task = out.task
    if (isText(task)) {
      delete out.task
      out.description = task
    } else if (isRecord(task)) {
      if (writesList(task)) return input
      if (agentParams(task) && !(isText(task.subject) && isText(task.description))) return input
      delete out.task
      Object.assign(out, task)
    } else {
      return input
    }
  }
  for (const [aliases, key] of TASK_CREATE_ALIASES) {
    for (const alias of aliases) {
      if (alias in out && !(key in out) && isText(out[alias])) {
        out[key] = out[alias]
        delete out[alias]
      }
    }
  }
  if (isText(out.subject) && !('description' in out)) out.description = out.subject
  else if (isText(out.description) && !('subject' in out)) out.subject = subjectOf(out.description)
  if (isText(out.subject) && isText(out.description)) {
    for (const key of Object.keys(out)) if (!TASK_CREATE_KEYS.has(key)) delete out[key]
    if ('activeForm' in out && typeof out.activeForm !== 'string') delete out.activeForm
    if ('metadata' in out && !isRecord(out.metadata)) delete out.metadata
  }
  return out
}

/**
 * The text Claude Code puts before TaskCreate's schema errors when the call wrote a list or
 * carried Agent parameters; undefined otherwise.
 * @param input - the call's input, as sent
 */
export function taskCreateSteer(input: unknown): string | undefined {
  if (!isRecord(input)) return undefined
  const task = isRecord(input.task) ? input.task : null
  if (writesList(input) || (task !== null && writesList(task))) {
    return 'TaskCreate creates ONE task per call and has no `tasks` or `todos` parameter. Call TaskCreate once per task, passing `subject` (a brief title) and `description` (what needs to be done) as top-level string parameters.'
  }
  if (
    (agentParams(input) || (task !== null && agentParams(task))) &&
    !(isText(input.subject) && isText(input.description))
  ) {
    return 'This call used Agent-tool parameters (`prompt`/`subagent_type`). TaskCreate adds an item to the task list and takes `subject` and `description` string parameters. To delegate work to a subagent, use the Agent tool instead.'
  }
  return undefined
}

const TASK_UPDATE_ALIASES: [readonly string[], string][] = [
  [['id', 'task_id'], 'taskId'],
  [['active_form'], 'activeForm'],
]

/**
 * TaskUpdate's input repairs: `id`/`task_id` → `taskId` and `active_form` → `activeForm` when
 * the target is absent and the value a non-blank string. Beyond the native, an optional field
 * sent as null is absent, as strict-mode callers mean it.
 * @param input - the call's input
 */
export function repairTaskUpdate(input: unknown): unknown {
  if (!isRecord(input)) return input
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (value !== null || key === 'taskId') out[key] = value
  }
  for (const [aliases, key] of TASK_UPDATE_ALIASES) {
    for (const alias of aliases) {
      if (alias in out && !(key in out) && isText(out[alias])) {
        out[key] = out[alias]
        delete out[alias]
      }
    }
  }
  return out
}
