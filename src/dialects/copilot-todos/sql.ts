/**
 * @module dialects/copilot-todos/sql
 * What GitHub Copilot CLI's `sql` tool did to its built-in `todos` / `todo_deps` tables, replayed
 * on a PRIVATE copy: a fresh in-memory SQLite database (better-sqlite3, the service's own SQLite)
 * holding only those two tables, with Copilot 1.0.102's schema byte for byte, filled from the
 * session's current list. The agent's statements run there, never against the service's store,
 * and the rows are read back.
 *
 * Why SQLite's own parser on a private copy and not a SQL parser package: the statements are
 * Copilot's SQLite dialect (upserts, `RETURNING`, `UPDATE … LIMIT`, SQLite functions and
 * defaults), and only SQLite itself evaluates them the way the agent's database did; a parser
 * package (node-sql-parser and the like) would mean evaluating WHERE clauses and defaults in
 * our own code, and a new root dependency. better-sqlite3 is already the service's SQLite.
 * The copy is one in-memory database per process, made once, with its statements prepared once:
 * each replay fills the empty tables from the session's list, runs the agent's statements as
 * Copilot did (each on its own, autocommit) and empties them again, so nothing of one replay is
 * there for the next (replays are synchronous: one at a time). Opening a fresh database, creating
 * the tables and preparing the statements for every write cost about 0.25 ms of CPU, which put
 * the Copilot route at ~1.3–1.5× a Claude Code hook's CPU per delivery (bench/results.md).
 *
 * better-sqlite3 has no authorizer, progress handler or `sqlite3_limit`, so what may run is
 * decided before SQLite sees a statement, from its tokens (the small lexer below: it only
 * finds token boundaries, SQLite does the parsing):
 * - one statement at a time (a query is split at top-level `;`), and only `INSERT`, `REPLACE`,
 *   `UPDATE`, `DELETE`: `ATTACH`, `PRAGMA`, `VACUUM INTO`, `CREATE`, `DROP`, `SELECT`, … never
 *   run. The copy has no other table, so a write to another table fails there (ignored);
 * - no `WITH` (no CTE, so no recursion), and every name called as a function must be one of a
 *   few functions whose result is no larger than their input (no `zeroblob`, `randomblob`,
 *   `printf`, `replace`, `group_concat`, `load_extension`, table-valued `pragma_*`/`json_each`);
 * - bounded work: the rows a statement can visit, the product over its references to the two
 *   tables of (rows + 1), stay under `MAX_ROW_PRODUCT`; `||` at most `MAX_CONCATS` times in a
 *   query; the tables' bytes are checked after every statement and the rest refused past
 *   `MAX_MIRROR_BYTES`; a query longer than `MAX_QUERY_LENGTH` is not replayed.
 * A statement that is refused, or that SQLite refuses on the copy, changes nothing; the others
 * of the same query still apply (Copilot runs them one by one, and keeps those that ran before
 * one that failed: `SQL Error after statement 2 (INSERT): … Completed 1 statement(s) before
 * failure`, a failed call whose first statement stays).
 */
import Database from 'better-sqlite3'

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
/** The most row combinations one statement may visit: product over table references of rows + 1. */
export const MAX_ROW_PRODUCT = 20_000
/** The most `||` in one query (each can double a value). */
export const MAX_CONCATS = 32
/** The floor of the bytes the two tables may hold after a statement (or twice what they held). */
export const MAX_MIRROR_BYTES = 4 * 1_048_576

const TABLES: ReadonlySet<string> = new Set(['todos', 'todo_deps'])
const WRITES: ReadonlySet<string> = new Set(['insert', 'replace', 'update', 'delete'])
const FORBIDDEN_WORDS: ReadonlySet<string> = new Set(['with', 'recursive'])

/** Words that may stand before `(` without being a call: keywords, and the two tables' column lists. */
const BEFORE_PAREN: ReadonlySet<string> = new Set([
  ...TABLES,
  ...['values', 'in', 'exists', 'not', 'and', 'or', 'on', 'where', 'select', 'as', 'set', 'from'],
  ...['join', 'case', 'when', 'then', 'else', 'conflict', 'returning', 'using', 'by', 'is'],
  ...['like', 'glob', 'between', 'cast', 'distinct', 'all', 'union', 'except', 'intersect'],
  ...['limit', 'offset', 'having', 'escape', 'into', 'do', 'nothing', 'end', 'collate'],
])

/** Functions whose result is no larger than their arguments (and that touch nothing outside). */
const FUNCTIONS: ReadonlySet<string> = new Set([
  ...['coalesce', 'ifnull', 'nullif', 'iif', 'lower', 'upper', 'trim', 'ltrim', 'rtrim'],
  ...['length', 'substr', 'substring', 'instr', 'abs', 'max', 'min', 'count', 'sum', 'total'],
  ...['avg', 'round', 'typeof', 'datetime', 'date', 'time', 'julianday', 'strftime', 'unixepoch'],
])

type TokenKind = 'word' | 'quoted' | 'string' | 'other' | 'semicolon' | 'paren'

interface Token {
  kind: TokenKind
  /** Lower-cased word, or the unquoted identifier; the text for the rest. */
  value: string
  start: number
  end: number
}

/** The end of a quoted run starting at `start` (the quote doubled inside is an escape). */
function quotedEnd(text: string, start: number, close: string): number {
  let i = start + 1
  for (;;) {
    const at = text.indexOf(close, i)
    if (at === -1) return text.length
    if (close !== ']' && text[at + 1] === close) {
      i = at + 2
      continue
    }
    return at + 1
  }
}

/**
 * SQLite's token boundaries: comments and whitespace are skipped, strings, quoted identifiers
 * (`"…"`, `` `…` ``, `[…]`), words, `;` and `(` are told apart; the rest is `other`.
 */
function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (/\s/.test(c)) {
      i++
    } else if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i)
      i = nl === -1 ? text.length : nl + 1
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2)
      i = close === -1 ? text.length : close + 2
    } else if (c === "'") {
      const end = quotedEnd(text, i, "'")
      tokens.push({ kind: 'string', value: text.slice(i, end), start: i, end })
      i = end
    } else if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c
      const end = quotedEnd(text, i, close)
      const inner = text.slice(i + 1, end - 1)
      const value = (close === ']' ? inner : inner.split(close + close).join(close)).toLowerCase()
      tokens.push({ kind: 'quoted', value, start: i, end })
      i = end
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      let end = i + 1
      while (end < text.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(text[end])) end++
      // x'…' is a blob literal, one token
      if (end === i + 1 && (c === 'x' || c === 'X') && text[end] === "'") {
        end = quotedEnd(text, end, "'")
        tokens.push({ kind: 'string', value: text.slice(i, end), start: i, end })
      } else {
        tokens.push({ kind: 'word', value: text.slice(i, end).toLowerCase(), start: i, end })
      }
      i = end
    } else if (c === ';') {
      tokens.push({ kind: 'semicolon', value: c, start: i, end: i + 1 })
      i++
    } else if (c === '(') {
      tokens.push({ kind: 'paren', value: c, start: i, end: i + 1 })
      i++
    } else {
      const end = c === '|' && text[i + 1] === '|' ? i + 2 : i + 1
      tokens.push({ kind: 'other', value: text.slice(i, end), start: i, end })
      i = end
    }
  }
  return tokens
}

/** One statement of a query: its text and tokens. */
interface Statement {
  sql: string
  tokens: Token[]
}

/** The query's statements, split at top-level `;` (empty ones dropped). */
function splitStatements(query: string): Statement[] {
  const statements: Statement[] = []
  let current: Token[] = []
  const flush = () => {
    if (current.length > 0) {
      statements.push({
        sql: query.slice(current[0].start, current[current.length - 1].end),
        tokens: current,
      })
    }
    current = []
  }
  for (const token of tokenize(query)) {
    if (token.kind === 'semicolon') flush()
    else current.push(token)
  }
  flush()
  return statements
}

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
}

const refs = (tokens: readonly Token[]): string[] =>
  tokens
    .filter((t) => (t.kind === 'word' || t.kind === 'quoted') && TABLES.has(t.value))
    .map((t) => t.value)

/** Why the statement may not run on the copy, or null when it may. */
function refusal(statement: Statement, rows: ReadonlyMap<string, number>): string | null {
  const { tokens } = statement
  const first = tokens[0]
  if (first.kind !== 'word' || !WRITES.has(first.value)) {
    return `not a write (${first.kind === 'word' ? first.value.toUpperCase() : first.value})`
  }
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
      if (!BEFORE_PAREN.has(token.value) && !FUNCTIONS.has(token.value)) {
        return `the function ${token.value} is not replayed`
      }
    }
  }
  return null
}

/** A column value as text (SQLite's TEXT affinity leaves blobs and some numbers as they are). */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (Buffer.isBuffer(value)) return value.toString('utf8')
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  return JSON.stringify(value)
}

/** The tables' contents and their size in bytes. */
function readBack(copy: Copy): { tables: TodoTables; bytes: number } {
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
  return { tables: { todos, deps }, bytes: byteSize(copy) }
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
  fill: (tables: TodoTables) => void
  empty: () => void
}

let shared: Copy | undefined

/** The process's copy, made on first use. */
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

/**
 * Replays one `sql` tool query on a private in-memory copy of the two todo tables.
 * @param tables - the tables as the session's list holds them
 * @param query - the agent's query (one or more statements)
 * @param statementLimit - replay only the first statements (those a failed query completed)
 * @returns the tables after the statements that may run, and what was skipped
 */
export function replayTodoQuery(
  tables: TodoTables,
  query: string,
  statementLimit = Number.POSITIVE_INFINITY
): ReplayOutcome {
  if (query.length > MAX_QUERY_LENGTH) {
    return { tables, ran: 0, skipped: [{ statement: 0, reason: 'the query is too long' }] }
  }
  const statements = splitStatements(query).slice(0, statementLimit)
  const concats = statements.reduce(
    (n, s) => n + s.tokens.filter((t) => t.kind === 'other' && t.value === '||').length,
    0
  )
  if (concats > MAX_CONCATS) {
    return { tables, ran: 0, skipped: [{ statement: 0, reason: 'too many || in the query' }] }
  }
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
    statements.forEach((statement, index) => {
      const rows = new Map([
        ['todos', (copy.countTodos.get() as { n: number }).n],
        ['todo_deps', (copy.countDeps.get() as { n: number }).n],
      ])
      const why = skipped.some((s) => s.reason === 'the tables grew too large')
        ? 'the tables grew too large'
        : refusal(statement, rows)
      if (why) {
        skipped.push({ statement: index, reason: why })
        return
      }
      try {
        const prepared = db.prepare(statement.sql)
        if (prepared.reader) prepared.all()
        else prepared.run()
        ran++
      } catch (error) {
        skipped.push({ statement: index, reason: (error as Error).message })
        return
      }
      if (byteSize(copy) > cap) {
        skipped.push({ statement: index, reason: 'the tables grew too large' })
      }
    })
    const read = readBack(copy)
    // a query that grew the tables past the cap is not taken at all
    if (read.bytes > cap) return { tables, ran: 0, skipped }
    return { tables: read.tables, ran, skipped }
  } finally {
    // the agent's statements run in autocommit, as in Copilot; one may still have left a
    // transaction open (`BEGIN` is refused, but be sure): the next replay starts empty
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
