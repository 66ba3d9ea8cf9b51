/**
 * @module dialects/openhands-tracker
 * OpenHands' `task_tracker` tool as the released V1 software agent SDK (main, Nov 2026) ships it
 * (`OpenHands/software-agent-sdk`: `openhands-tools/openhands/tools/task_tracker/definition.py`
 * and its `templates/tool_description.j2`). The released tool's tasks carry no `id`: stable task
 * ids exist only in the unmerged PR #4470.
 *
 * - Input `{summary?, command?: 'view' | 'plan' = 'view', task_list?: [{title, notes?,
 *   status?}]}`; `plan` replaces the list, `view` shows it. Statuses map both ways: todo ↔
 *   pending, in_progress ↔ in_progress, done ↔ completed (canonical cancelled and blocked have no
 *   equivalent and are refused on PUT). `summary` is the field the SDK adds to every tool's
 *   schema (`_create_action_type_with_summary`) and pops before the tool runs.
 * - The SDK's argument handling, in order: keys whose value is null dropped, `security_risk` and
 *   `summary` (harness fields) removed, a `task_list` sent as a JSON string decoded
 *   (`fix_malformed_tool_arguments`), then pydantic validation (extra keys of the action
 *   forbidden; a task's extra keys, a sent `id` among them, ignored). A failure reads
 *   `Error validating tool 'task_tracker': {ValidationError}. Parameters provided: [...]`.
 *   A task's `notes` or `status` sent as null counts as absent (strict-mode callers send null).
 * - Ids stay internal: the tool has none, so each item gets a stable id here (matched by
 *   content, then position, else a fresh counter id) for history and monitors only.
 * - Results: `Task list has been updated with N item(s).`; `view` → `# Task List` with
 *   `N. ⏳|🔄|✅ title` and indented notes; empty → `No task list found. Use the "plan"
 *   command to create one.` `structured` is the observation's `{command, task_list}` (tasks as
 *   `{title, notes, status}`).
 * - Render: the `view` text.
 * - Reminder: the service's own (OpenHands has none; s03's counter): after 3 rounds without
 *   `task_tracker`, `<reminder>Update your task list with task_tracker.</reminder>` every round.
 */
import { z } from 'zod'
import type { Item, Status } from '../../core/items.js'
import { isRecord, parseJsonText } from '../json.js'
import { rewriteList } from '../list-rewrite.js'
import {
  literalMessage,
  pydanticErrorText,
  pyJsonError,
  pyRepr,
  pyStrip,
  type PydanticError,
} from '../native/python.js'
import type { CallOutcome, Dialect, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'

const TRACKER_STATUSES = ['todo', 'in_progress', 'done'] as const
const COMMANDS = ['view', 'plan'] as const

type TrackerStatus = (typeof TRACKER_STATUSES)[number]

/** One task as the SDK's `TaskItem` holds it. */
export interface TaskItem {
  title: string
  notes: string
  status: TrackerStatus
}

/** The tracker's statuses in canonical terms. */
export const TO_CANONICAL: Record<TrackerStatus, Status> = {
  todo: 'pending',
  in_progress: 'in_progress',
  done: 'completed',
}

const FROM_CANONICAL: Partial<Record<Status, TrackerStatus>> = {
  pending: 'todo',
  in_progress: 'in_progress',
  completed: 'done',
}

const ICONS: Record<TrackerStatus, string> = { todo: '⏳', in_progress: '🔄', done: '✅' }

const NO_TASK_LIST = 'No task list found. Use the "plan" command to create one.'

const DESCRIPTION = `This tool provides structured task management capabilities for development workflows.
It enables systematic tracking of work items, progress monitoring, and efficient
organization of complex development activities.

The tool maintains visibility into project status and helps communicate
progress effectively to users.

## Application Guidelines

Utilize this tool in the following situations:

1. Multi-phase development work - When projects involve multiple sequential or
   parallel activities
2. Complex implementation tasks - Work requiring systematic planning and
   coordination across multiple components
3. Explicit user request for task organization - When users specifically ask
   for structured task management
4. Multiple concurrent requirements - When users present several work items
   that need coordination
5. Project initiation - Capture and organize user requirements at project start
6. Work commencement - Update task status to in_progress before beginning
   implementation. Maintain focus by limiting active work to one task
7. Task completion - Update status to done and identify any additional work
   that emerged during implementation

## Situations Where Tool Usage Is Unnecessary

Avoid using this tool when:

1. Single atomic tasks that require no decomposition
2. Trivial operations where tracking adds no organizational value
3. Simple activities completable in minimal steps
4. Pure information exchange or discussion

Note: For single straightforward tasks, proceed with direct implementation
rather than creating tracking overhead.

## Usage Scenarios

**Scenario A: Feature Development with Validation**
User request: "Build a user authentication system with login/logout functionality.
Don't forget to include input validation and error handling!"

Response approach: I'll implement a user authentication system with comprehensive
validation. Let me organize this work systematically.

*Task breakdown includes:*
1. Design authentication API endpoints and data models
2. Implement user login/logout controllers with session management
3. Add client-side form validation and error display
4. Create backend input sanitization and security checks
5. Implement comprehensive error handling for edge cases
6. Perform integration testing and fix any issues

**Scenario B: Codebase Refactoring**
User request: "I need to update all instances of the method 'fetchData' to
'retrieveInformation' throughout the entire project"

Response approach: Let me first analyze your codebase to identify all locations
where 'fetchData' appears.

*After code analysis*

I've located 12 occurrences of 'fetchData' across 6 files in your project.
I'll create a systematic plan to update these references.

*Organized task list includes specific file-by-file updates*

**Scenario C: Multi-feature Development**
User request: "Set up a blog platform with these components: admin dashboard,
article management, comment system, and user profiles."

Response approach: I'll help build your blog platform. Let me break down these
components into manageable implementation phases.

*Creates structured plan with each feature decomposed into specific development tasks*

## Counter-examples - Direct Implementation Preferred

**Counter-example A: Simple inquiry**
User request: "What's the syntax for a for loop in JavaScript?"

Response approach: Here's how to write a for loop in JavaScript:

\`\`\`javascript
for (let i = 0; i < array.length; i++) {
    console.log(array[i]);
}
\`\`\`

*No task tracking needed - single informational response*

**Counter-example B: Minor modification**
User request: "Please add a docstring to the processPayment function explaining
its parameters."

Response approach: I'll add a docstring to explain the processPayment function.

*Direct edit without task tracking for simple modification*

## Status Management and Workflow

1. **Status Values**: Track work using these states:
   - todo: Not yet initiated
   - in_progress: Currently active (maintain single focus)
   - done: Successfully completed

2. **Workflow Practices**:
   - Update status dynamically as work progresses
   - Mark completion immediately upon task finish
   - Limit active work to ONE task at any given time
   - Complete current activities before initiating new ones
   - Remove obsolete tasks from tracking entirely

3. **Completion Criteria**:
   - Mark tasks as done only when fully achieved
   - Keep status as in_progress if errors, blocks, or partial completion exist
   - Create new tasks for discovered issues or dependencies
   - Never mark done when:
       - Test suites are failing
       - Implementation remains incomplete
       - Unresolved errors persist
       - Required resources are unavailable

4. **Task Organization**:
   - Write precise, actionable descriptions
   - Decompose complex work into manageable units
   - Use descriptive, clear naming conventions

When uncertain, favor using this tool. Proactive task management demonstrates
systematic approach and ensures comprehensive requirement fulfillment.`

/**
 * The advertised input schema of `task_tracker`, as the SDK's `to_openai_tool()` renders
 * `TaskTrackerAction` with the `summary` it adds to every tool (first, by
 * `_prioritize_schema_fields`; defaults dropped, no `additionalProperties`, the docstring as
 * description). `security_risk` is added only when the agent predicts risks, and is left out.
 */
export const TaskTrackerInput = z
  .object({
    summary: z
      .string()
      .describe(
        "A concise summary (approximately 10 words) describing what this specific action does. Focus on the key operation and target. Example: 'List all Python files in current directory'"
      )
      .optional(),
    command: z
      .enum(COMMANDS)
      .describe(
        'The command to execute. `view` shows the current task list. `plan` creates or updates the task list based on provided requirements and progress. Always `view` the current list before making changes.'
      )
      .optional(),
    task_list: z
      .array(
        z.object({
          title: z.string().describe('A brief title for the task.'),
          notes: z.string().describe('Additional details or notes about the task.').optional(),
          status: z
            .enum(TRACKER_STATUSES)
            .describe("The current status of the task. One of 'todo', 'in_progress', or 'done'.")
            .optional(),
        })
      )
      .describe('The full task list. Required parameter of `plan` command.')
      .optional(),
  })
  .describe('An action where the agent writes or updates a task list for task management.')

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

function applyTaskTracker(state: DialectState, input: unknown): CallOutcome {
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

function checkList(items: readonly Item[]): ListCheck {
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

/** Python's json escapes of the control characters that have a short form. */
const SHORT_ESCAPES: Record<string, string> = {
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
}

/** The `openhands-tracker` dialect. */
export const openhandsTracker: Dialect = {
  name: 'openhands-tracker',
  description:
    "OpenHands' `task_tracker` tool, released V1 software agent SDK (command view/plan, task_list [{title, notes, status}], status todo/in_progress/done).",
  tools: [{ name: 'task_tracker', description: DESCRIPTION, input: TaskTrackerInput }],
  reminder: { afterRounds: 3, repeatEvery: 1 },
  reminderText: () => '<reminder>Update your task list with task_tracker.</reminder>',
  apply: (state, _toolName, input) => applyTaskTracker(state, input),
  argumentsError: (_toolName, raw) => {
    // the SDK retries json.loads with raw control characters escaped before it gives up
    const escaped = raw.replace(
      // eslint-disable-next-line no-control-regex -- the control characters are what it escapes
      /[\u0000-\u001f]/g,
      (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
    )
    const error =
      pyJsonError(escaped) ?? pyJsonError(raw) ?? 'Expecting value: line 1 column 1 (char 0)'
    return `Error validating tool 'task_tracker': ${error}. Arguments: unparseable JSON`
  },
  render: renderTaskList,
  checkList,
}
