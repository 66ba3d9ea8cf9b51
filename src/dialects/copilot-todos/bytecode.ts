/**
 * @module dialects/copilot-todos/bytecode
 * What a statement may touch, decided on the program SQLite compiled for it: `EXPLAIN <statement>`
 * on the private copy lists its bytecode, and the statement is replayed only if every b-tree it
 * opens is one of the two tables (or their indexes) of the main database, it opens no virtual
 * table, starts no transaction on another database, and calls only listed functions.
 *
 * Why the bytecode and not the text (the lexer) or a SQL parser package: a table a statement
 * reads can be named in many spellings (quoted, schema-qualified `main.sqlite_schema`,
 * `temp.sqlite_master`, a table-valued `pragma_table_info` with or without its parentheses,
 * `json_each`, `dbstat`, a view), and any reader of the text that is not SQLite's own parser can
 * disagree with it about one of them. The bytecode is what SQLite will run, after it resolved
 * every name: `sqlite_master` is root page 1, any virtual table is a `VOpen`, another database a
 * cursor or `Transaction` on database index ≠ 0. better-sqlite3 has no `sqlite3_set_authorizer`
 * (which would say the same thing as callbacks); node-sql-parser would be a second parser with
 * opinions of its own about SQLite's syntax, and a new root dependency. Preparing `EXPLAIN` costs
 * a second prepare of the statement, in the replay's worker thread.
 */
import type Database from 'better-sqlite3'

/** Functions whose result is no larger than their arguments (and that touch nothing outside). */
export const REPLAYED_FUNCTIONS: ReadonlySet<string> = new Set([
  ...['coalesce', 'ifnull', 'nullif', 'iif', 'lower', 'upper', 'trim', 'ltrim', 'rtrim'],
  ...['length', 'substr', 'substring', 'instr', 'abs', 'max', 'min', 'count', 'sum', 'total'],
  ...['avg', 'round', 'typeof', 'datetime', 'date', 'time', 'julianday', 'strftime', 'unixepoch'],
])

/** Operators SQLite compiles to a function call: `LIKE` (with or without `ESCAPE`) and `GLOB`. */
const OPERATOR_FUNCTIONS: ReadonlySet<string> = new Set(['like', 'glob'])

/** Opcodes that open a cursor on a b-tree named by its root page (P2) in database P3. */
const TABLE_OPENS: ReadonlySet<string> = new Set(['OpenRead', 'OpenWrite', 'ReopenIdx'])

/** Opcodes that call a function named in P4 (`name(nArg)`). */
const CALLS: ReadonlySet<string> = new Set([
  ...['Function', 'PureFunc', 'Function0', 'PureFunc0'],
  ...['AggStep', 'AggStep1', 'AggInverse', 'AggValue', 'AggFinal'],
])

/** Opcodes that change or read the schema or files: never in a replayed write. */
const SCHEMA_OPS: ReadonlySet<string> = new Set([
  ...['ParseSchema', 'CreateBtree', 'Destroy', 'DropTable', 'DropIndex', 'DropTrigger'],
  ...['SqlExec', 'Vacuum', 'IncrVacuum', 'LoadAnalysis', 'JournalMode', 'Program'],
])

/** One row of `EXPLAIN`, as better-sqlite3's raw mode gives it. */
type ExplainRow = [number, string, number, number, number, unknown, number, unknown]

/** What the replay lets a statement touch: the b-trees of the two tables, by root page. */
export interface AllowedTrees {
  roots: ReadonlySet<number>
}

/** The root pages of the two tables and their indexes on the copy. */
export function allowedTrees(db: Database.Database, tables: readonly string[]): AllowedTrees {
  const rows = db
    .prepare(
      `SELECT rootpage FROM sqlite_schema WHERE tbl_name IN (${tables.map(() => '?').join(', ')})`
    )
    .pluck()
    .all(...tables) as number[]
  return { roots: new Set(rows) }
}

/** Why one opcode reaches beyond the two tables, or null. */
function opRefusal(row: ExplainRow, allowed: AllowedTrees): string | null {
  const [, opcode, p1, p2, p3, p4] = row
  if (TABLE_OPENS.has(opcode)) {
    if (p3 !== 0) return 'it reads another database'
    if (!allowed.roots.has(p2)) return 'it reads a table other than todos and todo_deps'
    return null
  }
  // a virtual table: pragma_* table-valued functions, json_each, dbstat, fts, rtree, …
  if (/^V[A-Z]/.test(opcode)) return 'it reads a virtual table (a pragma or table-valued function)'
  if (opcode === 'Transaction' && p1 !== 0) return 'it opens another database'
  if (opcode === 'Clear' && (p3 !== 0 || !allowed.roots.has(p1))) {
    return 'it clears a table other than todos and todo_deps'
  }
  if (SCHEMA_OPS.has(opcode)) return `it changes the schema (${opcode})`
  if (CALLS.has(opcode)) {
    const name = String(p4).replace(/\(.*$/, '').toLowerCase()
    if (!REPLAYED_FUNCTIONS.has(name) && !OPERATOR_FUNCTIONS.has(name)) {
      return `the function ${name} is not replayed`
    }
  }
  return null
}

/** What SQLite said of a statement's bytecode. */
export type BytecodeVerdict =
  | { ok: true }
  /** SQLite could not prepare it on the copy (a table or column the copy lacks, a syntax error). */
  | { ok: false; unsafe: false; reason: string }
  /** It would reach beyond the two tables: refuse the call. */
  | { ok: false; unsafe: true; reason: string }

/**
 * Checks a statement's bytecode against the allow-list.
 * @param db - the private copy
 * @param sql - one statement
 * @param allowed - the two tables' b-trees
 */
export function checkBytecode(
  db: Database.Database,
  sql: string,
  allowed: AllowedTrees
): BytecodeVerdict {
  let rows: ExplainRow[]
  try {
    rows = db.prepare(`EXPLAIN ${sql}`).raw().all() as ExplainRow[]
  } catch (error) {
    // a table the copy lacks (the agent's own `notes`), a column, a syntax error: it cannot run
    return { ok: false, unsafe: false, reason: (error as Error).message }
  }
  for (const row of rows) {
    const reason = opRefusal(row, allowed)
    if (reason) return { ok: false, unsafe: true, reason }
  }
  return { ok: true }
}
