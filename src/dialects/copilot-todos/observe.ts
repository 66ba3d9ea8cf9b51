/**
 * @module dialects/copilot-todos/observe
 * GitHub Copilot CLI's todo writes, observed: its `sql` tool's statements on the built-in `todos`
 * and `todo_deps` tables (real-agents.md, Turn 3; captures in test/fixtures/ingest/copilot/).
 * A successful call's query is replayed on a private in-memory copy of the two tables built from
 * the session's list (`sql.ts`), and the list is read back from it. A failed call, or one whose
 * statements wrote neither table, changes nothing; so does a refused one (a statement reaching
 * beyond the two tables, too many statements, a replay past its deadline). A query that failed
 * after completing its first statements (Copilot keeps those) comes as a result with
 * `structured.completed_statements`: only those are replayed.
 *
 * A replay that is provably cheap (`inline.ts`: Copilot's usual short single-table writes) runs
 * here, synchronously. Any other runs in a worker thread (`replayer.ts`), never on the event
 * loop, and an observer is synchronous: the first time a call is observed on a state, the observer throws
 * `ObservePending`, whose `settle()` replays it in the thread and keeps the outcome here, keyed by
 * what it was computed from (the tables, the query, the limit); the caller then runs its update
 * again and the observer answers from that. A state changed meanwhile is another key: replayed
 * again. The outcomes kept are few (`KEPT_OUTCOMES`) and short-lived: a delivery reads its own
 * within the same request.
 */
import { createHash } from 'node:crypto'
import { isRecord } from '../json.js'
import { notApplied, ObservePending, type Observer } from '../observe/types.js'
import { replaysInline } from './inline.js'
import { replayer } from './replayer.js'
import { mayWriteTodos, replayTodoQuery, type ReplayOutcome, type TodoTables } from './sql.js'
import { stateOf, tablesOf } from './rows.js'

/** Outcomes kept for the updates that asked for them (the oldest dropped first). */
export const KEPT_OUTCOMES = 64

const outcomes = new Map<string, ReplayOutcome>()

/** What a replay is computed from, as a key. */
const keyOf = (tables: TodoTables, query: string, limit: number | undefined): string =>
  createHash('sha256')
    .update(JSON.stringify([tables, query, limit ?? null]))
    .digest('base64')

/** Keeps an outcome, dropping the oldest past `KEPT_OUTCOMES`. */
function keep(key: string, outcome: ReplayOutcome): void {
  outcomes.delete(key)
  outcomes.set(key, outcome)
  if (outcomes.size > KEPT_OUTCOMES) outcomes.delete(outcomes.keys().next().value!)
}

/**
 * The replay's outcome: computed here when provably cheap (`inline.ts`), else kept from the
 * thread, or `ObservePending` thrown to have it computed there.
 */
function replayed(tables: TodoTables, query: string, limit: number | undefined): ReplayOutcome {
  if (replaysInline(tables, query)) {
    try {
      return replayTodoQuery(tables, query, limit)
    } catch (error) {
      // as the thread answers a job that throws (it should not): a refused call, never a 5xx
      const reason = `the replay failed: ${(error as Error).message}`
      return { tables, ran: 0, skipped: [{ statement: 0, reason }], refused: reason }
    }
  }
  const key = keyOf(tables, query, limit)
  const outcome = outcomes.get(key)
  if (outcome) return outcome
  throw new ObservePending(async () => {
    keep(key, await replayer().replay({ tables, query, limit }))
  })
}

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
    const replay = replayed(tablesOf(state), query, completed)
    if (replay.refused) return notApplied(`the call was refused (${replay.refused})`)
    if (replay.ran === 0) {
      const why = replay.skipped.map((s) => `statement ${s.statement + 1}: ${s.reason}`)
      return notApplied(`no statement wrote the todo tables (${why.join('; ')})`)
    }
    return { applied: true, state: stateOf(replay.tables, state.data) }
  },
}
