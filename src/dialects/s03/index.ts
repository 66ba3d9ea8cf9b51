/**
 * @module dialects/s03
 * The `todo` tool of learn-claude-code's legacy s03 lesson (`shareAI-lab/learn-claude-code`:
 * `agents/s03_todo_write.py`, commits `714778bd`/`0f691a09`), byte for byte; the lesson's own
 * `tests/test_todo_manager.py` runs as golden tests (test/unit/peer-golden.test.ts).
 */
import { z } from 'zod'
import { droppedItems, makeItem, type Item, type Status } from '../../core/items.js'
import { isRecord, parseJsonText } from '../json.js'
import type { Dialect, DialectState, ListCheck } from '../types.js'
import { refused } from '../outcome.js'
import { SERVICE_REMINDER } from '../one-tool.js'

const S03_STATUSES = ['pending', 'in_progress', 'completed'] as const
const MAX_ITEMS = 20
const MARKERS: Record<string, string> = { pending: '[ ]', in_progress: '[>]', completed: '[x]' }

/** The advertised input schema of `todo`, exactly the lesson's. */
export const S03TodoInput = z.object({
  items: z.array(z.object({ id: z.string(), text: z.string(), status: z.enum(S03_STATUSES) })),
})

type Parsed = { ok: true; items: Item[] } | { ok: false; message: string }

/** Python's `str()` for the JSON scalars the lesson can meet; other values are not text. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number') return String(value)
  return undefined
}

/**
 * Parses a `todo` call's raw item list with the lesson's checks, in its order.
 * @param raw - the `items` value as the model sent it
 */
export function parseS03Items(raw: unknown): Parsed {
  if (typeof raw === 'string') {
    try {
      raw = parseJsonText(raw)
    } catch {
      return { ok: false, message: 'items must be a list' }
    }
  }
  if (!Array.isArray(raw)) return { ok: false, message: 'items must be a list' }
  if (raw.length > MAX_ITEMS) return { ok: false, message: `Max ${MAX_ITEMS} todos allowed` }
  const items: Item[] = []
  let inProgress = 0
  for (let i = 0; i < raw.length; i++) {
    const entry: unknown = raw[i]
    if (!isRecord(entry)) return { ok: false, message: `Item ${i + 1}: must be an object` }
    const text = (entry.text == null ? '' : (scalarText(entry.text) ?? '')).trim()
    const status =
      entry.status == null
        ? 'pending'
        : typeof entry.status === 'string'
          ? entry.status.toLowerCase()
          : (scalarText(entry.status) ?? JSON.stringify(entry.status))
    const id = (entry.id == null ? undefined : scalarText(entry.id)) ?? String(i + 1)
    if (!text) return { ok: false, message: `Item ${id}: text required` }
    if (!(S03_STATUSES as readonly string[]).includes(status)) {
      return { ok: false, message: `Item ${id}: invalid status '${status}'` }
    }
    if (status === 'in_progress') inProgress++
    items.push(makeItem({ id, content: text, status: status as Status }))
  }
  if (inProgress > 1) return { ok: false, message: 'Only one task can be in_progress at a time' }
  return { ok: true, items }
}

/**
 * The lesson's `render()`: one `{marker} #{id}: {text}` line per item, a blank line, then
 * `({done}/{total} completed)`; `No todos.` when empty.
 * @param items - the list
 */
export function renderS03(items: readonly Item[]): string {
  if (items.length === 0) return 'No todos.'
  const lines = items.map((item) => `${MARKERS[item.status] ?? '[ ]'} #${item.id}: ${item.content}`)
  const done = items.filter((item) => item.status === 'completed').length
  lines.push(`\n(${done}/${items.length} completed)`)
  return lines.join('\n')
}

function applyTodo(state: DialectState, input: unknown) {
  const parsed = parseS03Items(isRecord(input) ? input.items : undefined)
  if (!parsed.ok) {
    return refused(state, `Error: ${parsed.message}`)
  }
  return {
    result: { is_error: false, content: renderS03(parsed.items), structured: null },
    state: { ...state, items: parsed.items },
    dropped: droppedItems(state.items, parsed.items),
  }
}

function checkList(items: readonly Item[]): ListCheck {
  const parsed = parseS03Items(
    items.map((item) => ({ id: item.id, text: item.content, status: item.status }))
  )
  if (!parsed.ok) return parsed
  // keep the operator's extra canonical fields; the lesson only normalises text and status
  return {
    ok: true,
    items: parsed.items.map((item, i) => ({
      ...items[i],
      content: item.content,
      status: item.status,
    })),
  }
}

/** The `s03` dialect. */
export const s03: Dialect = {
  name: 's03',
  description:
    "learn-claude-code's s03 lesson: the `todo` tool (items {id, text, status}, max 20, one in_progress) with a nag after 3 rounds.",
  tools: [
    {
      name: 'todo',
      description: 'Update task list. Track progress on multi-step tasks.',
      input: S03TodoInput,
    },
  ],
  // the todo line of the lesson's SYSTEM (between its agent line and "Prefer tools over prose.")
  systemPrompt:
    'Use the todo tool to plan multi-step tasks. Mark in_progress before starting, completed when done.',
  reminder: SERVICE_REMINDER,
  reminderText: () => '<reminder>Update your todos.</reminder>',
  apply: (state, _toolName, input) => applyTodo(state, input),
  argumentsError: () => 'Error: tool arguments are not valid JSON',
  render: renderS03,
  checkList,
}
