/**
 * Copilot's `sql` calls are replayed on a private SQLite copy; one request must not freeze every
 * tenant (issue 32, item 2). Only `todos` and `todo_deps` may be read or written (SQLite's own
 * bytecode is checked: sqlite_master, sqlite_schema, temp, attached databases, pragma_* and other
 * virtual tables refuse the call), a call holds at most MAX_STATEMENTS statements, and the replay
 * runs in a worker thread under a deadline: the event loop answers other requests meanwhile.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { configureReplayer, Replayer } from '../../src/dialects/copilot-todos/replayer.js'
import {
  MAX_STATEMENTS,
  replayTodoQuery,
  type TodoTables,
} from '../../src/dialects/copilot-todos/sql.js'
import { eventually } from '../eventually.js'
import { makeTestApp, type TestApp } from '../helpers.js'
import { ingest, rows, view } from '../ingest-support.js'

const three: TodoTables = {
  todos: [
    { id: 'a', title: 'A', description: null, status: 'pending' },
    { id: 'b', title: 'B', description: null, status: 'pending' },
    { id: 'c', title: 'C', description: null, status: 'pending' },
  ],
  deps: [['b', 'a']],
}

/** A 15-way cross join of `sqlite_master` (4 rows on the copy): 4^15 rows, 22.6 s in the review. */
const crossJoin = (table = 'sqlite_master') =>
  `UPDATE todos SET title = 'x' WHERE (SELECT count(*) FROM ${Array.from(
    { length: 15 },
    (_, i) => `${table} t${i}`
  ).join(', ')}) > 0`

/** Rows whose titles make a `LIKE` of many wildcards slow, within every bound of the replay. */
const slowRows = (n: number, length: number): TodoTables => ({
  todos: Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    title: 'x'.repeat(length),
    description: null,
    status: 'pending',
  })),
  deps: [],
})
const SLOW_LIKE = `UPDATE todos AS o SET status = 'done' WHERE EXISTS (SELECT 1 FROM todos b WHERE b.title LIKE '${'%x'.repeat(1000)}%y' || o.id)`

/** A Copilot postToolUse hook of a successful `sql` call. */
const hook = (session: string, timestamp: number, query: string) => ({
  sessionId: session,
  timestamp,
  cwd: '/w',
  toolName: 'sql',
  toolArgs: { description: 'd', query },
  toolResult: { resultType: 'success', textResultForLlm: 'ok' },
})

/** A session holding `tables`' rows, written by real-looking INSERTs of 40 rows each. */
async function seeded(t: TestApp, session: string, tables: TodoTables): Promise<number> {
  for (let at = 0; at < tables.todos.length; at += 40) {
    const chunk = tables.todos.slice(at, at + 40)
    const values = chunk.map((row) => `('${row.id}', '${row.title}')`).join(', ')
    const query = `INSERT INTO todos (id, title) VALUES ${values}`
    const res = await ingest(t, 'copilot', hook(session, 1 + at, query))
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.applied, 1, res.text)
  }
  return (await view(t, `copilot:${session}`)).version
}

describe('copilot-todos: what a replay may read, and how many statements', () => {
  it('Should refuse a call whose write reads anything but the two tables, changing nothing', () => {
    const hostile = [
      crossJoin(),
      crossJoin('sqlite_schema'),
      crossJoin('main.sqlite_master'),
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM sqlite_master",
      'INSERT INTO todos (id, title) SELECT name, \'x\' FROM "sqlite_schema"',
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM temp.sqlite_master",
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM sqlite_temp_master",
      // table-valued pragma functions, without and with their parentheses
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM pragma_table_info",
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM pragma_database_list",
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM pragma_function_list",
      'UPDATE todos SET title = (SELECT count(*) FROM pragma_module_list a, pragma_module_list b)',
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM \"pragma_table_info\"('todos')",
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM dbstat",
      "INSERT INTO todos (id, title) SELECT 'k', 'x' FROM todos, sqlite_master LIMIT 1",
      "UPDATE todos SET title = 'x' WHERE id IN (SELECT name FROM sqlite_master)",
      // statements that are no write and no read: the call is refused, not merely skipped
      "ATTACH DATABASE ':memory:' AS other; INSERT INTO todos (id, title) VALUES ('n', 'N')",
      "PRAGMA foreign_keys = OFF; INSERT INTO todos (id, title) VALUES ('n', 'N')",
      "INSERT INTO todos (id, title) VALUES ('n', 'N'); VACUUM",
      "INSERT INTO todos (id, title) VALUES (load_extension('x'), 'N')",
      "INSERT INTO todos (id, title) VALUES ('n', sqlite_version())",
    ]
    for (const query of hostile) {
      const out = replayTodoQuery(three, query)
      assert.ok(out.refused, `${query.slice(0, 90)}: ${JSON.stringify(out.skipped)}`)
      assert.equal(out.ran, 0, query)
      assert.deepEqual(out.tables, three, query)
    }
  })

  it('Should still replay what Copilot writes: the two tables, their indexes, defaults, LIKE, subqueries', () => {
    const out = replayTodoQuery(
      three,
      [
        "INSERT INTO todos (id, title, status) VALUES ('d', 'D', 'pending')",
        "UPDATE todos SET status = 'done' WHERE title LIKE 'a%' OR id GLOB 'c*'",
        "INSERT INTO todo_deps (todo_id, depends_on) SELECT 'd', id FROM todos WHERE status = 'done'",
        'UPDATE todos SET title = upper(title) WHERE id IN (SELECT todo_id FROM todo_deps)',
        'CREATE TABLE notes (body TEXT)',
        'SELECT count(*) FROM sqlite_master',
      ].join('; ')
    )
    assert.equal(out.refused, undefined, JSON.stringify(out.skipped))
    assert.equal(out.ran, 4)
    assert.deepEqual(
      out.tables.todos.map((row) => [row.id, row.title, row.status]),
      [
        ['a', 'A', 'done'],
        ['b', 'B', 'pending'],
        ['c', 'C', 'done'],
        ['d', 'D', 'pending'],
      ]
    )
  })

  it(`Should refuse a call of more than ${MAX_STATEMENTS} statements, and take one of exactly that many`, () => {
    const statements = (n: number) =>
      Array.from({ length: n }, (_, i) => `UPDATE todos SET title = 'T${i}' WHERE id = 'a'`).join(
        '; '
      )
    const over = replayTodoQuery(three, statements(MAX_STATEMENTS + 1))
    assert.match(over.refused ?? '', /more than 100 statements/)
    assert.deepEqual(over.tables, three)
    const at = replayTodoQuery(three, statements(MAX_STATEMENTS))
    assert.equal(at.ran, MAX_STATEMENTS)
    assert.equal(at.tables.todos[0].title, `T${MAX_STATEMENTS - 1}`)
  })
})

describe('copilot-todos: the replay off the event loop', () => {
  after(() => configureReplayer({}))

  it('Should answer a hostile call as applied nothing (never 5xx), the session unchanged', async () => {
    const t = makeTestApp()
    const version = await seeded(t, 'x1', three)
    for (const [i, query] of [
      crossJoin(),
      "INSERT INTO todos (id, title) SELECT name, 'x' FROM pragma_table_info",
      Array.from({ length: 2520 }, () => "UPDATE todos SET status = 'done' WHERE id = 'a'").join(
        ';'
      ),
    ].entries()) {
      const res = await ingest(t, 'copilot', hook('x1', 10 + i, query))
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.applied, 0, query.slice(0, 80))
    }
    const session = await view(t, 'copilot:x1')
    assert.equal(session.version, version)
    assert.deepEqual(rows(session.items), [
      ['a', 'pending', 'A'],
      ['b', 'pending', 'B'],
      ['c', 'pending', 'C'],
    ])
  })

  it('Should answer /livez while a slow replay runs, and refuse the replay at its deadline', async () => {
    const t = makeTestApp()
    const tables = slowRows(140, 1000)
    const version = await seeded(t, 'x2', tables)
    await configureReplayer({ deadlineMs: 100 })
    let settled = false
    const slow = ingest(t, 'copilot', hook('x2', 1000, SLOW_LIKE)).finally(() => {
      settled = true
    })
    // the event loop is free: another request is answered while the replay is in the thread
    const live = await t.call('GET', '/livez')
    assert.equal(live.status, 200)
    assert.equal(settled, false, 'the slow replay held the event loop until it was done')
    const res = await slow
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.applied, 0)
    const session = await view(t, 'copilot:x2')
    assert.equal(session.version, version)
    assert.ok(session.items.every((item: { status: string }) => item.status === 'pending'))
  })

  it('Should let a thread past its deadline go and replay the next call on a new one', async () => {
    const replayer = new Replayer({ deadlineMs: 50, maxStranded: 1 })
    try {
      const tables = slowRows(140, 1000)
      const slow = await replayer.replay({ tables, query: SLOW_LIKE })
      assert.match(slow.refused ?? '', /ran past its deadline \(50 ms\)/)
      assert.deepEqual(slow.tables, tables)
      // the next one waits for the stranded thread to end (maxStranded 1), then runs
      const next = await replayer.replay({
        tables: three,
        query: "UPDATE todos SET status = 'done' WHERE id = 'a'",
      })
      assert.equal(next.refused, undefined)
      assert.equal(next.tables.todos[0].status, 'done')
      assert.ok(await eventually(() => replayer.strandedThreads === 0))
    } finally {
      await replayer.close()
    }
  })
})
