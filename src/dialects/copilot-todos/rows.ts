/**
 * @module dialects/copilot-todos/rows
 * The session's list and Copilot CLI's `todos` / `todo_deps` rows, each from the other: an item
 * per row in rowid order, its id the row's `id` (text), `content` its `title`, `description` its
 * own, Copilot's four statuses as the canonical ones (`done` → completed; `blocked` stays
 * blocked, visible as Gemini's is), `blocked_by` the ids it `depends_on` and `blocks` their
 * inverse. The dependency rows are also kept in the dialect's data (`todo_deps`, in rowid order),
 * so the next replay starts from the agent's own tables.
 */
import { makeItem, type Item, type Status } from '../../core/items.js'
import type { DialectState } from '../types.js'
import type { TodoRow, TodoTables } from './sql.js'

const TO_CANONICAL: Readonly<Record<string, Status>> = {
  pending: 'pending',
  in_progress: 'in_progress',
  done: 'completed',
  blocked: 'blocked',
}

const TO_COPILOT: Readonly<Record<Status, string>> = {
  pending: 'pending',
  in_progress: 'in_progress',
  completed: 'done',
  cancelled: 'done',
  blocked: 'blocked',
}

/** The dependency pairs the dialect's data holds, or undefined when it holds none. */
function storedDeps(data: Readonly<Record<string, unknown>>): [string, string][] | undefined {
  const deps = data.todo_deps
  if (!Array.isArray(deps)) return undefined
  const pairs: [string, string][] = []
  for (const pair of deps as unknown[]) {
    if (Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string') {
      pairs.push([pair[0], pair[1]])
    }
  }
  return pairs
}

/**
 * The tables a session's list stands for.
 * @param state - the dialect state
 */
export function tablesOf(state: DialectState): TodoTables {
  const todos: TodoRow[] = state.items.map((item) => ({
    id: item.id,
    title: item.content,
    description: item.description ?? null,
    status: TO_COPILOT[item.status],
  }))
  const deps =
    storedDeps(state.data) ??
    state.items.flatMap((item) => item.blocked_by.map((id): [string, string] => [item.id, id]))
  return { todos, deps }
}

/**
 * The list and data the tables make.
 * @param tables - the tables after a replay
 * @param data - the dialect's data before it
 */
export function stateOf(tables: TodoTables, data: Readonly<Record<string, unknown>>): DialectState {
  const ids = new Set(tables.todos.map((row) => row.id))
  const blockedBy = new Map<string, string[]>()
  const blocks = new Map<string, string[]>()
  for (const [todo, dependsOn] of tables.deps) {
    if (!ids.has(todo) || !ids.has(dependsOn)) continue
    blockedBy.set(todo, [...(blockedBy.get(todo) ?? []), dependsOn])
    blocks.set(dependsOn, [...(blocks.get(dependsOn) ?? []), todo])
  }
  const items: Item[] = tables.todos.map((row) =>
    makeItem({
      id: row.id,
      content: row.title,
      status: (row.status !== null && TO_CANONICAL[row.status]) || 'pending',
      description: row.description ?? undefined,
      blocked_by: blockedBy.get(row.id) ?? [],
      blocks: blocks.get(row.id) ?? [],
    })
  )
  return { items, data: { ...data, todo_deps: tables.deps } }
}
