/**
 * @module dialects/copilot-todos/inline
 * Which replays are provably cheap enough to run on the event loop, skipping the worker thread
 * (`replayer.ts`). The thread costs every replayed call a round trip (a message each way, the
 * thread woken on another CPU: about a third of a Copilot delivery's CPU, measured in
 * bench/results.md) and a second run of the store update (the first stops at `ObservePending`).
 * Copilot's real calls are one to three short single-table writes (`UPDATE todos SET status = …
 * WHERE id = …`, an `INSERT … VALUES` of a plan): those are replayed in place, synchronously;
 * anything else still goes to the thread and its deadline.
 *
 * Why the work of an inline replay is bounded (the argument the checks below implement). A write
 * runs only after the same allow-list as in the thread (the tokens, then SQLite's bytecode,
 * `bytecode.ts`), and on top of it, for the inline path:
 * - no `SELECT`, `JOIN`, `WITH`, window, and `FROM` only as `DELETE FROM` / `IS DISTINCT FROM`:
 *   with no `FROM` list there is no join, so no loop nests inside another; the only loop is
 *   over the one table the statement names (at most one reference to `todos` / `todo_deps` in
 *   it: `IN todo_deps` or `todos.id` make a second and go to the thread). A `(VALUES …)`
 *   subquery cannot have a `FROM`, so it iterates only over tuples written in the text;
 * - no `LIKE`, `GLOB`, `REGEXP`, `MATCH` (a pattern's backtracking is the one super-linear
 *   comparison), no `||` and only functions whose result is no longer than one argument or of
 *   fixed size (no `instr`/`trim` with a set: O(value × pattern); no `substr`, `lower`, `upper`,
 *   `strftime`: copies or a format's growth): so no value a statement makes is longer than the
 *   longest value in the tables or literal in the query (`longest`);
 * - so each statement executes O(its length) opcodes per row of the one table it loops over,
 *   each on a value of at most `longest` bytes, plus per changed `todos` row a foreign-key scan
 *   of `todo_deps` (`depends_on` has no index: each statement at most todos × deps row
 *   visits), plus a sort for `ORDER BY … LIMIT`. The rows
 *   are at most those held plus one per `(` of the query (a tuple needs one) and one per
 *   statement (`DEFAULT VALUES`).
 * `inlineWork` is that bound, `length × (rows + 1) × (1 + longest / 64)` (a byte of a value
 * costs a small fraction of an opcode: memcpy and memcmp) plus `FK_VISIT` per foreign-key row
 * visit, `statements × todos × deps` at most, and the call goes inline only under
 * `MAX_INLINE_WORK`, at most `MAX_INLINE_STATEMENTS` statements of at most `MAX_INLINE_QUERY`
 * characters in all, and `MAX_INLINE_ROWS` rows. Measured (bench/copilot-inline-worst.mjs, CPU
 * time): a unit of work is about 1.3 ns, a foreign-key row visit 50–100 ns, so a call at the
 * bound costs about a millisecond of SQLite beyond filling and reading back the copy (O(rows +
 * bytes), as the rest of the update is). Preparing a statement (and its `EXPLAIN`) is linear in
 * its text, bounded by the same length.
 */
import { REPLAYED_FUNCTIONS } from './bytecode.js'
import { splitStatements, type Token } from './lexer.js'
import type { TodoTables } from './sql.js'

/** The longest query replayed on the event loop (Copilot's plans are one to two kilobytes). */
export const MAX_INLINE_QUERY = 4096
/** The most statements of a query replayed on the event loop. */
export const MAX_INLINE_STATEMENTS = 8
/** The most rows (both tables, and those the query can add) for a replay on the event loop. */
export const MAX_INLINE_ROWS = 200
/** The most work (`inlineWork`) replayed on the event loop: about 1 ms of SQLite at worst. */
export const MAX_INLINE_WORK = 1 << 19
/** The work of one foreign-key row visit (`todo_deps.depends_on` has no index: a scan per row). */
const FK_VISIT = 64

/** Words that make a loop nest or a comparison super-linear: such a query goes to the thread. */
const LOOPING: ReadonlySet<string> = new Set([
  ...['select', 'join', 'with', 'recursive', 'over', 'window', 'filter'],
  ...['like', 'glob', 'regexp', 'match', 'escape'],
])

/** Functions of fixed-size results, or returning one of their arguments (a subset of the thread's). */
const INLINE_FUNCTIONS: ReadonlySet<string> = new Set([
  ...['coalesce', 'ifnull', 'nullif', 'iif', 'typeof', 'length', 'abs', 'round', 'max', 'min'],
  ...['datetime', 'date', 'time', 'julianday', 'unixepoch'],
])

const TABLES: ReadonlySet<string> = new Set(['todos', 'todo_deps'])

/** Whether a statement's tokens keep it to one loop over one table, of linear comparisons. */
function linear(tokens: readonly Token[]): boolean {
  let references = 0
  for (let i = 0; i < tokens.length; i++) {
    const { kind, value } = tokens[i]
    if (kind === 'other' && value === '||') return false
    if (kind !== 'word' && kind !== 'quoted') continue
    if (TABLES.has(value) && ++references > 1) return false
    // a function named quoted is called all the same (the thread's list refuses the others)
    if (tokens[i + 1]?.kind === 'paren' && REPLAYED_FUNCTIONS.has(value)) {
      if (!INLINE_FUNCTIONS.has(value)) return false
    }
    if (kind !== 'word') continue
    if (LOOPING.has(value)) return false
    // `DELETE FROM todos`, `IS [NOT] DISTINCT FROM`: no list of tables to join
    if (value === 'from' && !['delete', 'distinct'].includes(tokens[i - 1]?.value ?? '')) {
      return false
    }
  }
  return true
}

/** The longest value in the tables, in UTF-16 code units (a unit is at most 3 bytes). */
function longestValue(tables: TodoTables): number {
  let longest = 0
  for (const row of tables.todos) {
    const units = Math.max(row.id.length, row.title.length, row.description?.length ?? 0)
    if (units > longest) longest = units
  }
  for (const [todo, dependsOn] of tables.deps) {
    longest = Math.max(longest, todo.length, dependsOn.length)
  }
  return longest
}

/**
 * The bound on an inline replay's work (see the module), or null when the query is not of the
 * inline kind at all (too long, too many statements, a nested loop or a costly comparison).
 * @param tables - the tables the replay starts from
 * @param query - the agent's query
 */
export function inlineWork(tables: TodoTables, query: string): number | null {
  if (query.length > MAX_INLINE_QUERY) return null
  const statements = splitStatements(query)
  if (statements.length > MAX_INLINE_STATEMENTS) return null
  let tuples = 0
  let literal = 0
  for (const { tokens } of statements) {
    if (!linear(tokens)) return null
    for (const token of tokens) {
      if (token.kind === 'paren') tuples++
      else if (token.kind === 'string') literal = Math.max(literal, token.end - token.start)
    }
  }
  // a tuple of VALUES needs a `(`; `DEFAULT VALUES` adds one row per statement
  const added = tuples + statements.length
  const todos = tables.todos.length + added
  const deps = tables.deps.length + added
  const rows = tables.todos.length + tables.deps.length + added
  if (rows > MAX_INLINE_ROWS) return null
  // datetime('now') and a number's text are a few dozen bytes: 32 covers them
  const longest = 3 * Math.max(longestValue(tables), literal, 32)
  // a changed todo's key is looked up in todo_deps by a scan (depends_on has no index)
  const visits = statements.length * todos * deps
  return query.length * (rows + 1) * (1 + longest / 64) + FK_VISIT * visits
}

/**
 * Whether replaying this query on these tables is provably cheap (module doc): then it runs on
 * the event loop; otherwise in the thread, under its deadline.
 * @param tables - the tables the replay starts from
 * @param query - the agent's query
 */
export function replaysInline(tables: TodoTables, query: string): boolean {
  const work = inlineWork(tables, query)
  return work !== null && work <= MAX_INLINE_WORK
}
