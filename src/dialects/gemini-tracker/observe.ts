/**
 * @module dialects/gemini-tracker/observe
 * Gemini CLI's task tracker, observed: each call's outcome is read from the text its tool
 * answered (reference/dialects.md section 4; the capture reference/otel/gemini-cli-0.61.0/tracker)
 * and applied as the tracker applied it; a call is never run again here, and an id is never made
 * up: the tracker's ids exist only in its results.
 *
 * - `tracker_create_task`: the id from `Created task <id>: <title>` (no id, nothing changes); the
 *   title, description, type, parent and dependencies from the input; a new task is open.
 * - `tracker_update_task`: only when the result says `Updated task <id>.` (`Task <id> not
 *   found.`, a refused close, a cycle change nothing); the status the result names (`Status:
 *   <status>`), else the input's; title, description, and `dependencies`, which replace the
 *   task's. An update of a task never seen adds it (its title, else `Task <id>`).
 * - `tracker_add_dependency`: `Linked <task> -> <dependency>.` adds the edge.
 * - `tracker_list_tasks`: its lines `- [<id>] <title> (<status>)` (or `No tasks found matching
 *   the criteria.`): without a filter the whole tracker, so the list is resynced to it (descriptions,
 *   types and dependencies kept from before); with one, the tasks listed are updated and added.
 * - `tracker_get_task` and `tracker_visualize` read; they change nothing.
 */
import { makeItem, type Item } from '../../core/items.js'
import { isRecord } from '../json.js'
import { notApplied, type ObserveOutcome, type Observer } from '../observe/types.js'
import type { DialectState } from '../types.js'
import { NO_TASKS, TO_STATUS, TRACKER_STATUSES, type TrackerStatus } from './index.js'

const CREATED = /^Created task ([^\s:]+): /
const UPDATED = /^Updated task ([^\s.]+)\.(?: Status: (\w+))?/
const LINKED = /^Linked (\S+) -> (\S+?)\.?$/
const LISTED = /^\s*- \[([^\]\s]+)\] (.*) \((\w+)\)$/

const str = (value: unknown) => (typeof value === 'string' ? value : undefined)
const id = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)
const statusOf = (value: unknown) =>
  (TRACKER_STATUSES as readonly unknown[]).includes(value)
    ? TO_STATUS[value as TrackerStatus]
    : undefined

/** Task ids of an input's `dependencies`, once each, never the task itself. */
function dependencies(value: unknown, self: string): string[] | undefined {
  if (!Array.isArray(value)) return undefined
  const ids = value.filter((dep): dep is string => typeof dep === 'string' && dep !== '')
  return [...new Set(ids)].filter((dep) => dep !== self)
}

/** The list with every `blocks` the inverse of the `blocked_by` edges. */
function linked(items: readonly Item[]): Item[] {
  const blocks = new Map<string, string[]>()
  for (const item of items) {
    for (const dep of item.blocked_by) blocks.set(dep, [...(blocks.get(dep) ?? []), item.id])
  }
  return items.map((item) => ({ ...item, blocks: blocks.get(item.id) ?? [] }))
}

const done = (state: DialectState, items: Item[]): ObserveOutcome => ({
  applied: true,
  state: { items: linked(items), data: state.data },
})

/** The list with `item` in place of the task of its id, or added at the end. */
function put(items: readonly Item[], item: Item): Item[] {
  const at = items.findIndex((one) => one.id === item.id)
  return at === -1 ? [...items, item] : items.map((one, i) => (i === at ? item : one))
}

function create(input: Record<string, unknown>, text: string, state: DialectState) {
  const taskId = CREATED.exec(text)?.[1]
  if (taskId === undefined) return notApplied('no task id in the result')
  const existing = state.items.find((item) => item.id === taskId)
  const type = str(input.type)
  const parent = id(input.parentId)
  const metadata = {
    ...existing?.metadata,
    ...(type === undefined ? {} : { type }),
    ...(parent === undefined ? {} : { parent_id: parent }),
  }
  const task = makeItem({
    ...existing,
    id: taskId,
    content: str(input.title) ?? existing?.content ?? text.slice(text.indexOf(': ') + 2),
    status: existing?.status ?? 'pending',
    description: str(input.description) ?? existing?.description,
    blocked_by: dependencies(input.dependencies, taskId) ?? existing?.blocked_by ?? [],
    metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
  })
  return done(state, put(state.items, task))
}

function update(input: Record<string, unknown>, text: string | undefined, state: DialectState) {
  const said = text === undefined ? undefined : UPDATED.exec(text)
  if (text !== undefined && !said) return notApplied(text)
  const taskId = id(said?.[1]) ?? id(input.id)
  if (taskId === undefined) return notApplied('no task id')
  const existing = state.items.find((item) => item.id === taskId)
  const task = makeItem({
    ...existing,
    id: taskId,
    content: str(input.title) ?? existing?.content ?? `Task ${taskId}`,
    status: statusOf(said?.[2]) ?? statusOf(input.status) ?? existing?.status ?? 'pending',
    description: str(input.description) ?? existing?.description,
    blocked_by: dependencies(input.dependencies, taskId) ?? existing?.blocked_by ?? [],
  })
  return done(state, put(state.items, task))
}

function addDependency(
  input: Record<string, unknown>,
  text: string | undefined,
  state: DialectState
) {
  const said = text === undefined ? undefined : LINKED.exec(text)
  if (text !== undefined && !said) return notApplied(text)
  const taskId = id(said?.[1]) ?? id(input.taskId)
  const dep = id(said?.[2]) ?? id(input.dependencyId)
  const task = state.items.find((item) => item.id === taskId)
  if (!task || dep === undefined) return notApplied('the task is not in the list')
  if (task.blocked_by.includes(dep)) return done(state, [...state.items])
  return done(state, put(state.items, { ...task, blocked_by: [...task.blocked_by, dep] }))
}

function list(input: Record<string, unknown>, text: string | undefined, state: DialectState) {
  if (text === undefined) return notApplied('no listing in the result')
  const lines = text.trim() === NO_TASKS ? [] : text.trim().split('\n')
  const before = new Map(state.items.map((item) => [item.id, item]))
  const listed: Item[] = []
  for (const line of lines) {
    const match = LISTED.exec(line)
    const status = statusOf(match?.[3])
    if (!match || !status) return notApplied(`not a listing of the tracker: ${line}`)
    const old = before.get(match[1])
    listed.push(makeItem({ ...old, id: match[1], content: match[2], status }))
  }
  // a filtered listing names some tasks only: the others stay as they are
  const whole =
    input.status === undefined && input.type === undefined && input.parentId === undefined
  if (whole) return done(state, listed)
  let items = [...state.items]
  for (const item of listed) items = put(items, item)
  return done(state, items)
}

/** Its result's text: the output the model read (a hook's `llmContent`, a span's output). */
function textOf(text: string | undefined, structured: unknown): string | undefined {
  if (text !== undefined) return text
  return isRecord(structured) ? str(structured.llmContent) : undefined
}

/** The `gemini-tracker` observer. */
export const geminiTrackerObserver: Observer = {
  dialect: 'gemini-tracker',
  tools: [
    'tracker_create_task',
    'tracker_update_task',
    'tracker_get_task',
    'tracker_list_tasks',
    'tracker_add_dependency',
    'tracker_visualize',
  ],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    const input = isRecord(call.input) ? call.input : {}
    const text = textOf(result.text, result.structured)
    switch (call.name) {
      case 'tracker_create_task':
        return text === undefined ? notApplied('no result') : create(input, text, state)
      case 'tracker_update_task':
        return update(input, text, state)
      case 'tracker_add_dependency':
        return addDependency(input, text, state)
      case 'tracker_list_tasks':
        return list(input, text, state)
      default:
        return notApplied(`${call.name} changes nothing`)
    }
  },
}
