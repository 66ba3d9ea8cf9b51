/**
 * copilot-todos: GitHub Copilot CLI's todo rows, observed only. Rounds never execute its `sql`
 * tool; its observer (through the guard, as ingest runs it) replays a successful query's
 * statements on a private copy of the two tables and reads the list back.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem } from '../../core/items.js'
import { observerOf, observeSettled, todoDialectOf } from '../observe/index.js'
import { getDialect } from '../registry.js'
import type { DialectState } from '../types.js'
import { fieldsOf } from '../../../test/dialect-support.js'
import { makeTestApp } from '../../../test/helpers.js'

const empty: DialectState = { items: [], data: {} }
const observer = observerOf('copilot-todos')!
// the replay runs in a worker thread: settled first, as ingest does around its store update
const sql = (query: string, state = empty, is_error = false) =>
  observeSettled(observer, { name: 'sql', input: { description: 'd', query } }, { is_error }, state)

/** The list after a query the observer must apply, on `state`. */
async function applied(query: string, state = empty): Promise<DialectState> {
  const outcome = await sql(query, state)
  assert.ok(outcome.applied, outcome.applied ? '' : outcome.reason)
  return outcome.state
}

describe('copilot-todos', () => {
  it("Should be the copilot family's dialect for its sql tool, and nothing else's", () => {
    assert.equal(todoDialectOf('copilot', 'sql'), 'copilot-todos')
    assert.equal(todoDialectOf('copilot', 'bash'), undefined)
    assert.equal(todoDialectOf('claude', 'sql'), undefined)
  })

  it('Should refuse every round call: the service never executes SQL for a model', async () => {
    const dialect = getDialect('copilot-todos')!
    const outcome = dialect.apply(
      empty,
      'sql',
      { description: 'd', query: 'DELETE FROM todos' },
      {
        callsInRound: 1,
        indexInRound: 0,
      }
    )
    assert.equal(outcome.result.is_error, true)
    assert.match(outcome.result.content, /observed only/)
    assert.equal(outcome.state, empty)
    const t = makeTestApp()
    const res = await t.call('POST', '/v1/sessions/copilot-round/rounds', {
      dialect: 'copilot-todos',
      tool_calls: [
        {
          id: 'c1',
          name: 'sql',
          input: { description: 'd', query: "INSERT INTO todos (id, title) VALUES ('a', 'A')" },
        },
      ],
    })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.results[0].is_error, true)
    assert.deepEqual(res.body.todos ?? [], [])
  })

  it('Should read rows back as items: text ids, title, description, statuses, deps both ways', async () => {
    const state = await applied(
      "INSERT INTO todos (id, title, description, status) VALUES (1, 'One', 'first', 'done'), ('two', 'Two', NULL, 'blocked'), ('three', 'Three', NULL, NULL); INSERT INTO todo_deps VALUES ('two', '1')"
    )
    assert.deepEqual(
      fieldsOf(state.items, 'id', 'content', 'status', 'description', 'blocked_by', 'blocks'),
      [
        ['1', 'One', 'completed', 'first', [], ['two']],
        ['two', 'Two', 'blocked', undefined, ['1'], []],
        ['three', 'Three', 'pending', undefined, [], []],
      ]
    )
    assert.deepEqual(state.data.todo_deps, [['two', '1']])
  })

  it("Should refuse a dependency on no todo, as Copilot's foreign keys do (the statement only)", async () => {
    const state = await applied("INSERT INTO todos (id, title) VALUES ('a', 'A')")
    const outcome = await sql("INSERT INTO todo_deps VALUES ('a', 'gone')", state)
    assert.equal(outcome.applied, false)
    const next = await applied(
      "INSERT INTO todo_deps VALUES ('a', 'gone'); INSERT INTO todos (id, title) VALUES ('b', 'B')",
      state
    )
    assert.deepEqual(fieldsOf(next.items, 'id', 'blocked_by'), [
      ['a', []],
      ['b', []],
    ])
  })

  it('Should start from the list it is given (status completed reads as done)', async () => {
    const state: DialectState = {
      items: [
        makeItem({ id: 'a', content: 'A', status: 'completed' }),
        makeItem({ id: 'b', content: 'B', status: 'pending' }),
      ],
      data: {},
    }
    const next = await applied(
      "UPDATE todos SET status = 'in_progress' WHERE status = 'pending'; DELETE FROM todos WHERE status = 'done'",
      state
    )
    assert.deepEqual(fieldsOf(next.items, 'id', 'status'), [['b', 'in_progress']])
  })

  it('Should not apply a failed call, a read, or a query that writes no todo table', async () => {
    assert.equal(
      (await sql("INSERT INTO todos (id, title) VALUES ('a', 'A')", empty, true)).applied,
      false
    )
    assert.equal((await sql('SELECT * FROM todos')).applied, false)
    assert.equal((await sql("INSERT INTO notes VALUES ('x')")).applied, false)
    assert.equal((await sql("INSERT INTO todos (id, title) VALUES ('a', NULL)")).applied, false)
  })

  it("Should take only the session's database (the sql tool's database: session_store is another)", async () => {
    const insert = "INSERT INTO todos (id, title) VALUES ('a', 'A')"
    const on = (database: string) =>
      observeSettled(
        observer,
        { name: 'sql', input: { description: 'd', query: insert, database } },
        { is_error: false },
        empty
      )
    assert.equal((await on('session_store')).applied, false)
    assert.equal((await on('session')).applied, true)
  })

  it('Should hold the list to the list rules (the guard): an id longer than 128 characters is not taken', async () => {
    const outcome = await sql(`INSERT INTO todos (id, title) VALUES ('${'x'.repeat(129)}', 'Long')`)
    assert.equal(outcome.applied, false)
  })
})
