/**
 * @module dialects/claude-tasks/execute
 * What each task tool call does to the list and answers, as Claude Code 2.1.332 does it; the list
 * as TaskList renders it.
 */
import { z } from 'zod'
import { makeItem, type Item } from '../../core/items.js'
import { DEFAULT_LIST_LIMITS, jsonTooDeep, MAX_BODY_DEPTH } from '../../core/limits.js'
import {
  inputValidationError,
  operatorListRefusal,
  parseStringified,
  systemReminder,
} from '../claude-shared.js'
import { repairTaskCreate, repairTaskUpdate, taskCreateSteer } from './repairs.js'
import { isRecord } from '../json.js'
import type { CallContext, CallOutcome, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'
import {
  TaskCreateInput,
  TaskGetInput,
  TaskListInput,
  TaskRecord,
  TaskStatus,
  TaskUpdateInput,
  type TaskCreate,
  type TaskUpdate,
} from './schema.js'
import { NO_ID_LEFT, REMINDER, TASK_NOT_FOUND } from './texts.js'

/**
 * Per tool: the fields a model may send as JSON text, then Claude Code 2.1.332's own repairs
 * (`claude-tasks/repairs`; TaskGet repairs nothing, not even `task_id`).
 */
const REPAIRS: Record<string, { stringified: string[]; coerce?: (input: unknown) => unknown }> = {
  TaskCreate: { stringified: ['metadata'], coerce: repairTaskCreate },
  TaskGet: { stringified: [] },
  TaskUpdate: { stringified: ['addBlocks', 'addBlockedBy', 'metadata'], coerce: repairTaskUpdate },
  TaskList: { stringified: [] },
}

function repairInput(toolName: string, input: unknown): unknown {
  const repair = REPAIRS[toolName]
  if (!repair || !isRecord(input)) return input
  const out = { ...input }
  for (const key of repair.stringified) {
    if (key in out) out[key] = parseStringified(out[key])
  }
  return repair.coerce ? repair.coerce(out) : out
}

type Parsed<T> = { ok: true; value: T } | { ok: false; outcome: CallOutcome }

/** A field sent as a JSON string nested deeper than the body may be: refused, never dropped. */
function tooDeepString(toolName: string, input: unknown): string | undefined {
  if (!isRecord(input)) return undefined
  return REPAIRS[toolName]?.stringified.find((key) => {
    const value = input[key]
    return typeof value === 'string' && jsonTooDeep(value, MAX_BODY_DEPTH)
  })
}

function parseCall<T>(
  schema: z.ZodType<T>,
  state: DialectState,
  toolName: string,
  input: unknown
): Parsed<T> {
  const deep = tooDeepString(toolName, input)
  if (deep) {
    const message = `Error: Limit exceeded: ${deep} is nested more than ${MAX_BODY_DEPTH} levels deep; at most ${MAX_BODY_DEPTH} are allowed.`
    return { ok: false, outcome: refused(state, message) }
  }
  const parsed = schema.safeParse(repairInput(toolName, input))
  if (parsed.success) return { ok: true, value: parsed.data }
  const steer = toolName === 'TaskCreate' ? taskCreateSteer(input) : undefined
  return { ok: false, outcome: refused(state, inputValidationError(toolName, parsed.error, steer)) }
}

function done(state: DialectState, content: string, structured: unknown): CallOutcome {
  return { result: { is_error: false, content, structured }, state, dropped: [] }
}

function markOf(data: Record<string, unknown>): number {
  return typeof data.high_water_mark === 'number' ? data.high_water_mark : 0
}

/**
 * Claude Code's id rule: one past the highest id in use or ever assigned (parseInt semantics).
 * Past Number.MAX_SAFE_INTEGER, `highest + 1` would round to an id already issued: there is no
 * next id then (an operator's PUT cannot get there; a list stored before it was refused can).
 */
function nextTaskId(state: DialectState): number | null {
  let highest = markOf(state.data)
  for (const item of state.items) {
    const n = Number.parseInt(item.id, 10)
    if (!Number.isNaN(n) && n > highest) highest = n
  }
  return highest < Number.MAX_SAFE_INTEGER ? highest + 1 : null
}

function taskCreate(state: DialectState, input: TaskCreate): CallOutcome {
  const next = nextTaskId(state)
  if (next === null) return refused(state, NO_ID_LEFT)
  const id = String(next)
  const task = makeItem({
    id,
    content: input.subject,
    status: 'pending',
    description: input.description,
    active_form: input.activeForm,
    metadata: input.metadata,
  })
  return done(
    { items: [...state.items, task], data: { ...state.data, high_water_mark: next } },
    `Task #${id} created successfully: ${input.subject}`,
    { task: { id, subject: input.subject, description: input.description } }
  )
}

const refs = (ids: readonly string[]) => ids.map((id) => `#${id}`).join(', ')

function taskGet(state: DialectState, taskId: string): CallOutcome {
  const task = state.items.find((item) => item.id === taskId)
  if (!task) return done(state, TASK_NOT_FOUND, { task: null })
  // as the native: only the blockers not completed (a missing one still blocks)
  const blockedBy = task.blocked_by.filter(
    (id) => state.items.find((item) => item.id === id)?.status !== 'completed'
  )
  const lines = [
    `Task #${task.id}: ${task.content}`,
    `Status: ${task.status}`,
    `Description: ${task.description ?? ''}`,
  ]
  if (blockedBy.length > 0) lines.push(`Blocked by: ${refs(blockedBy)}`)
  if (task.blocks.length > 0) lines.push(`Blocks: ${refs(task.blocks)}`)
  return done(state, lines.join('\n'), {
    task: {
      id: task.id,
      subject: task.content,
      description: task.description ?? '',
      status: task.status,
      blocks: [...task.blocks],
      blockedBy,
    },
  })
}

/** The ids of an `addBlocks` / `addBlockedBy` list not already on the task, once each, in order. */
function newIds(ids: readonly string[] | undefined, present: readonly string[]): string[] {
  if (!ids || ids.length === 0) return []
  const seen = new Set(present)
  const out: string[] = []
  for (const id of ids) {
    if (seen.has(id)) continue
    seen.add(id)
    out.push(id)
  }
  return out
}

/**
 * Claude Code's `blockTask(from, to)` for each edge in order, in one pass over the list: written
 * on both tasks; skipped if either is missing.
 */
function blockTasks(items: Item[], edges: readonly [string, string][]): Item[] {
  const ids = new Set(items.map((item) => item.id))
  const blocks = new Map<string, string[]>()
  const blockedBy = new Map<string, string[]>()
  const add = (map: Map<string, string[]>, key: string, id: string) => {
    const list = map.get(key)
    if (list) list.push(id)
    else map.set(key, [id])
  }
  for (const [from, to] of edges) {
    if (!ids.has(from) || !ids.has(to)) continue
    add(blocks, from, to)
    add(blockedBy, to, from)
  }
  if (blocks.size === 0) return items
  const appended = (list: string[], extra: string[] | undefined) => {
    if (!extra) return list
    const seen = new Set(list)
    const out = [...list]
    for (const id of extra) {
      if (!seen.has(id)) {
        seen.add(id)
        out.push(id)
      }
    }
    return out.length === list.length ? list : out
  }
  return items.map((item) => {
    const moreBlocks = blocks.get(item.id)
    const moreBlockedBy = blockedBy.get(item.id)
    if (!moreBlocks && !moreBlockedBy) return item
    const next = {
      ...item,
      blocks: appended(item.blocks, moreBlocks),
      blocked_by: appended(item.blocked_by, moreBlockedBy),
    }
    return next.blocks === item.blocks && next.blocked_by === item.blocked_by ? item : next
  })
}

/**
 * A call naming more task ids in `addBlocks` or `addBlockedBy` than a list can hold: refused
 * before any work, whatever the ids (a list of duplicates too).
 */
function tooManyIds(input: TaskUpdate, cap: number): string | null {
  for (const field of ['addBlocks', 'addBlockedBy'] as const) {
    const ids = input[field]
    if (ids && ids.length > cap) {
      return `<tool_use_error>Error: Limit exceeded: ${field} names ${ids.length} task ids; at most ${cap} are allowed per call (MAX_ITEMS).</tool_use_error>`
    }
  }
  return null
}

function taskDelete(state: DialectState, existing: Item): CallOutcome {
  const taskId = existing.id
  const items = state.items
    .filter((item) => item.id !== taskId)
    .map((item) => ({
      ...item,
      blocks: item.blocks.filter((id) => id !== taskId),
      blocked_by: item.blocked_by.filter((id) => id !== taskId),
    }))
  const n = Number.parseInt(taskId, 10)
  const mark = Number.isNaN(n) ? markOf(state.data) : Math.max(markOf(state.data), n)
  return done(
    { items, data: { ...state.data, high_water_mark: mark } },
    `Updated task #${taskId} deleted`,
    {
      success: true,
      taskId,
      updatedFields: ['deleted'],
      statusChange: { from: existing.status, to: 'deleted' },
    }
  )
}

/** Claude Code's TaskUpdate, in its order: fields, metadata, status (or delete), then edges. */
function taskUpdate(state: DialectState, input: TaskUpdate): CallOutcome {
  const { taskId } = input
  const existing = state.items.find((item) => item.id === taskId)
  if (!existing) {
    // the native answers with a non-error result, so the model's sibling calls still run
    return done(state, TASK_NOT_FOUND, {
      success: false,
      taskId,
      updatedFields: [],
      error: TASK_NOT_FOUND,
    })
  }
  const updatedFields: string[] = []
  const updates: Partial<Item> = {}
  if (input.subject !== undefined && input.subject !== existing.content) {
    updates.content = input.subject
    updatedFields.push('subject')
  }
  if (input.description !== undefined && input.description !== (existing.description ?? '')) {
    updates.description = input.description
    updatedFields.push('description')
  }
  if (input.activeForm !== undefined && input.activeForm !== existing.active_form) {
    updates.active_form = input.activeForm
    updatedFields.push('activeForm')
  }
  if (input.owner !== undefined && input.owner !== existing.owner) {
    updates.owner = input.owner
    updatedFields.push('owner')
  }
  if (input.metadata !== undefined) {
    const merged: Record<string, unknown> = { ...existing.metadata }
    for (const [key, value] of Object.entries(input.metadata)) {
      if (value === null) delete merged[key]
      else merged[key] = value
    }
    updates.metadata = merged
    // as the native: listed whenever sent, even if the merge changed nothing
    updatedFields.push('metadata')
  }
  if (input.status === 'deleted') return taskDelete(state, existing)
  let statusChange: { from: TaskStatus; to: TaskStatus } | undefined
  if (input.status !== undefined && input.status !== existing.status) {
    updates.status = input.status
    statusChange = { from: existing.status as TaskStatus, to: input.status }
    updatedFields.push('status')
  }

  let items = state.items.map((item) => (item.id === taskId ? { ...item, ...updates } : item))
  const newBlocks = newIds(input.addBlocks, existing.blocks)
  if (newBlocks.length > 0) updatedFields.push('blocks')
  const newBlockedBy = newIds(input.addBlockedBy, existing.blocked_by)
  if (newBlockedBy.length > 0) updatedFields.push('blockedBy')
  const edges: [string, string][] = [
    ...newBlocks.map((id): [string, string] => [taskId, id]),
    ...newBlockedBy.map((id): [string, string] => [id, taskId]),
  ]
  if (edges.length > 0) items = blockTasks(items, edges)

  return done({ ...state, items }, `Updated task #${taskId} ${updatedFields.join(', ')}`, {
    success: true,
    taskId,
    updatedFields,
    ...(statusChange ? { statusChange } : {}),
  })
}

/** TaskList's view: internal tasks hidden, and only unresolved blockers. */
function listedTasks(items: readonly Item[]) {
  const visible = items.filter((item) => !item.metadata?._internal)
  const resolved = new Set(visible.filter((t) => t.status === 'completed').map((t) => t.id))
  return visible.map((task) => ({
    id: task.id,
    subject: task.content,
    status: task.status,
    ...(task.owner !== undefined ? { owner: task.owner } : {}),
    blockedBy: task.blocked_by.filter((id) => !resolved.has(id)),
  }))
}

/**
 * TaskList's text: `#{id} [{status}] {subject}`, then ` ({owner})` and
 * ` [blocked by #1, #2]` when there are any; `No tasks found` when empty.
 * @param items - the list
 */
export function renderTaskList(items: readonly Item[]): string {
  const tasks = listedTasks(items)
  if (tasks.length === 0) return 'No tasks found'
  return tasks
    .map((task) => {
      const owner = task.owner ? ` (${task.owner})` : ''
      const blocked = task.blockedBy.length > 0 ? ` [blocked by ${refs(task.blockedBy)}]` : ''
      return `#${task.id} [${task.status}] ${task.subject}${owner}${blocked}`
    })
    .join('\n')
}

function taskList(state: DialectState): CallOutcome {
  return done(state, renderTaskList(state.items), { tasks: listedTasks(state.items) })
}

/**
 * Claude Code's `task_reminder` attachment: the nag plus one `#{id}. [{status}] {subject}` line
 * per task, inside `<system-reminder>`.
 * @param items - the current list
 */
export function taskReminder(items: readonly Item[]): string {
  const list = items.map((item) => `#${item.id}. [${item.status}] ${item.content}`).join('\n')
  return systemReminder(
    list.length > 0 ? `${REMINDER}\n\nHere are the existing tasks:\n\n${list}` : REMINDER
  )
}

/** The dialect's `apply`: one call checked, applied to the list, answered as the native does. */
export function applyTask(
  state: DialectState,
  toolName: string,
  input: unknown,
  ctx?: CallContext
): CallOutcome {
  switch (toolName) {
    case 'TaskCreate': {
      const call = parseCall(TaskCreateInput, state, toolName, input)
      return call.ok ? taskCreate(state, call.value) : call.outcome
    }
    case 'TaskGet': {
      const call = parseCall(TaskGetInput, state, toolName, input)
      return call.ok ? taskGet(state, call.value.taskId) : call.outcome
    }
    case 'TaskUpdate': {
      const call = parseCall(TaskUpdateInput, state, toolName, input)
      if (!call.ok) return call.outcome
      const overCap = tooManyIds(call.value, ctx?.maxItems ?? DEFAULT_LIST_LIMITS.maxItems)
      return overCap ? refused(state, overCap) : taskUpdate(state, call.value)
    }
    case 'TaskList': {
      const call = parseCall(TaskListInput, state, toolName, input)
      return call.ok ? taskList(state) : call.outcome
    }
    default: {
      return refused(
        state,
        `<tool_use_error>Error: No such tool available: ${toolName}</tool_use_error>`
      )
    }
  }
}

/** Keeps edges between tasks of the list only, and writes each on both ends as blockTask does. */
function normaliseEdges(items: readonly Item[]): Item[] {
  const ids = new Set(items.map((item) => item.id))
  const blocks = new Map<string, string[]>()
  const blockedBy = new Map<string, string[]>()
  for (const item of items) {
    blocks.set(item.id, [])
    blockedBy.set(item.id, [])
  }
  const link = (from: string, to: string) => {
    if (!ids.has(from) || !ids.has(to)) return
    const out = blocks.get(from)!
    if (!out.includes(to)) out.push(to)
    const into = blockedBy.get(to)!
    if (!into.includes(from)) into.push(from)
  }
  for (const item of items) {
    for (const to of item.blocks) link(item.id, to)
    for (const from of item.blocked_by) link(from, item.id)
  }
  return items.map((item) => ({
    ...item,
    blocks: blocks.get(item.id)!,
    blocked_by: blockedBy.get(item.id)!,
  }))
}

/** The dialect's `checkList`: an operator's canonical list checked against the native's rules. */
export function checkList(items: readonly Item[]): ListCheck {
  const records = items.map((item) => ({ id: item.id, subject: item.content, status: item.status }))
  const refusal = operatorListRefusal('task', TaskRecord, records, items)
  if (refusal !== undefined) return { ok: false, message: refusal }
  const unsafe = items.find((item) => Number.parseInt(item.id, 10) > Number.MAX_SAFE_INTEGER)
  if (unsafe) {
    return {
      ok: false,
      message: `Task id '${unsafe.id}' is beyond ${Number.MAX_SAFE_INTEGER}, the largest exact integer: new task ids could no longer be told apart.`,
    }
  }
  return { ok: true, items: normaliseEdges(items) }
}
