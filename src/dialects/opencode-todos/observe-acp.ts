/**
 * @module dialects/opencode-todos/observe-acp
 * The lists of any ACP (Agent Client Protocol) agent, observed through its `session/update`
 * stream (`agent-todos acp`, `ingest/acp`). ACP's own list is the `plan` update: whole snapshots of
 * `PlanEntry {content, priority, status}` — opencode's todo shape exactly, which is why an ACP
 * session's dialect is `opencode-todos` whichever agent runs behind the protocol (the agent's own
 * tool never shows on the wire: the Claude adapter's TodoWrite / Task* and Qwen's todo_write are
 * sent only as plans). Two synthetic tools carry them:
 *
 * - `acp:plan`, a `plan` snapshot. Qwen Code's entries carry their ids in `_meta.qwenTodo.id`:
 *   those are the items' ids. Other agents' entries have none: identity follows `reconcileIds`
 *   (content, then position), and because the Claude adapter shows an in_progress item's
 *   `activeForm` as its `content`, an in_progress entry whose text is new is the item at its
 *   position (or the one with that `active_form`): its content stays, the text is its
 *   `active_form`. An empty plan on an empty list changes nothing (Copilot sends `entries: []`
 *   after its first todo write and never fills it); on a filled list it clears it (Qwen's `[]`).
 * - `acp:todowrite`, an ACP tool call whose `rawInput` is an opencode / Kilo `todowrite` input
 *   (those agents send no plan): the list once the call completed, from its `rawInput.todos`, else
 *   its `rawOutput.metadata.todos`.
 */
import { makeItem, type Item, type Status } from '../../core/items.js'
import { isRecord } from '../json.js'
import { rewriteList, type NewItem } from '../list-rewrite.js'
import {
  canonicalStatus,
  notApplied,
  type ObserveOutcome,
  type Observer,
} from '../observe/types.js'
import type { DialectState } from '../types.js'
import { decodeTodoWrite } from './execute.js'

/** The synthetic tool of an ACP `plan` update (its input: the update's `{entries}`). */
export const ACP_PLAN_TOOL = 'acp:plan'

/** The synthetic tool of an ACP tool call that is an opencode / Kilo `todowrite`. */
export const ACP_TODOWRITE_TOOL = 'acp:todowrite'

/** A plan entry, read leniently: content, a canonical status, priority, the agent's id if any. */
interface PlanEntry {
  id?: string
  content: string
  status: Status
  priority?: string
  /** The agent's status word when it is not one of the canonical ones. */
  word?: string
}

/** Qwen Code's id of a plan entry (`_meta.qwenTodo.id`). */
function entryId(entry: Record<string, unknown>): string | undefined {
  const meta = isRecord(entry._meta) ? entry._meta : undefined
  const todo = isRecord(meta?.qwenTodo) ? meta.qwenTodo : undefined
  const id: unknown = todo?.id
  if (typeof id === 'string' && id !== '') return id
  return typeof id === 'number' ? String(id) : undefined
}

/** The entries of a `plan` update, or undefined when it is not one. */
function planEntries(input: unknown): PlanEntry[] | undefined {
  const list = isRecord(input) ? input.entries : undefined
  if (!Array.isArray(list)) return undefined
  const entries: PlanEntry[] = []
  for (const entry of list as unknown[]) {
    if (!isRecord(entry) || typeof entry.content !== 'string') return undefined
    const status = canonicalStatus(entry.status)
    entries.push({
      id: entryId(entry),
      content: entry.content,
      status: status ?? 'pending',
      priority: typeof entry.priority === 'string' ? entry.priority : undefined,
      word: status === undefined && typeof entry.status === 'string' ? entry.status : undefined,
    })
  }
  return entries
}

/** opencode's todos (`todowrite` input or its result's metadata) as entries. */
function todoEntries(value: unknown): PlanEntry[] | undefined {
  const decoded = decodeTodoWrite(value)
  if (!decoded.ok) return undefined
  return decoded.todos.map((todo) => {
    const status = canonicalStatus(todo.status)
    return {
      content: todo.content,
      status: status ?? 'pending',
      priority: todo.priority,
      word: status === undefined ? todo.status : undefined,
    }
  })
}

/** What the canonical item cannot hold, kept as opencode-todos keeps it. */
function metadataOf(entry: PlanEntry): Record<string, unknown> | undefined {
  const metadata: Record<string, unknown> = {}
  if (entry.priority !== undefined) metadata.priority = entry.priority
  if (entry.word !== undefined) metadata.status = entry.word
  return Object.keys(metadata).length ? metadata : undefined
}

/**
 * The Claude adapter's in_progress entries, whose text is the item's `activeForm`: the stored item
 * each stands for (by its `active_form`, else at the same position while its content is in no
 * entry of the plan), keeping the stored content and taking the text as `active_form`.
 */
function activeForms(stored: readonly Item[], entries: readonly PlanEntry[]): NewItem[] {
  const contents = new Set(entries.map((entry) => entry.content))
  const storedContents = new Set(stored.map((item) => item.content))
  const claimed = new Set<string>()
  const items: NewItem[] = entries.map((entry) => ({
    content: entry.content,
    status: entry.status,
  }))
  const candidates = entries.flatMap((entry, i) =>
    entry.status === 'in_progress' && !storedContents.has(entry.content) ? [i] : []
  )
  const adopt = (i: number, item: Item) => {
    claimed.add(item.id)
    items[i] = {
      id: item.id,
      content: item.content,
      status: entries[i].status,
      active_form: entries[i].content,
    }
  }
  const open = (item: Item | undefined): item is Item =>
    item !== undefined && !claimed.has(item.id) && !contents.has(item.content)
  for (const i of candidates) {
    const same = stored.find((item) => open(item) && item.active_form === entries[i].content)
    if (same) adopt(i, same)
  }
  for (const i of candidates) {
    if (items[i].id === undefined && open(stored[i])) adopt(i, stored[i])
  }
  return items
}

/** The list a plan makes of the stored one. */
function applyPlan(state: DialectState, entries: readonly PlanEntry[]): DialectState {
  const withIds = entries.length > 0 && entries.every((entry) => entry.id !== undefined)
  if (withIds) {
    // the agent's ids are its items' identity (Qwen's todo store): nothing to reconcile
    const items = entries.map((entry) =>
      makeItem({ id: entry.id!, content: entry.content, status: entry.status })
    )
    return withMetadata({ items, data: state.data }, entries)
  }
  return withMetadata(rewriteList(state, activeForms(state.items, entries)).state, entries)
}

function withMetadata(state: DialectState, entries: readonly PlanEntry[]): DialectState {
  const items = state.items.map((item, i) => {
    const metadata = metadataOf(entries[i])
    const { metadata: _old, ...rest } = item
    return metadata ? { ...rest, metadata } : rest
  })
  return { ...state, items }
}

function observeTodoWrite(
  input: unknown,
  structured: unknown,
  state: DialectState
): ObserveOutcome {
  const output = isRecord(structured) ? structured : undefined
  const entries = todoEntries(input) ?? todoEntries(output?.metadata)
  if (!entries) return notApplied('no todos in the tool call')
  const next = rewriteList(
    state,
    entries.map((entry) => ({ content: entry.content, status: entry.status }))
  )
  return { applied: true, state: withMetadata(next.state, entries) }
}

/** The observer of ACP lists (`acp:plan`, `acp:todowrite`) in the `opencode-todos` dialect. */
export const acpPlanObserver: Observer = {
  dialect: 'opencode-todos',
  tools: [ACP_PLAN_TOOL, ACP_TODOWRITE_TOOL],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    if (call.name === ACP_TODOWRITE_TOOL)
      return observeTodoWrite(call.input, result.structured, state)
    const entries = planEntries(call.input)
    if (!entries) return notApplied('not a plan')
    if (entries.length === 0 && state.items.length === 0) {
      return notApplied('an empty plan on a list never filled')
    }
    return { applied: true, state: applyPlan(state, entries) }
  },
}
