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
import { pyJsonError } from '../native/python.js'
import { oneToolDialect } from '../one-tool.js'
import { DESCRIPTION } from './texts.js'
import { TaskTrackerInput } from './schema.js'
import { applyTaskTracker, checkList, renderTaskList } from './execute.js'
export { type TaskItem, TO_CANONICAL, TaskTrackerInput } from './schema.js'
export { parseTaskTracker, renderTaskList } from './execute.js'

/** Python's json escapes of the control characters that have a short form. */
const SHORT_ESCAPES: Record<string, string> = {
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
}

/** The `openhands-tracker` dialect. */
export const openhandsTracker = oneToolDialect({
  name: 'openhands-tracker',
  description:
    "OpenHands' `task_tracker` tool, released V1 software agent SDK (command view/plan, task_list [{title, notes, status}], status todo/in_progress/done).",
  tool: { name: 'task_tracker', description: DESCRIPTION, input: TaskTrackerInput },
  reminds: 'task list',
  write: applyTaskTracker,
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
})
