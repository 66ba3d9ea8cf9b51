/**
 * @module dialects/copilot-todos/sql
 * What GitHub Copilot CLI's `sql` tool did to its built-in `todos` / `todo_deps` tables, replayed
 * on a PRIVATE copy: an in-memory SQLite database (better-sqlite3, the service's own SQLite)
 * holding only those two tables, with Copilot 1.0.102's schema byte for byte, filled from the
 * session's current list. The agent's statements run there, never against the service's store,
 * and the rows are read back. This module is synchronous: it runs in the replay's worker thread
 * (`replayer.ts`), and on the service's event loop only for a call whose work is provably small
 * (`inline.ts`); each thread has its own copy.
 *
 * Why SQLite itself on a private copy and not a SQL parser package: the statements are Copilot's
 * SQLite dialect (upserts, `RETURNING`, `UPDATE … LIMIT`, SQLite functions and defaults), and
 * only SQLite evaluates them the way the agent's database did; a parser package (node-sql-parser
 * and the like) would mean evaluating WHERE clauses and defaults in our own code, and a new root
 * dependency. The copy is one in-memory database per thread, made once, with its statements
 * prepared once: each replay fills the empty tables from the session's list, runs the agent's
 * statements as Copilot did (each on its own, autocommit) and empties them again, so nothing of
 * one replay is there for the next (replays are synchronous: one at a time). Opening a fresh
 * database per write cost about 0.25 ms of CPU (bench/results.md).
 *
 * better-sqlite3 has no authorizer, progress handler, interrupt or `sqlite3_limit`, so what may
 * run is decided before SQLite runs a statement:
 * - at most `MAX_STATEMENTS` statements per call (a query is split at top-level `;` by the
 *   small lexer, `lexer.ts`), at most `MAX_QUERY_LENGTH` characters;
 * - `INSERT`, `REPLACE`, `UPDATE`, `DELETE` run; reads (`SELECT`, `VALUES`), transaction
 *   control (`BEGIN`, `COMMIT`, …) and the agent's own tables' `CREATE` / `DROP` / `ALTER` are
 *   not run (the copy holds only the two tables; a real call creates a scratch table beside its
 *   todo writes); anything else (`ATTACH`, `DETACH`, `PRAGMA`, `VACUUM`, `REINDEX`, …) refuses
 *   the whole call;
 * - a write's bytecode (`bytecode.ts`, SQLite's `EXPLAIN`) may open only the two tables and
 *   their indexes in the main database: `sqlite_master` / `sqlite_schema`, `temp.*`, attached
 *   databases, virtual tables (`pragma_*` with or without parentheses, `json_each`, `dbstat`, …)
 *   and functions off the list refuse the whole call (a table the copy lacks cannot be prepared:
 *   that statement is skipped, as one SQLite refuses);
 * - from the tokens: no `WITH` (no CTE, so no recursion), only listed names called as functions
 *   (whose result is no larger than their input: no `zeroblob`, `randomblob`, `printf`,
 *   `replace`, `group_concat`, `load_extension`), and bounded work: the rows a statement can
 *   visit, the product over its references to the two tables (the only ones the bytecode lets it
 *   open) of (rows + 1), stay under `MAX_ROW_PRODUCT`; `||` at most `MAX_CONCATS` times in a
 *   query; the tables' bytes are checked after every statement and the call refused past
 *   `MAX_MIRROR_BYTES`.
 * A refused call changes nothing (`refused` says why). A statement that SQLite itself refuses on
 * the copy (a column the copy lacks, a constraint) changes nothing; the others of the same query
 * still apply (Copilot runs them one by one, and keeps those that ran before one that failed:
 * `SQL Error after statement 2 (INSERT): … Completed 1 statement(s) before failure`, a failed
 * call whose first statement stays). What the bounds leave (a `LIKE` of a long pattern over
 * rows within the product) is bounded in time by the worker's deadline.
 */
import Database from 'better-sqlite3'
import {
  allowedTrees,
  checkBytecode,
  REPLAYED_FUNCTIONS,
  type AllowedTrees,
  type BytecodeVerdict,
} from './bytecode.js'
import { splitStatements, type Statement, type Token } from './lexer.js'

/** Copilot CLI 1.0.102's tables, as its `session.db` holds them (real-session-db-todos.json). */
const SCHEMA = `CREATE TABLE todos (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        description TEXT,
        status TEXT DEFAULT 'pending' CHECK(status IN ('pending', 'in_progress', 'done', 'blocked')),
        created_at TEXT DEFAULT (datetime('now')),
        updated_at TEXT DEFAULT (datetime('now'))
    );
CREATE TABLE todo_deps (
        todo_id TEXT NOT NULL,
        depends_on TEXT NOT NULL,
        PRIMARY KEY (todo_id, depends_on),
        FOREIGN KEY (todo_id) REFERENCES todos(id),
        FOREIGN KEY (depends_on) REFERENCES todos(id)
    );`

/** The longest query replayed (the agent's todo statements are a few kilobytes). */
export const MAX_QUERY_LENGTH = 65_536
/**
 * The most statements one call may hold. Copilot's real calls hold 1 to 3 (its captures in
 * test/fixtures/ingest/copilot/: an INSERT of several rows is one statement); a model that
 * writes one statement per todo of a long plan stays far below. 2,520 cheap statements cost
 * 312 ms of a thread before this cap.
 */
export const MAX_STATEMENTS = 100
/** The most row combinations one statement may visit: product over table references of rows + 1. */
export const MAX_ROW_PRODUCT = 20_000
/** The most `||` in one query (each can double a value). */
export const MAX_CONCATS = 32
/** The floor of the bytes the two tables may hold after a statement (or twice what they held). */
export const MAX_MIRROR_BYTES = 4 * 1_048_576

const TABLES: ReadonlySet<string> = new Set(['todos', 'todo_deps'])
const WRITES: ReadonlySet<string> = new Set(['insert', 'replace', 'update', 'delete'])
/**
 * Statements that write neither table: not run, and no reason to refuse the call (reads,
 * transaction control, the agent's own tables created or dropped beside its todo writes).
 */
const NOT_RUN: ReadonlySet<string> = new Set([
  ...['select', 'values', 'begin', 'commit', 'end', 'rollback', 'savepoint', 'release'],
  ...['create', 'drop', 'alter'],
])
const FORBIDDEN_WORDS: ReadonlySet<string> = new Set(['with', 'recursive'])

/** Words that may stand before `(` without being a call: keywords, and the two tables' column lists. */
const BEFORE_PAREN: ReadonlySet<string> = new Set([
  ...TABLES,
  ...['values', 'in', 'exists', 'not', 'and', 'or', 'on', 'where', 'select', 'as', 'set', 'from'],
  ...['join', 'case', 'when', 'then', 'else', 'conflict', 'returning', 'using', 'by', 'is'],
  ...['like', 'glob', 'between', 'cast', 'distinct', 'all', 'union', 'except', 'intersect'],
  ...['limit', 'offset', 'having', 'escape', 'into', 'do', 'nothing', 'end', 'collate'],
])

/** A row of `todos` (what the list keeps of it). */
export interface TodoRow {
  id: string
  title: string
  description: string | null
  status: string | null
}

/** The two tables' contents: the rows in rowid order, and the dependency pairs. */
export interface TodoTables {
  todos: TodoRow[]
  /** `[todo_id, depends_on]` pairs, in rowid order. */
  deps: [string, string][]
}

/** What replaying a query did. */
export interface ReplayOutcome {
  tables: TodoTables
  /** Statements that ran on the copy and wrote (or could have written) the tables. */
  ran: number
  /** Statements not run, or refused by SQLite on the copy, with why. */
  skipped: { statement: number; reason: string }[]
  /** Why the whole call was refused (then `tables` are the ones given, and `ran` is 0). */
  refused?: string
}

const refs = (tokens: readonly Token[]): string[] =>
  tokens
    .filter((t) => (t.kind === 'word' || t.kind === 'quoted') && TABLES.has(t.value))
    .map((t) => t.value)

/** The statement's first word, lower-cased ('' when it starts otherwise). */
const firstWord = (statement: Statement): string =>
  statement.tokens[0].kind === 'word' ? statement.tokens[0].value : ''

/** Why a write may not run on the copy, from its tokens, or null when it may. */
function tokenRefusal(statement: Statement, rows: ReadonlyMap<string, number>): string | null {
  const { tokens } = statement
  let product = 1
  for (const name of refs(tokens)) product *= (rows.get(name) ?? 0) + 1
  if (product > MAX_ROW_PRODUCT) return 'it could visit too many rows'
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token.kind === 'word' && FORBIDDEN_WORDS.has(token.value)) {
      return `${token.value.toUpperCase()} is not replayed`
    }
    const next = tokens[i + 1]
    if ((token.kind === 'word' || token.kind === 'quoted') && next?.kind === 'paren') {
      if (!BEFORE_PAREN.has(token.value) && !REPLAYED_FUNCTIONS.has(token.value)) {
        return `the function ${token.value} is not replayed`
      }
    }
  }
  return null
}

/**
 * Why the whole call is refused before anything runs (too long, too many statements or `||`, a
 * statement that is neither a write nor one that writes nothing), or null.
 */
function callRefusal(query: string, statements: readonly Statement[]): string | null {
  if (query.length > MAX_QUERY_LENGTH) return 'the query is too long'
  if (statements.length > MAX_STATEMENTS) {
    return `more than ${MAX_STATEMENTS} statements in one call`
  }
  let concats = 0
  for (const statement of statements) {
    const word = firstWord(statement)
    if (!WRITES.has(word) && !NOT_RUN.has(word)) {
      const shown = word ? word.toUpperCase() : statement.tokens[0].value
      return `statement ${statements.indexOf(statement) + 1}: ${shown} is not replayed`
    }
    concats += statement.tokens.filter((t) => t.kind === 'other' && t.value === '||').length
  }
  return concats > MAX_CONCATS ? 'too many || in the query' : null
}

/** A column value as text (SQLite's TEXT affinity leaves blobs and some numbers as they are). */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (Buffer.isBuffer(value)) return value.toString('utf8')
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  return JSON.stringify(value)
}

/** The tables' contents. */
function readBack(copy: Copy): TodoTables {
  const todos = (copy.selectTodos.all() as Record<string, unknown>[]).map((row) => ({
    id: text(row.id) ?? '',
    title: text(row.title) ?? '',
    description: text(row.description),
    status: text(row.status),
  }))
  const deps = (copy.selectDeps.all() as Record<string, unknown>[]).map((row): [string, string] => [
    text(row.todo_id) ?? '',
    text(row.depends_on) ?? '',
  ])
  return { todos, deps }
}

const byteSize = (copy: Copy): number => (copy.bytes.get() as { bytes: number }).bytes

/**
 * At least the bytes `byteSize` counts for these tables once filled: a UTF-16 code unit is at most
 * 3 bytes of UTF-8, and each row's two timestamps 19 bytes each.
 */
function mostBytes(tables: TodoTables): number {
  let units = 0
  for (const row of tables.todos) {
    units += row.id.length + row.title.length
    units += (row.description?.length ?? 0) + (row.status?.length ?? 0)
  }
  for (const [todo, dependsOn] of tables.deps) units += todo.length + dependsOn.length
  return 3 * units + 38 * tables.todos.length
}

/** The private copy: the database and the statements every replay runs. */
interface Copy {
  db: Database.Database
  insertTodo: Database.Statement
  insertDep: Database.Statement
  countTodos: Database.Statement
  countDeps: Database.Statement
  selectTodos: Database.Statement
  selectDeps: Database.Statement
  bytes: Database.Statement
  /** The b-trees of the two tables: all a replayed statement may open (`bytecode.ts`). */
  allowed: AllowedTrees
  /** Statements already checked on this copy, by their exact text (`planOf`). */
  plans: Map<string, Plan>
  fill: (tables: TodoTables) => void
  empty: () => void
}

let shared: Copy | undefined

/** The thread's copy, made on first use. */
function copyOf(): Copy {
  if (shared?.db.open) return shared
  const db = new Database(':memory:')
  // Copilot's database checks the foreign keys (a dependency on no todo fails there:
  // `FOREIGN KEY constraint failed`), as better-sqlite3 does by default; said here anyway
  db.pragma('foreign_keys = ON')
  db.exec(SCHEMA)
  const insertTodo = db.prepare(
    'INSERT INTO todos (id, title, description, status) VALUES (?, ?, ?, ?)'
  )
  const insertDep = db.prepare(
    'INSERT OR IGNORE INTO todo_deps (todo_id, depends_on) VALUES (?, ?)'
  )
  const clearTodos = db.prepare('DELETE FROM todos')
  const clearDeps = db.prepare('DELETE FROM todo_deps')
  shared = {
    db,
    allowed: allowedTrees(db, [...TABLES]),
    plans: new Map(),
    insertTodo,
    insertDep,
    countTodos: db.prepare('SELECT count(*) AS n FROM todos'),
    countDeps: db.prepare('SELECT count(*) AS n FROM todo_deps'),
    selectTodos: db.prepare('SELECT id, title, description, status FROM todos ORDER BY rowid'),
    selectDeps: db.prepare('SELECT todo_id, depends_on FROM todo_deps ORDER BY rowid'),
    bytes: db.prepare(
      `SELECT (SELECT coalesce(sum(length(CAST(id AS BLOB)) + length(CAST(title AS BLOB)) + coalesce(length(CAST(description AS BLOB)), 0) + coalesce(length(CAST(status AS BLOB)), 0) + coalesce(length(CAST(created_at AS BLOB)), 0) + coalesce(length(CAST(updated_at AS BLOB)), 0)), 0) FROM todos)
       + (SELECT coalesce(sum(length(CAST(todo_id AS BLOB)) + length(CAST(depends_on AS BLOB))), 0) FROM todo_deps) AS bytes`
    ),
    fill: db.transaction((tables: TodoTables) => {
      const ids = new Set(tables.todos.map((row) => row.id))
      for (const row of tables.todos) insertTodo.run(row.id, row.title, row.description, row.status)
      // the keys hold in the agent's tables, so a pair naming no todo cannot be the agent's
      for (const [todo, dependsOn] of tables.deps) {
        if (ids.has(todo) && ids.has(dependsOn)) insertDep.run(todo, dependsOn)
      }
    }),
    // the dependencies first: their keys name the todos
    empty: db.transaction(() => {
      clearDeps.run()
      clearTodos.run()
    }),
  }
  return shared
}

/** Whether a query has any statement that could write the todo tables (a cheap first look). */
export function mayWriteTodos(query: string): boolean {
  return /\b(todos|todo_deps)\b/i.test(query) && /\b(insert|replace|update|delete)\b/i.test(query)
}

/** A call refused whole: the tables as given. */
const refusedCall = (tables: TodoTables, reason: string, statement = 0): ReplayOutcome => ({
  tables,
  ran: 0,
  skipped: [{ statement, reason }],
  refused: reason,
})

const TOO_LARGE = 'the tables grew too large'

/** A statement's bytecode verdict, and the statement prepared when it may run. */
interface Plan {
  verdict: BytecodeVerdict
  prepared?: Database.Statement
}

/** Statements whose plan is kept per copy (the oldest dropped first). */
export const KEPT_PLANS = 256
/** The longest statement whose plan is kept (so the kept texts stay under a megabyte). */
const KEPT_PLAN_LENGTH = 4096

/**
 * A statement's verdict (`checkBytecode`) and its prepared statement, kept by its exact text:
 * Copilot repeats statements (`UPDATE todos SET status = 'done' WHERE id = …`), and the check
 * and the prepare were a third of a replay's CPU. Sound because what SQLite compiles depends only
 * on the text and the schema: the copy's schema never changes (no statement that would change it
 * runs, and a copy that fails is replaced with its plans), it holds no `sqlite_stat*` tables (no
 * `ANALYZE` runs), so the planner never looks at the rows. Not kept by a shape with the literals
 * taken out: a literal changes what SQLite compiles, so two statements of one shape can differ in
 * what they reach. SQLite reads a single-quoted string as a table name where one is expected
 * (`DELETE FROM 'todos'`, `id IN 'sqlite_master'`), and constant folding drops what a false
 * literal guards: `UPDATE todos … WHERE 0 AND (SELECT count(*) FROM sqlite_master) > 0` opens
 * only `todos`, the same with `WHERE 1` opens `sqlite_master` (checked on SQLite 3 of
 * better-sqlite3): a verdict kept for the first shape would pass the second.
 */
function planOf(copy: Copy, sql: string): Plan {
  const kept = copy.plans.get(sql)
  if (kept) return kept
  const verdict = checkBytecode(copy.db, sql, copy.allowed)
  const plan: Plan = { verdict }
  if (verdict.ok) {
    try {
      plan.prepared = copy.db.prepare(sql)
    } catch (error) {
      plan.verdict = { ok: false, unsafe: false, reason: (error as Error).message }
    }
  }
  if (sql.length <= KEPT_PLAN_LENGTH) {
    copy.plans.set(sql, plan)
    if (copy.plans.size > KEPT_PLANS) copy.plans.delete(copy.plans.keys().next().value!)
  }
  return plan
}

/** Runs one write on the copy; the reason it was skipped or refused, or null when it ran. */
function runWrite(
  copy: Copy,
  statement: Statement
): { skipped: string } | { refused: string } | null {
  // one reference visits each row once: the rows are counted only for a statement of several
  const rows = new Map(
    refs(statement.tokens).length > 1
      ? [
          ['todos', (copy.countTodos.get() as { n: number }).n],
          ['todo_deps', (copy.countDeps.get() as { n: number }).n],
        ]
      : []
  )
  const why = tokenRefusal(statement, rows)
  if (why) return { refused: why }
  const { verdict, prepared } = planOf(copy, statement.sql)
  if (!verdict.ok) return verdict.unsafe ? { refused: verdict.reason } : { skipped: verdict.reason }
  try {
    if (!prepared) return { skipped: 'not prepared' }
    if (prepared.reader) prepared.all()
    else prepared.run()
    return null
  } catch (error) {
    return { skipped: (error as Error).message }
  }
}

/**
 * Replays one `sql` tool query on a private in-memory copy of the two todo tables. Synchronous:
 * it runs in the replay's worker thread (`replayer.ts`), or in place when `inline.ts` allows.
 * @param tables - the tables as the session's list holds them
 * @param query - the agent's query (one or more statements)
 * @param statementLimit - replay only the first statements (those a failed query completed)
 * @returns the tables after the statements that ran, what was skipped, and why the whole call
 *   was refused when it was (the tables then as given)
 */
export function replayTodoQuery(
  tables: TodoTables,
  query: string,
  statementLimit = Number.POSITIVE_INFINITY
): ReplayOutcome {
  const all = query.length > MAX_QUERY_LENGTH ? [] : splitStatements(query)
  const statements = all.slice(0, statementLimit)
  const refused = callRefusal(query, all.length > MAX_STATEMENTS ? all : statements)
  if (refused) return refusedCall(tables, refused)
  const copy = copyOf()
  const { db } = copy
  try {
    copy.fill(tables)
    // the cap: asking SQLite only when twice the tables could reach the floor
    const cap =
      2 * mostBytes(tables) <= MAX_MIRROR_BYTES
        ? MAX_MIRROR_BYTES
        : Math.max(MAX_MIRROR_BYTES, 2 * byteSize(copy))
    const skipped: ReplayOutcome['skipped'] = []
    let ran = 0
    for (const [index, statement] of statements.entries()) {
      if (!WRITES.has(firstWord(statement))) {
        skipped.push({
          statement: index,
          reason: `not a write (${firstWord(statement).toUpperCase()})`,
        })
        continue
      }
      const outcome = runWrite(copy, statement)
      if (outcome && 'refused' in outcome) {
        return refusedCall(tables, `statement ${index + 1}: ${outcome.refused}`, index)
      }
      if (outcome) {
        skipped.push({ statement: index, reason: outcome.skipped })
        continue
      }
      ran++
      if (byteSize(copy) > cap) {
        // a query that grew the tables past the cap is not taken at all
        skipped.push({ statement: index, reason: TOO_LARGE })
        return { ...refusedCall(tables, TOO_LARGE, index), skipped }
      }
    }
    return { tables: readBack(copy), ran, skipped }
  } finally {
    // the agent's statements run in autocommit, as in Copilot; one may still have left a
    // transaction open (`BEGIN` is not run, but be sure): the next replay starts empty
    try {
      if (db.inTransaction) db.exec('ROLLBACK')
      copy.empty()
    } catch {
      // a copy that cannot be emptied is not used again: the next replay makes a new one
      db.close()
      shared = undefined
    }
  }
}
