/**
 * POST /v1/ingest/copilot: GitHub Copilot CLI 1.0.102's real hooks (camelCase and PascalCase) and
 * `--output-format json` stream (test/fixtures/ingest/copilot/, REAL-CAPTURES.md) replayed through
 * the app. Its todo writes are `sql` statements on the built-in `todos` / `todo_deps` tables,
 * replayed on a private copy: the tests check the list the real session DB ended with, and that
 * nothing the agent sent beyond writes to those two tables runs anywhere.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { replayTodoQuery, type TodoTables } from '../../src/dialects/copilot-todos/sql.js'
import { makeTestApp } from '../helpers.js'
import {
  fixtureJson,
  fixtureLines,
  fixtureText,
  historyRows,
  ingest,
  postHooks,
  rows,
  view,
} from '../ingest-support.js'

const CAMEL = 'copilot:4102cfe4-f662-460c-9e1a-3e996ee32a2a'
const PASCAL = 'copilot:ed36ca07-6f8c-44c4-b317-7dbc6f170607'

const hooks = (casing: 'camel' | 'pascal') =>
  fixtureLines(`copilot/real-hooks-${casing}.ndjson`).map((line) => JSON.parse(line))

/** The list the real session.db held at the end of the run (real-session-db-todos.json). */
function sessionDbList() {
  const dump = fixtureJson('copilot/real-session-db-todos.json')
  const status: Record<string, string> = {
    pending: 'pending',
    in_progress: 'in_progress',
    done: 'completed',
    blocked: 'blocked',
  }
  return dump.todos.map((row: any) => ({
    id: row.id,
    content: row.title,
    status: status[row.status],
    description: row.description ?? undefined,
    blocked_by: dump.todo_deps
      .filter((dep: any) => dep.todo_id === row.id)
      .map((dep: any) => dep.depends_on),
  }))
}

const listOf = (items: any[]) =>
  items.map((item) => ({
    id: item.id,
    content: item.content,
    status: item.status,
    description: item.description,
    blocked_by: item.blocked_by,
  }))

/** The list after each successful todo write of the run (its tool results say what each did). */
const HISTORY = [
  [1, 'ingest', []],
  [
    2,
    'ingest',
    [
      ['read-server', 'pending', 'Read the server code'],
      ['add-health', 'pending', 'Add the /health route'],
      ['test-health', 'pending', 'Test /health'],
    ],
  ],
  [
    3,
    'ingest',
    [
      ['read-server', 'pending', 'Read the server code'],
      ['add-health', 'pending', 'Add the /health route'],
      ['test-health', 'pending', 'Test /health'],
    ],
  ],
  [
    4,
    'ingest',
    [
      ['read-server', 'in_progress', 'Read the server code'],
      ['add-health', 'pending', 'Add the /health route'],
      ['test-health', 'pending', 'Test /health'],
    ],
  ],
  [
    5,
    'ingest',
    [
      ['read-server', 'completed', 'Read the server code'],
      ['add-health', 'in_progress', 'Add the /health route'],
      ['test-health', 'pending', 'Test /health'],
    ],
  ],
  [
    6,
    'ingest',
    [
      ['read-server', 'completed', 'Read the server code'],
      ['add-health', 'in_progress', 'Add the /health route'],
      ['test-health', 'blocked', 'Test /health'],
    ],
  ],
]

describe('POST /v1/ingest/copilot', () => {
  for (const [casing, session] of [
    ['camel', CAMEL],
    ['pascal', PASCAL],
  ] as const) {
    it(`Should build the list the session DB held from the real ${casing}Case hooks, and end it with sessionEnd`, async () => {
      const t = makeTestApp()
      const replies = await postHooks(t, 'copilot', hooks(casing))
      assert.equal(replies[0].body.session_id, session)
      const view_ = await view(t, session)
      assert.equal(view_.source, 'copilot')
      assert.equal(view_.dialect, 'copilot-todos')
      assert.deepEqual(listOf(view_.items), sessionDbList())
      // blocked stays visible, and blocks is the inverse of the dependencies
      assert.deepEqual(
        view_.items.map((item: any) => [item.id, item.blocks]),
        [
          ['read-server', ['add-health']],
          ['add-health', ['test-health']],
          ['test-health', []],
        ]
      )
      // SessionEnd(reason complete) with unfinished items
      assert.equal(view_.ended.outcome, 'cancelled')
      assert.equal(view_.ended.detail, 'complete')
      assert.deepEqual(view_.ended.unfinished, ['add-health', 'test-health'])
      // one version per write that changed the list (the deps write changes blocked_by), then the end
      const history = await historyRows(t, session)
      assert.deepEqual(history.slice(0, HISTORY.length), HISTORY)
      assert.equal(history.length, HISTORY.length + 1)
    })
  }

  it('Should take the cwd of the hooks, camelCase and PascalCase alike', async () => {
    const t = makeTestApp()
    for (const [casing, session] of [
      ['camel', CAMEL],
      ['pascal', PASCAL],
    ] as const) {
      await postHooks(t, 'copilot', hooks(casing))
      const origin = (await view(t, session)).origin
      assert.equal(origin.cwd, '/tmp/copilot-run/project')
      assert.equal(origin.agent, 'copilot')
    }
  })

  it('Should build the same list from the real --output-format json stream, and end it with result (exitCode 0)', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'copilot', fixtureText('copilot/real-stream.jsonl'))
    assert.equal(res.status, 200)
    assert.equal(res.body.session_id, CAMEL)
    const session = await view(t, CAMEL)
    assert.deepEqual(listOf(session.items), sessionDbList())
    assert.equal(session.ended.outcome, 'completed')
    // one delivery: the lists it went through, in order (the statement SQLite refused, no such
    // column: priority, is a failed call and adds none)
    const lists = (await historyRows(t, CAMEL)).map((entry: any[]) => entry[2])
    assert.deepEqual(
      lists.filter(
        (list: unknown, i: number) =>
          i === 0 || JSON.stringify(list) !== JSON.stringify(lists[i - 1])
      ),
      HISTORY.slice(1)
        .map((entry) => entry[2])
        .filter((list, i, all) => i === 0 || JSON.stringify(list) !== JSON.stringify(all[i - 1]))
    )
  })

  it('Should take the stream in parts (?session_id= before result names it), and a part posted twice once', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('copilot/real-stream.jsonl')
    const half = Math.floor(lines.length / 2)
    const orphan = await ingest(t, 'copilot', lines.slice(0, half).join('\n'))
    assert.equal(orphan.status, 400)
    assert.equal(orphan.body.type, 'https://agent-todos.dev/problems/session-unknown')
    const q = `?session_id=${CAMEL}`
    await ingest(t, 'copilot', lines.slice(0, half).join('\n'), q)
    const again = await ingest(t, 'copilot', lines.slice(0, half).join('\n'), q)
    assert.equal(again.body.applied, 0)
    await ingest(t, 'copilot', lines.slice(half).join('\n'), q)
    const session = await view(t, CAMEL)
    assert.deepEqual(listOf(session.items), sessionDbList())
  })

  it('Should apply each hook once: duplicates, a replay of the whole run, and reordered lifecycle hooks', async () => {
    const t = makeTestApp()
    const all = hooks('camel')
    // every hook twice in a row (a retried delivery)
    await postHooks(
      t,
      'copilot',
      all.flatMap((hook) => [hook, hook])
    )
    const first = await view(t, CAMEL)
    assert.deepEqual(listOf(first.items), sessionDbList())
    const replay = await postHooks(t, 'copilot', all)
    assert.equal(
      replay.reduce((n, res) => n + (res.body.applied as number), 0),
      0,
      'a replayed run applies nothing'
    )
    assert.equal((await view(t, CAMEL)).version, first.version)
    // lifecycle hooks arriving out of order around the writes (parallel hooks) change no item
    const u = makeTestApp()
    const writes = all.filter((hook) => 'toolResult' in hook)
    const others = all.filter((hook) => !('toolResult' in hook) && !('reason' in hook))
    await postHooks(u, 'copilot', [...writes.slice(0, 2), ...others.reverse(), ...writes.slice(2)])
    assert.deepEqual(listOf((await view(u, CAMEL)).items), sessionDbList())
  })

  it('Should tell a repeat of the same statement at another timestamp from a duplicate', async () => {
    const t = makeTestApp()
    const hook = (timestamp: number, query: string) => ({
      sessionId: 's1',
      timestamp,
      cwd: '/w',
      toolName: 'sql',
      toolArgs: { description: 'd', query },
      toolResult: { resultType: 'success', textResultForLlm: 'ok' },
    })
    await postHooks(t, 'copilot', [
      hook(1, "INSERT INTO todos (id, title) VALUES ('a', 'A')"),
      hook(2, "INSERT INTO todos (id, title) VALUES ('b', 'B')"),
      hook(3, "DELETE FROM todos WHERE id = 'a'"),
      hook(4, "INSERT INTO todos (id, title) VALUES ('a', 'A again')"),
      // the same delivery again: a duplicate
      hook(4, "INSERT INTO todos (id, title) VALUES ('a', 'A again')"),
    ])
    assert.deepEqual(rows((await view(t, 'copilot:s1')).items), [
      ['b', 'pending', 'B'],
      ['a', 'pending', 'A again'],
    ])
  })

  it('Should change nothing for a failed call, a statement SQLite refuses, and statements on other tables', async () => {
    const t = makeTestApp()
    const base = {
      sessionId: 's2',
      cwd: '/w',
      toolName: 'sql',
    }
    const post = (timestamp: number, query: string, resultType = 'success') =>
      ingest(t, 'copilot', {
        ...base,
        timestamp,
        toolArgs: { description: 'd', query },
        toolResult: { resultType, textResultForLlm: 'x' },
      })
    await post(1, "INSERT INTO todos (id, title, status) VALUES ('a', 'A', 'pending')")
    const version = (await view(t, 'copilot:s2')).version
    // the agent's own tool failed: nothing of it counts
    const failed = await post(2, "UPDATE todos SET status = 'done' WHERE id = 'a'", 'failure')
    assert.equal(failed.body.applied, 0)
    // a status Copilot's CHECK refuses, a column it does not have
    await post(3, "UPDATE todos SET status = 'finished' WHERE id = 'a'")
    await post(4, "UPDATE todos SET priority = 1 WHERE id = 'a'")
    // other tables, reads, schema changes
    await post(5, 'CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)')
    await post(6, 'SELECT * FROM todos')
    await post(7, "INSERT INTO notes SELECT title FROM todos; UPDATE todos_archive SET title = 'x'")
    const session = await view(t, 'copilot:s2')
    assert.equal(session.version, version)
    assert.deepEqual(rows(session.items), [['a', 'pending', 'A']])
    // a query whose todo statement succeeds beside ignored ones applies that statement only
    await post(
      8,
      "CREATE TABLE n (x); UPDATE todos SET status = 'done' WHERE id = 'a'; DROP TABLE n"
    )
    assert.deepEqual(rows((await view(t, 'copilot:s2')).items), [['a', 'completed', 'A']])
  })

  it('Should mark the session waiting on a real permissionRequest and Notification(permission_prompt), until the next event', async () => {
    for (const casing of ['camel', 'pascal'] as const) {
      const t = makeTestApp()
      const all = fixtureLines(`copilot/real-permission-hooks-${casing}.ndjson`).map((line) =>
        JSON.parse(line)
      )
      const ask = all.findIndex((hook) => hook.hookName === 'permissionRequest')
      const replies = await postHooks(t, 'copilot', all.slice(0, ask + 1))
      const id = replies[0].body.session_id
      const waiting = await view(t, id)
      assert.equal(waiting.waiting?.reason, 'permission_prompt', casing)
      assert.equal(waiting.waiting?.message, 'Permission needed: edit')
      if (casing === 'pascal') {
        // the Notification of the same prompt keeps it waiting
        await postHooks(t, 'copilot', [all[ask + 1]])
        assert.equal((await view(t, id)).waiting?.reason, 'permission_prompt')
      }
      const stop = all.find((hook) => hook.stopReason || hook.stop_reason)
      await postHooks(t, 'copilot', [stop])
      assert.equal((await view(t, id)).waiting, null, casing)
      assert.deepEqual(rows((await view(t, id)).items), [
        ['write-file', 'in_progress', 'Write health.txt'],
      ])
    }
  })

  it('Should keep what a failed query completed before failing, as Copilot does (real stream), and nothing of a refused one', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'copilot', fixtureText('copilot/real-failures-stream.jsonl'))
    assert.equal(res.status, 200)
    const session = await view(t, res.body.session_id)
    // the agent's read-back: | tag | Tag the release | pending |
    const readBack = fixtureJson('copilot/real-failures-tool-results.json').find(
      (e: any) => e.input.description === 'Read back'
    )
    assert.match(readBack.result, /\| tag \| Tag the release \| pending \|/)
    assert.deepEqual(rows(session.items), [['tag', 'pending', 'Tag the release']])
    assert.deepEqual(session.items[0].blocked_by, [])
  })

  it('Should end the run with a stream result of exitCode 1 as error', async () => {
    const t = makeTestApp()
    const body = [
      { type: 'assistant.turn_start', data: { turnId: '0' } },
      { type: 'result', sessionId: 'x1', exitCode: 1, usage: {} },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n')
    await ingest(t, 'copilot', body)
    const session = await view(t, 'copilot:x1')
    assert.equal(session.ended.outcome, 'error')
    assert.equal(session.ended.detail, 'exit code 1')
  })

  it("Should refuse a body that is not Copilot's with a 400, applying nothing", async () => {
    const t = makeTestApp()
    const claude = fixtureJson('claude-code/tasks.hooks.json')[0]
    for (const body of [claude, { hello: 'world' }, '{"no_type": 1}\n{"type": "result"}']) {
      const res = await ingest(t, 'copilot', body)
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80))
      assert.equal(res.body.type, 'https://agent-todos.dev/problems/invalid-ingest-body')
    }
    const list = await t.call('GET', '/v1/sessions')
    assert.equal(list.body.sessions.length, 0)
  })
})

describe('copilot-todos replay (the private copy)', () => {
  const three: TodoTables = {
    todos: [
      { id: 'a', title: 'A', description: null, status: 'pending' },
      { id: 'b', title: 'B', description: null, status: 'pending' },
      { id: 'c', title: 'C', description: null, status: 'pending' },
    ],
    deps: [['b', 'a']],
  }

  it('Should leave nothing of one replay for the next (the copy is reused): rows, rowids, a rolled-back conflict', () => {
    const queries = [
      "INSERT INTO todos (id, title) VALUES ('d', 'D'); INSERT INTO todo_deps VALUES ('d', 'c')",
      // a conflict that rolls back: in autocommit it undoes its own statement only
      "INSERT OR ROLLBACK INTO todos (id, title) VALUES ('a', 'again'); UPDATE todos SET status = 'done' WHERE id = 'c'",
      "INSERT INTO todos (rowid, id, title) VALUES (9000000000, 'far', 'Far')",
      "UPDATE todos SET title = 'x' WHERE id = 'nope'; DELETE FROM todo_deps",
    ]
    for (const query of queries) replayTodoQuery(three, query)
    const rolled = replayTodoQuery(
      three,
      "INSERT OR ROLLBACK INTO todos (id, title) VALUES ('a', 'again'); UPDATE todos SET status = 'done' WHERE id = 'c'"
    )
    assert.deepEqual(
      rolled.tables.todos.map((row) => [row.id, row.status]),
      [
        ['a', 'pending'],
        ['b', 'pending'],
        ['c', 'done'],
      ]
    )
    // a session with an empty list starts from empty tables, whatever ran before
    const fresh = replayTodoQuery(
      { todos: [], deps: [] },
      "INSERT INTO todos (id, title) VALUES ('n', 'New')"
    )
    assert.deepEqual(fresh.tables, {
      todos: [{ id: 'n', title: 'New', description: null, status: 'pending' }],
      deps: [],
    })
    // the same replay twice gives the same tables
    assert.deepEqual(replayTodoQuery(three, queries[0]), replayTodoQuery(three, queries[0]))
  })

  it('Should run nothing but writes to the two tables, and touch no file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'copilot-replay-'))
    try {
      const file = join(dir, 'evil.db')
      const hostile = [
        `ATTACH DATABASE '${file}' AS evil`,
        `VACUUM INTO '${file}'`,
        "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'x'",
        "INSERT INTO todos (id, title) VALUES (load_extension('/tmp/x.so'), 'x')",
        "INSERT INTO todos (id, title) SELECT name, 'x' FROM pragma_table_info('todos')",
        'DROP TABLE todos',
        'DELETE FROM sqlite_master',
        'CREATE TRIGGER t AFTER INSERT ON todos BEGIN DELETE FROM todos; END',
        "INSERT INTO todos (id, title) VALUES ('z', zeroblob(1000000000))",
        "UPDATE todos SET title = printf('%.*c', 1000000000, 'x')",
        "UPDATE todos SET title = replace(title, '', 'x')",
        "INSERT INTO todos (id, title) SELECT 'g', group_concat(a.title) FROM todos a",
      ]
      for (const query of hostile) {
        const out = replayTodoQuery(three, query)
        assert.equal(out.ran, 0, query)
        assert.deepEqual(out.tables, three, query)
      }
      assert.deepEqual(readdirSync(dir), [])
      assert.equal(existsSync(file), false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it(
    'Should refuse recursion and row explosions before SQLite runs them (the test timeout bounds them)',
    {
      // a bound, not a speed assertion: an unguarded recursive CTE would never return
      timeout: 30_000,
    },
    () => {
      const many: TodoTables = {
        todos: Array.from({ length: 500 }, (_, i) => ({
          id: `t${i}`,
          title: 'x'.repeat(1000),
          description: null,
          status: 'pending',
        })),
        deps: [],
      }
      const bombs = [
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO todos (id, title) SELECT x, 'spam' FROM c",
        "INSERT INTO todos (id, title) SELECT x, 'spam' FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c)",
        "INSERT INTO todos (id, title) SELECT a.id || b.id || c.id, 'x' FROM todos a, todos b, todos c",
        `UPDATE todos SET title = ${Array.from({ length: 40 }, () => 'title').join(' || ')}`,
        `UPDATE todos SET title = 'x'${" || 'x'".repeat(40)}`,
        'x'.repeat(70_000),
      ]
      for (const query of bombs) {
        const out = replayTodoQuery(many, query)
        assert.equal(out.ran, 0, query.slice(0, 80))
        assert.deepEqual(out.tables, many)
      }
      // pattern matching is SQLite's own, bounded for any pattern: it runs
      const like = replayTodoQuery(
        many,
        `UPDATE todos SET status = 'done' WHERE title LIKE '${'%x'.repeat(5000)}%y' OR title GLOB '${'*x'.repeat(5000)}*y'`
      )
      assert.equal(like.ran, 1)
      // growth past the bytes cap, one doubling at a time, stops and undoes the query
      const doubling = Array.from(
        { length: 12 },
        () => 'UPDATE todos SET title = title || title'
      ).join('; ')
      const grown = replayTodoQuery(many, doubling)
      assert.equal(grown.ran, 0)
      assert.deepEqual(grown.tables, many)
      assert.ok(grown.skipped.some((s) => s.reason === 'the tables grew too large'))
    }
  )

  it('Should run upserts, RETURNING, subqueries on the two tables, and several statements in order', () => {
    const out = replayTodoQuery(
      three,
      [
        "INSERT INTO todos (id, title) VALUES ('a', 'A2') ON CONFLICT(id) DO UPDATE SET title = excluded.title",
        "UPDATE todos SET status = 'done' WHERE id IN (SELECT depends_on FROM todo_deps WHERE todo_id = 'b') RETURNING id",
        "INSERT INTO todo_deps (todo_id, depends_on) SELECT 'c', id FROM todos WHERE status = 'done'",
        // the foreign keys hold, as in Copilot's database: the dependency goes first
        "DELETE FROM todos WHERE id = 'b'",
        "DELETE FROM todo_deps WHERE todo_id = 'b'",
        "DELETE FROM todos WHERE id = 'b'",
        "-- a comment; then a string holding a ; and a quote\nINSERT INTO todos (id, title, description) VALUES ('d', 'semi; colon', 'it''s')",
      ].join(';\n')
    )
    assert.equal(out.ran, 6)
    assert.match(out.skipped[0].reason, /FOREIGN KEY constraint failed/)
    assert.deepEqual(out.tables.todos, [
      { id: 'a', title: 'A2', description: null, status: 'done' },
      { id: 'c', title: 'C', description: null, status: 'pending' },
      { id: 'd', title: 'semi; colon', description: "it's", status: 'pending' },
    ])
    assert.deepEqual(out.tables.deps, [['c', 'a']])
  })
})
