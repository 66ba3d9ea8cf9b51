/**
 * @module dialects/copilot-todos/observe
 * GitHub Copilot CLI's todo writes, observed: its `sql` tool's statements on the built-in `todos`
 * and `todo_deps` tables (real-agents.md, Turn 3; captures in test/fixtures/ingest/copilot/).
 * A successful call's query is replayed on a private in-memory copy of the two tables built from
 * the session's list (`sql.ts`), and the list is read back from it. A failed call, or one whose
 * statements wrote neither table, changes nothing. A query that failed after completing its first
 * statements (Copilot keeps those) comes as a result with `structured.completed_statements`: only
 * those are replayed.
 */
import { isRecord } from '../json.js'
import { notApplied, type Observer } from '../observe/types.js'
import { mayWriteTodos, replayTodoQuery } from './sql.js'
import { stateOf, tablesOf } from './rows.js'

/** The `copilot-todos` observer. */
export const copilotTodosObserver: Observer = {
  dialect: 'copilot-todos',
  tools: ['sql'],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    // a failed query that completed its first statements (ingest/copilot reads its result)
    const completed =
      isRecord(result.structured) && typeof result.structured.completed_statements === 'number'
        ? result.structured.completed_statements
        : undefined
    const query = isRecord(call.input) ? call.input.query : undefined
    if (typeof query !== 'string') return notApplied('no query in the call')
    // `database: "session_store"` queries Copilot's store of past sessions, not this session's
    const database = isRecord(call.input) ? call.input.database : undefined
    if (database !== undefined && database !== 'session') {
      return notApplied("not the session's database")
    }
    if (!mayWriteTodos(query)) return notApplied('no statement writes the todo tables')
    const replay = replayTodoQuery(tablesOf(state), query, completed)
    if (replay.ran === 0) {
      const why = replay.skipped.map((s) => `statement ${s.statement + 1}: ${s.reason}`)
      return notApplied(`no statement wrote the todo tables (${why.join('; ')})`)
    }
    return { applied: true, state: stateOf(replay.tables, state.data) }
  },
}
