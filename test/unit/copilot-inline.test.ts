/**
 * Copilot's usual `sql` writes are replayed on the event loop, without the worker thread's round
 * trip, when their work is provably small (`inline.ts`); anything else still goes to the thread
 * and its deadline. A statement's bytecode verdict is kept by its exact text, never by a shape.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import {
  inlineWork,
  MAX_INLINE_QUERY,
  MAX_INLINE_STATEMENTS,
  MAX_INLINE_WORK,
  replaysInline,
} from '../../src/dialects/copilot-todos/inline.js'
import {
  mayWriteTodos,
  replayTodoQuery,
  type TodoTables,
} from '../../src/dialects/copilot-todos/sql.js'
import { observerOf, ObservePending } from '../../src/dialects/observe/index.js'
import type { DialectState } from '../../src/dialects/types.js'
import { makeItem } from '../../src/core/items.js'

const three: TodoTables = {
  todos: [
    { id: 'a', title: 'A', description: null, status: 'pending' },
    { id: 'b', title: 'B', description: null, status: 'pending' },
    { id: 'c', title: 'C', description: null, status: 'pending' },
  ],
  deps: [['b', 'a']],
}
const state: DialectState = {
  items: ['a', 'b', 'c'].map((id) =>
    makeItem({ id, content: id.toUpperCase(), status: 'pending' })
  ),
  data: {},
}

const observer = observerOf('copilot-todos')!
/** The observer's synchronous answer, or the `ObservePending` it throws. */
const observeNow = (query: string) => {
  try {
    return observer.observe(
      { name: 'sql', input: { description: 'd', query } },
      { is_error: false },
      state
    )
  } catch (error) {
    if (error instanceof ObservePending) return error
    throw error
  }
}

/** Every query of Copilot's captured `sql` calls (test/fixtures/ingest/copilot/). */
function capturedQueries(): string[] {
  const dir = new URL('../fixtures/ingest/copilot/', import.meta.url)
  const queries = new Set<string>()
  for (const file of fs.readdirSync(dir)) {
    const text = fs.readFileSync(new URL(file, dir), 'utf8')
    for (const match of text.matchAll(/"query": ?"((?:[^"\\]|\\.)*)"/g)) {
      queries.add(JSON.parse(`"${match[1]}"`) as string)
    }
  }
  return [...queries]
}

describe('copilot-todos: cheap replays on the event loop', () => {
  it("Should answer Copilot's usual write at once, without the thread (ObservePending before)", () => {
    const outcome = observeNow("UPDATE todos SET status = 'done' WHERE id = 'a'")
    assert.ok(!(outcome instanceof ObservePending), 'the replay went to the thread')
    assert.ok(outcome.applied, outcome.applied ? '' : outcome.reason)
    assert.deepEqual(
      outcome.state.items.map((item) => [item.id, item.status]),
      [
        ['a', 'completed'],
        ['b', 'pending'],
        ['c', 'pending'],
      ]
    )
  })

  it('Should replay every captured Copilot query inline', () => {
    const queries = capturedQueries()
    assert.ok(queries.length >= 10, `${queries.length} queries`)
    const writes = queries.filter(mayWriteTodos)
    assert.ok(writes.length >= 8, `${writes.length} writes`)
    for (const query of writes) assert.ok(replaysInline(three, query), query)
  })

  it('Should send anything not provably cheap to the thread', () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => `UPDATE todos SET title = 'T${i}' WHERE id = 'a'`)
    const bigTables: TodoTables = {
      todos: Array.from({ length: 150 }, (_, i) => ({
        id: `t${i}`,
        title: `T${i}`,
        description: null,
        status: 'pending',
      })),
      deps: Array.from({ length: 60 }, (_, i): [string, string] => [`t${i + 1}`, `t${i}`]),
    }
    const longValues: TodoTables = {
      todos: three.todos.map((row) => ({ ...row, description: 'x'.repeat(200_000) })),
      deps: [],
    }
    const cases: [string, TodoTables][] = [
      // a nested loop: a subquery, a join, a table named twice
      ["UPDATE todos SET status = 'done' WHERE id IN (SELECT todo_id FROM todo_deps)", three],
      ["UPDATE todos SET status = 'done' FROM (VALUES ('a')) AS v WHERE id = v.column1", three],
      ["UPDATE todos SET status = 'done' WHERE id IN todo_deps", three],
      ["UPDATE todos SET status = 'done' WHERE todos.id = 'a'", three],
      ["WITH x AS (VALUES (1)) UPDATE todos SET status = 'done'", three],
      // costly comparisons and values that grow
      [`UPDATE todos SET status = 'done' WHERE title LIKE '${'%x'.repeat(50)}'`, three],
      ["UPDATE todos SET status = 'done' WHERE id GLOB 'a*'", three],
      ["UPDATE todos SET title = title || title WHERE id = 'a'", three],
      ["UPDATE todos SET title = upper(title) WHERE id = 'a'", three],
      ['UPDATE todos SET title = "substr"(title, 2) WHERE id = \'a\'', three],
      ["UPDATE todos SET status = 'done' WHERE instr(title, 'A') > 0", three],
      ["UPDATE todos SET title = strftime('%Y%Y%Y%Y', 'now') WHERE id = 'a'", three],
      // too long, too many statements, too many rows, too much work
      [`UPDATE todos SET title = '${'x'.repeat(MAX_INLINE_QUERY)}' WHERE id = 'a'`, three],
      [many(MAX_INLINE_STATEMENTS + 1).join('; '), three],
      ["UPDATE todos SET status = 'done' WHERE id = 't1'", bigTables],
      ["UPDATE todos SET status = 'done' WHERE id = 'a'", longValues],
    ]
    for (const [query, tables] of cases) {
      assert.equal(replaysInline(tables, query), false, query.slice(0, 90))
    }
    assert.ok(inlineWork(longValues, cases.at(-1)![0])! > MAX_INLINE_WORK)
    assert.ok(replaysInline(three, many(MAX_INLINE_STATEMENTS).join('; ')))
    assert.ok(observeNow(cases[0][0]) instanceof ObservePending)
  })

  it('Should refuse on the event loop what the bytecode refuses, changing nothing', () => {
    // single-quoted strings that SQLite reads as table names: inline by their tokens
    for (const query of [
      "UPDATE todos SET title = 'x' WHERE id IN 'pragma_compile_options'",
      "INSERT INTO todos (id, title) VALUES ('n', 'N'); DELETE FROM todos WHERE id IN 'pragma_compile_options'",
      "INSERT INTO todos (id, title) VALUES ('n', sqlite_version())",
      "PRAGMA foreign_keys = OFF; INSERT INTO todos (id, title) VALUES ('n', 'N')",
    ]) {
      assert.ok(replaysInline(three, query), query)
      const outcome = observeNow(query)
      assert.ok(!(outcome instanceof ObservePending), query)
      assert.equal(outcome.applied, false, query)
      assert.match(outcome.applied ? '' : outcome.reason, /refused/, query)
      // and again, from the kept verdict
      assert.ok(replayTodoQuery(three, query).refused, query)
    }
  })
})

describe('copilot-todos: verdicts kept by the exact text', () => {
  it('Should not pass a statement because one differing only in a literal passed', () => {
    const guarded = (literal: number) =>
      `UPDATE todos SET title = 'x' WHERE ${literal} AND (SELECT count(*) FROM sqlite_master) > 0`
    // WHERE 0 folds the read of sqlite_master away: SQLite's program opens only todos
    const folded = replayTodoQuery(three, guarded(0))
    assert.equal(folded.refused, undefined, JSON.stringify(folded.skipped))
    assert.match(replayTodoQuery(three, guarded(1)).refused ?? '', /other than todos/)
  })

  it('Should replay a kept statement on each call from that call’s tables', () => {
    const query = "UPDATE todos SET status = 'done' WHERE id = 'b'"
    const first = replayTodoQuery(three, query)
    const other: TodoTables = {
      todos: [{ id: 'b', title: 'Other B', description: 'd', status: 'blocked' }],
      deps: [],
    }
    const second = replayTodoQuery(other, query)
    assert.deepEqual(
      first.tables.todos.map((row) => row.status),
      ['pending', 'done', 'pending']
    )
    assert.deepEqual(second.tables.todos, [
      { id: 'b', title: 'Other B', description: 'd', status: 'done' },
    ])
    // a statement SQLite cannot prepare stays skipped, and the others of the call still run
    for (let i = 0; i < 2; i++) {
      const out = replayTodoQuery(
        three,
        "UPDATE todos SET priority = 'high' WHERE id = 'a'; UPDATE todos SET status = 'done' WHERE id = 'a'"
      )
      assert.equal(out.ran, 1)
      assert.match(out.skipped[0].reason, /no such column: priority/)
    }
  })
})
