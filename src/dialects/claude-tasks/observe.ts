/**
 * @module dialects/claude-tasks/observe
 * Claude Code's task tools, observed: each call's outcome is read from its result (the
 * `Task*Output` types of `sdk-tools.d.ts`, `@anthropic-ai/claude-code` 2.1.332) and applied as
 * Claude Code rebuilds its own list; a call is never run again here.
 *
 * - `TaskCreate`: the id is the agent's, found only in the result (`task.id`, else the text
 *   `Task #N created successfully`; telemetry, which carries no result, says `{numbered: true}`:
 *   the next id Claude gives, as it numbers a list's tasks in order of creation); subject and description as saved (`task.subject`,
 *   `task.description`, which a hook may have changed), the active form and metadata from the
 *   input. A create whose id cannot be read changes nothing: the service never invents one.
 * - `TaskUpdate`: the input repaired as Claude Code repairs it (`id`/`task_id` → `taskId`,
 *   `active_form` → `activeForm`), reduced to the fields the result says changed
 *   (`updatedFields`), the status from `statusChange.to`; then the dialect's own update (partial
 *   merge, metadata null-delete, `deleted` removes, blocks written on both sides). `success:
 *   false` (`Task not found`) changes nothing. An update of a task never seen creates it.
 * - `TaskList`: a full resync from `tasks` (subjects, statuses, owners, unresolved blockers); a
 *   list with an empty or repeated id is not one Claude wrote, and changes nothing.
 * - `TaskGet` reads; it changes nothing.
 */
import { makeItem, type Item } from '../../core/items.js'
import { claudeTasks } from './index.js'
import { parseStringified, repairKeys } from '../claude-shared.js'
import { isRecord } from '../json.js'
import type { DialectState } from '../types.js'
import {
  canonicalStatus,
  notApplied,
  type ObserveOutcome,
  type Observer,
} from '../observe/types.js'

const CREATED = /^Task #(\S+) created successfully/

/** TaskUpdate's `updatedFields` names → its input keys. */
const UPDATE_FIELDS: Record<string, string> = {
  subject: 'subject',
  description: 'description',
  activeForm: 'activeForm',
  owner: 'owner',
  metadata: 'metadata',
  status: 'status',
  blocks: 'addBlocks',
  blockedBy: 'addBlockedBy',
}

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)
/** A task id: an empty one names no task (Claude never assigns one). */
const taskIdOf = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

const highWaterMark = (data: Record<string, unknown>) =>
  typeof data.high_water_mark === 'number' ? data.high_water_mark : 0

/**
 * The id Claude gives the next task of a list: one past the highest it gave (its high-water mark,
 * or the highest numeric id listed). For a create whose result is not seen (telemetry's
 * `{numbered: true}`): tasks numbered in order of successful creation.
 */
function nextTaskId(state: DialectState): string {
  let highest = highWaterMark(state.data)
  for (const item of state.items) {
    const n = Number.parseInt(item.id, 10)
    if (!Number.isNaN(n) && n > highest) highest = n
  }
  return String(highest + 1)
}

/** Claude lists tasks by id; created tasks join in that order even when hooks arrive out of it. */
function insertById(items: readonly Item[], task: Item): Item[] {
  const n = Number.parseInt(task.id, 10)
  const at = Number.isNaN(n)
    ? -1
    : items.findIndex((item) => {
        const m = Number.parseInt(item.id, 10)
        return !Number.isNaN(m) && m > n
      })
  return at === -1 ? [...items, task] : [...items.slice(0, at), task, ...items.slice(at)]
}

function withMark(state: DialectState, id: string): Record<string, unknown> {
  const n = Number.parseInt(id, 10)
  const mark = highWaterMark(state.data)
  return Number.isNaN(n) || n <= mark ? state.data : { ...state.data, high_water_mark: n }
}

function observeCreate(
  input: unknown,
  structured: unknown,
  text: string | undefined,
  state: DialectState
): ObserveOutcome {
  const task = isRecord(structured) && isRecord(structured.task) ? structured.task : undefined
  const id =
    taskIdOf(task?.id) ??
    (text ? CREATED.exec(text)?.[1] : undefined) ??
    (isRecord(structured) && structured.numbered === true ? nextTaskId(state) : undefined)
  if (id === undefined) return notApplied('no task id in the result')
  // the aliases Claude Code's own observer repairs
  const raw = isRecord(input)
    ? repairKeys(input, {
        subject: ['title', 'name'],
        description: ['content'],
        activeForm: ['active_form'],
      })
    : {}
  const subject = str(task?.subject) ?? str(raw.subject) ?? str(raw.description) ?? `Task #${id}`
  const description = str(task?.description) ?? str(raw.description)
  const metadata = parseStringified(raw.metadata)
  const existing = state.items.find((item) => item.id === id)
  const created = makeItem({
    ...existing,
    id,
    content: subject,
    status: existing?.status ?? 'pending',
    description,
    active_form: str(raw.activeForm) ?? existing?.active_form,
    metadata: isRecord(metadata) ? metadata : existing?.metadata,
  })
  const items = existing
    ? state.items.map((item) => (item.id === id ? created : item))
    : insertById(state.items, created)
  return { applied: true, state: { items, data: withMark(state, id) } }
}

function observeUpdate(
  input: unknown,
  structured: unknown,
  text: string | undefined,
  state: DialectState
): ObserveOutcome {
  const reply = isRecord(structured) ? structured : undefined
  if (reply?.success === false) return notApplied(str(reply.error) ?? 'the update failed')
  if (!reply && text !== undefined && !text.startsWith('Updated task')) {
    return notApplied(text)
  }
  const repaired = isRecord(input)
    ? repairKeys(input, { taskId: ['task_id', 'id'], activeForm: ['active_form'] })
    : {}
  const taskId = taskIdOf(reply?.taskId) ?? taskIdOf(repaired.taskId)
  if (taskId === undefined) return notApplied('no task id')
  const fields = Array.isArray(reply?.updatedFields) ? (reply.updatedFields as unknown[]) : null
  const statusChange = isRecord(reply?.statusChange) ? reply.statusChange : undefined
  const deleted =
    statusChange?.to === 'deleted' ||
    (fields ? fields.includes('deleted') : repaired.status === 'deleted')
  const update: Record<string, unknown> = { taskId }
  if (deleted) {
    update.status = 'deleted'
  } else {
    for (const [field, key] of Object.entries(UPDATE_FIELDS)) {
      // what the result says changed; all the input says when there is no structured result
      if (fields && !fields.includes(field)) continue
      if (key in repaired) update[key] = repaired[key]
    }
    const to = canonicalStatus(statusChange?.to)
    if (to) update.status = to
  }
  let base = state
  if (!state.items.some((item) => item.id === taskId)) {
    if (deleted) return notApplied('the task is not in the list')
    const subject = str(repaired.subject) ?? `Task #${taskId}`
    base = {
      items: insertById(state.items, makeItem({ id: taskId, content: subject, status: 'pending' })),
      data: withMark(state, taskId),
    }
  }
  const outcome = claudeTasks.apply(base, 'TaskUpdate', update, {
    callsInRound: 1,
    indexInRound: 0,
  })
  if (outcome.result.is_error) return notApplied(outcome.result.content)
  return { applied: true, state: outcome.state }
}

function observeList(structured: unknown, state: DialectState): ObserveOutcome {
  const tasks = isRecord(structured) && Array.isArray(structured.tasks) ? structured.tasks : null
  if (!tasks) return notApplied('no tasks in the result')
  const before = new Map(state.items.map((item) => [item.id, item]))
  const listed = new Set<string>()
  const items: Item[] = []
  for (const task of tasks as unknown[]) {
    if (!isRecord(task) || !taskIdOf(task.id) || typeof task.subject !== 'string') {
      return notApplied('a task without id or subject')
    }
    const id = task.id as string
    // Claude lists each task file once: a repeated id is no list of its tools
    if (listed.has(id)) return notApplied(`duplicate task id '${id}'`)
    const old = before.get(id)
    const blockedBy = Array.isArray(task.blockedBy)
      ? task.blockedBy.filter((id): id is string => typeof id === 'string')
      : []
    // TaskList hides blockers that are completed: those edges stay as they were
    const kept = (old?.blocked_by ?? []).filter((id) => before.get(id)?.status === 'completed')
    listed.add(id)
    items.push(
      makeItem({
        ...old,
        id,
        content: task.subject,
        status: canonicalStatus(task.status) ?? old?.status ?? 'pending',
        owner: str(task.owner) ?? old?.owner,
        blocks: old?.blocks ?? [],
        blocked_by: [...new Set([...blockedBy, ...kept])],
      })
    )
  }
  // TaskList hides internal tasks: they stay
  for (const item of state.items) {
    if (!listed.has(item.id) && item.metadata?._internal) items.push(item)
  }
  const checked = claudeTasks.checkList(items)
  if (!checked.ok) return notApplied(checked.message)
  let data = state.data
  for (const item of checked.items) data = withMark({ items: [], data }, item.id)
  return { applied: true, state: { items: checked.items, data } }
}

/** The `claude-tasks` observer. */
export const claudeTasksObserver: Observer = {
  dialect: 'claude-tasks',
  tools: ['TaskCreate', 'TaskUpdate', 'TaskList', 'TaskGet'],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    switch (call.name) {
      case 'TaskCreate':
        return observeCreate(call.input, result.structured, result.text, state)
      case 'TaskUpdate':
        return observeUpdate(call.input, result.structured, result.text, state)
      case 'TaskList':
        return observeList(result.structured, state)
      default:
        return notApplied(`${call.name} changes nothing`)
    }
  },
}
