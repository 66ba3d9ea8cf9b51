/**
 * @module dialects/copilot-todos
 * GitHub Copilot CLI 1.0.102's todo list, observed only: the CLI has no todo tool of its own
 * (no `update_todo` was offered to any model); its `sql` tool writes the rows of the built-in
 * tables `todos(id, title, description, status pending|in_progress|done|blocked, created_at,
 * updated_at)` and `todo_deps(todo_id, depends_on)` (real-agents.md, Turn 3). The service never
 * executes SQL for a model: a round that calls this dialect's tool is refused, and observing
 * replays the agent's statements on a private copy (`observe.ts`, `sql.ts`).
 *
 * - Items: the rows in rowid order (`rows.ts`): id the row's id, content its title,
 *   `description` its description, status done → completed, blocked kept, `blocked_by` from
 *   `todo_deps`.
 * - Render: one `N. [status] title` line per item; `No todos.` when empty. No reminder of its own.
 */
import { z } from 'zod'
import type { Item } from '../../core/items.js'
import { renderNumbered } from '../list-rewrite.js'
import { refused } from '../outcome.js'
import type { Dialect, ListCheck } from '../types.js'

const SqlInput = z.object({
  description: z.string().describe('A short description of what the query does'),
  query: z.string().describe('The SQL query to run'),
})

const OBSERVED_ONLY =
  'Error: copilot-todos is observed only: the service never executes SQL. Copilot CLI runs its own sql tool; post its hooks to /v1/ingest/copilot.'

function checkList(items: readonly Item[]): ListCheck {
  for (const item of items) {
    if (item.status === 'cancelled') {
      return { ok: false, message: `Copilot's todos have no cancelled status (item '${item.id}').` }
    }
  }
  return { ok: true, items: items.map((item) => ({ ...item })) }
}

/** The `copilot-todos` dialect (observed only). */
export const copilotTodos: Dialect = {
  name: 'copilot-todos',
  description:
    "GitHub Copilot CLI's todos: rows of its built-in `todos` / `todo_deps` SQLite tables written by its `sql` tool (observed only; never executed here).",
  tools: [
    {
      name: 'sql',
      description:
        'Copilot CLI runs SQL on its session database, whose built-in tables todos and todo_deps hold its todo list (observed only).',
      input: SqlInput,
    },
  ],
  // rounds are refused, so no round ever makes the reminder due
  reminder: { afterRounds: Number.MAX_SAFE_INTEGER, repeatEvery: 1 },
  reminderText: () => '',
  apply: (state) => refused(state, OBSERVED_ONLY),
  argumentsError: () => OBSERVED_ONLY,
  render: (items) => renderNumbered(items, 'No todos.'),
  checkList,
}
