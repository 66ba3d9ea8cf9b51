/**
 * @module dialects/gemini-tracker
 * Gemini CLI 0.61.0's experimental task tracker (`experimental.taskTracker: true`, which replaces
 * `write_todos` with the `tracker_*` tools), observed only: the tracker keeps its tasks in Gemini's
 * own store and gives them ids (6 hex characters, `randomBytes(3)`) that exist only in its results
 * (`Created task 02498b: …`). The service never runs these tools for a model (a round calling one
 * gets an `is_error` result): it mirrors what the agent's tracker did (`observe.ts`), from the
 * results its hooks (`AfterTool`) and its telemetry (`tool_call` spans) carry.
 *
 * - Items: id the tracker's, content its title, `description` its own, statuses open → pending,
 *   in_progress, blocked (kept), closed → completed; `blocked_by` its dependencies and `blocks`
 *   their inverse; `metadata` `{type}` (epic, task, bug) and `parent_id` when it has a parent.
 * - Render: the tracker's own listing, `- [id] title (status)` a line; no reminder of its own.
 */
import type { Item, Status } from '../../core/items.js'
import { refused } from '../outcome.js'
import type { Dialect, ListCheck } from '../types.js'
import {
  AddDependencyInput,
  CreateTaskInput,
  GetTaskInput,
  ListTasksInput,
  UpdateTaskInput,
  VisualizeInput,
  type TrackerStatus,
} from './schema.js'

export { TRACKER_STATUSES, type TrackerStatus } from './schema.js'

/** The tracker's statuses as the service's. */
export const TO_STATUS: Readonly<Record<TrackerStatus, Status>> = {
  open: 'pending',
  in_progress: 'in_progress',
  blocked: 'blocked',
  closed: 'completed',
}

/** The service's statuses as the tracker's (it has no cancelled: a task is closed). */
const TO_TRACKER: Readonly<Record<Status, TrackerStatus>> = {
  pending: 'open',
  in_progress: 'in_progress',
  blocked: 'blocked',
  completed: 'closed',
  cancelled: 'closed',
}

/** What the tracker answers a listing that finds nothing. */
export const NO_TASKS = 'No tasks found matching the criteria.'

const OBSERVED_ONLY =
  "Error: gemini-tracker is observed only: the service never runs Gemini CLI's task tracker. Gemini CLI runs its own tracker_* tools; post its hooks to /v1/ingest/gemini-cli or its telemetry to /v1/otlp."

/**
 * The tracker's listing of tasks (`tracker_list_tasks`): `- [id] title (status)` a line.
 * @param items - the list
 */
export function renderTasks(items: readonly Item[]): string {
  if (items.length === 0) return NO_TASKS
  return items
    .map((item) => `- [${item.id}] ${item.content} (${TO_TRACKER[item.status]})`)
    .join('\n')
}

function checkList(items: readonly Item[]): ListCheck {
  for (const item of items) {
    if (item.status === 'cancelled') {
      return {
        ok: false,
        message: `Gemini's tracker has no cancelled status: close the task instead (item '${item.id}').`,
      }
    }
  }
  return { ok: true, items: items.map((item) => ({ ...item })) }
}

/** The `gemini-tracker` dialect (observed only). */
export const geminiTracker: Dialect = {
  name: 'gemini-tracker',
  description:
    "Gemini CLI's experimental task tracker: tracker_create_task, tracker_update_task, tracker_get_task, tracker_list_tasks, tracker_add_dependency, tracker_visualize, with ids the tracker gives (observed only; never executed here).",
  tools: [
    {
      name: 'tracker_create_task',
      description: 'Creates a new task in the tracker.',
      input: CreateTaskInput,
    },
    {
      name: 'tracker_update_task',
      description: 'Updates an existing task in the tracker.',
      input: UpdateTaskInput,
    },
    // the next descriptions are not verified against the native's texts
    { name: 'tracker_get_task', description: 'Gets a task from the tracker.', input: GetTaskInput },
    {
      name: 'tracker_list_tasks',
      description: 'Lists tasks in the tracker, optionally filtered by status, type, or parent.',
      input: ListTasksInput,
    },
    {
      name: 'tracker_add_dependency',
      description: 'Makes a task depend on another.',
      input: AddDependencyInput,
    },
    {
      name: 'tracker_visualize',
      description: 'Shows the tracker as a graph.',
      input: VisualizeInput,
    },
  ],
  // rounds are refused, so no round ever makes the reminder due
  reminder: { afterRounds: Number.MAX_SAFE_INTEGER, repeatEvery: 1 },
  reminderText: () => '',
  apply: (state) => refused(state, OBSERVED_ONLY),
  argumentsError: () => OBSERVED_ONLY,
  render: renderTasks,
  checkList,
}
