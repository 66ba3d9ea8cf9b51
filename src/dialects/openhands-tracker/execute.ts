/**
 * @module dialects/openhands-tracker/execute
 * How a task_tracker call reads its arguments as OpenHands does, changes the list and answers; the
 * list as the tool renders it.
 */
import type { Item } from '../../core/items.js'
import { isRecord, parseJsonText } from '../json.js'
import { rewriteList } from '../list-rewrite.js'
import {
  literalMessage,
  pydanticErrorText,
  pyRepr,
  pyStrip,
  type PydanticError,
} from '../native/python.js'
import type { CallOutcome, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'
import {
  COMMANDS,
  FROM_CANONICAL,
  TO_CANONICAL,
  TRACKER_STATUSES,
  type TaskItem,
  type TrackerStatus,
} from './schema.js'
import { ICONS, NO_TASK_LIST } from './texts.js'

/** Escapes raw control characters inside string literals, which `strict=False` tolerates. */
function escapeControlInStrings(text: string): string {
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString && c === '\\') {
      out += c + (text[i + 1] ?? '')
      i++
    } else if (c === '"') {
      inString = !inString
      out += c
    } else if (inString && c < ' ') {
      out += `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
    } else {
      out += c
    }
  }
  return out
}

/**
 * `json.loads(value, strict=False)` kept only when it yields a list or dict, then the SDK's
 * retries cut after the last `}` or `]` (trailing garbage); undefined leaves the string as is.
 */
function decodeJsonCollection(value: string): unknown {
  const loads = (text: string): unknown => {
    try {
      const parsed: unknown = parseJsonText(escapeControlInStrings(text))
      return typeof parsed === 'object' && parsed !== null ? parsed : undefined
    } catch {
      return undefined
    }
  }
  const whole = loads(value)
  if (whole !== undefined) return whole
  for (const end of ['}', ']']) {
    const idx = value.lastIndexOf(end)
    if (idx === -1) continue
    const cut = loads(value.slice(0, idx + 1))
    if (cut !== undefined) return cut
  }
  return undefined
}

/** The SDK's argument normalisation before validation (`_normalize_arguments` and friends). */
function normaliseArguments(input: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = {}
  if (!isRecord(input)) return args
  for (const [key, value] of Object.entries(input)) {
    if (value !== null) args[key] = value
  }
  if (typeof args.task_list === 'string') {
    const decoded = decodeJsonCollection(args.task_list)
    if (decoded !== undefined) args.task_list = decoded
  }
  delete args.security_risk
  delete args.summary
  return args
}

/** pydantic's validation of `TaskTrackerAction` (extra forbidden) and its `TaskItem`s. */
function validateAction(
  args: Record<string, unknown>
):
  | { ok: true; command: 'view' | 'plan'; taskList: TaskItem[] }
  | { ok: false; errors: PydanticError[] } {
  const errors: PydanticError[] = []
  const command = args.command ?? 'view'
  if (Object.hasOwn(args, 'command') && !(COMMANDS as readonly unknown[]).includes(command)) {
    errors.push({
      type: 'literal_error',
      loc: ['command'],
      msg: literalMessage(COMMANDS),
      input: command,
    })
  }
  const taskList: TaskItem[] = []
  const rawList = args.task_list ?? []
  if (!Array.isArray(rawList)) {
    errors.push({
      type: 'list_type',
      loc: ['task_list'],
      msg: 'Input should be a valid list',
      input: rawList,
    })
  } else {
    rawList.forEach((raw: unknown, i) => {
      if (!isRecord(raw)) {
        errors.push({
          type: 'model_type',
          loc: ['task_list', i],
          msg: 'Input should be a valid dictionary or instance of TaskItem',
          input: raw,
        })
        return
      }
      // a null notes or status is absent (the default applies), as strict-mode callers mean it
      const entry = Object.fromEntries(
        Object.entries(raw).filter(([key, value]) => value !== null || key === 'title')
      )
      const stringField = (name: string) => {
        if (Object.hasOwn(entry, name) && typeof entry[name] !== 'string') {
          errors.push({
            type: 'string_type',
            loc: ['task_list', i, name],
            msg: 'Input should be a valid string',
            input: entry[name],
          })
        }
      }
      if (!Object.hasOwn(entry, 'title')) {
        errors.push({
          type: 'missing',
          loc: ['task_list', i, 'title'],
          msg: 'Field required',
          input: raw,
        })
      } else {
        stringField('title')
      }
      stringField('notes')
      const status = Object.hasOwn(entry, 'status') ? entry.status : 'todo'
      if (!(TRACKER_STATUSES as readonly unknown[]).includes(status)) {
        errors.push({
          type: 'literal_error',
          loc: ['task_list', i, 'status'],
          msg: literalMessage(TRACKER_STATUSES),
          input: entry.status,
        })
      }
      taskList.push({
        title: entry.title as string,
        notes: typeof entry.notes === 'string' ? entry.notes : '',
        status: status as TrackerStatus,
      })
    })
  }
  for (const [key, value] of Object.entries(args)) {
    if (key === 'command' || key === 'task_list') continue
    errors.push({
      type: 'extra_forbidden',
      loc: [key],
      msg: 'Extra inputs are not permitted',
      input: value,
    })
  }
  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, command: command as 'view' | 'plan', taskList }
}

/**
 * Parses a `task_tracker` call as the SDK's agent does: the action, or the error text the model
 * reads.
 * @param input - the call's arguments
 */
export function parseTaskTracker(
  input: unknown
): { ok: true; command: 'view' | 'plan'; taskList: TaskItem[] } | { ok: false; message: string } {
  const args = normaliseArguments(input)
  const validated = validateAction(args)
  if (validated.ok) return validated
  const text = pydanticErrorText('TaskTrackerAction', validated.errors)
  return {
    ok: false,
    message: `Error validating tool 'task_tracker': ${text}. Parameters provided: ${pyRepr(Object.keys(args))}`,
  }
}

/** Canonical items as the tracker's `TaskItem`s (the ids stay internal). */
function toTaskItems(items: readonly Item[]): TaskItem[] {
  return items.map((item) => ({
    title: item.content,
    notes: item.notes ?? '',
    status: FROM_CANONICAL[item.status] ?? 'todo',
  }))
}

/**
 * `TaskTrackerExecutor._format_task_list` for a non-empty list; the SDK's "no task list" text
 * for an empty one (what `view` answers).
 * @param items - the list
 */
export function renderTaskList(items: readonly Item[]): string {
  if (items.length === 0) return NO_TASK_LIST
  let content = '# Task List\n\n'
  toTaskItems(items).forEach((task, i) => {
    content += `${i + 1}. ${ICONS[task.status]} ${task.title}\n`
    if (task.notes) content += `   ${task.notes}\n`
    content += '\n'
  })
  return pyStrip(content)
}

/** The dialect's `apply`: one call checked, applied to the list, answered as the native does. */
export function applyTaskTracker(state: DialectState, input: unknown): CallOutcome {
  const parsed = parseTaskTracker(input)
  if (!parsed.ok) return refused(state, parsed.message)
  if (parsed.command === 'view') {
    return {
      result: {
        is_error: false,
        content: renderTaskList(state.items),
        structured: { command: 'view', task_list: toTaskItems(state.items) },
      },
      state,
      dropped: [],
    }
  }
  const next = rewriteList(
    state,
    parsed.taskList.map((task) => ({
      content: task.title,
      status: TO_CANONICAL[task.status],
      notes: task.notes === '' ? undefined : task.notes,
    }))
  )
  return {
    result: {
      is_error: false,
      content: `Task list has been updated with ${parsed.taskList.length} item(s).`,
      structured: { command: 'plan', task_list: toTaskItems(next.state.items) },
    },
    state: next.state,
    dropped: next.dropped,
  }
}

/** The dialect's `checkList`: an operator's canonical list checked against the native's rules. */
export function checkList(items: readonly Item[]): ListCheck {
  const parsed = parseTaskTracker({
    command: 'plan',
    task_list: items.map((item) => ({
      title: item.content,
      notes: item.notes ?? '',
      status: FROM_CANONICAL[item.status] ?? item.status,
    })),
  })
  if (!parsed.ok) return parsed
  return { ok: true, items: items.map((item) => ({ ...item })) }
}
