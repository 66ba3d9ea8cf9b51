/**
 * End to end: the real server process on a free port, on SQLite.
 */
import { eventually } from '../eventually.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SECURE_HEADERS } from '../../src/http/response-headers.js'
import { ROUND_INPUT_CASES } from '../round-input-cases.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const dir = mkdtempSync(join(tmpdir(), 'agent-todos-e2e-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const sqliteEnv = (name: string) => ({ STORE: 'sqlite', SQLITE_PATH: join(dir, `${name}.db`) })

const STEPS = [
  'Create hello.py',
  'Write the greet function',
  'Write the add function',
  'Write the main function',
  'Run the script',
]

const todoCall = (statuses: string[], id: string) => ({
  id,
  name: 'todo',
  input: { items: STEPS.map((text, i) => ({ id: String(i + 1), text, status: statuses[i] })) },
})

const roundOf = (server: ServerProcess, session: string, calls: unknown[], headers = {}) =>
  request(server.url, 'POST', `/v1/sessions/${session}/rounds`, { tool_calls: calls }, headers)

describe('The reference walkthrough against the real server', () => {
  let server: ServerProcess
  before(async () => {
    server = await startServer(sqliteEnv('walkthrough'))
  })
  after(async () => {
    await server.stop()
  })

  it('Should render every step exactly and nag after three rounds without todo', async () => {
    const p = 'pending'
    const w = 'in_progress'
    const d = 'completed'
    const r1 = await roundOf(server, 'walk', [todoCall([p, p, p, p, p], 'toolu_01')])
    assert.equal(
      r1.body.results[0].content,
      '[ ] #1: Create hello.py\n[ ] #2: Write the greet function\n[ ] #3: Write the add function\n[ ] #4: Write the main function\n[ ] #5: Run the script\n\n(0/5 completed)'
    )
    const r2 = await roundOf(server, 'walk', [todoCall([w, p, p, p, p], 'toolu_02')])
    assert.equal(r2.body.results[0].content.split('\n')[0], '[>] #1: Create hello.py')
    assert.ok(r2.body.results[0].content.endsWith('(0/5 completed)'))
    const r3 = await roundOf(server, 'walk', [
      { id: 'toolu_03', name: 'write_file', input: { path: 'hello.py' } },
    ])
    assert.equal(r3.body.rounds_since_todo, 1)
    assert.deepEqual(r3.body.results, [])
    const r4 = await roundOf(server, 'walk', [todoCall([d, w, p, p, p], 'toolu_04')])
    assert.equal(
      r4.body.results[0].content,
      '[x] #1: Create hello.py\n[>] #2: Write the greet function\n[ ] #3: Write the add function\n[ ] #4: Write the main function\n[ ] #5: Run the script\n\n(1/5 completed)'
    )
    assert.equal(r4.body.rounds_since_todo, 0)
    const reminders = []
    for (let i = 0; i < 4; i++) {
      const r = await roundOf(server, 'walk', [
        { id: `toolu_b${i}`, name: 'bash', input: { cmd: 'python hello.py' } },
      ])
      reminders.push(r.body.reminder?.text ?? null)
    }
    assert.deepEqual(reminders, [
      null,
      null,
      '<reminder>Update your todos.</reminder>',
      '<reminder>Update your todos.</reminder>',
    ])
    const r9 = await roundOf(server, 'walk', [todoCall([d, d, d, d, d], 'toolu_09')])
    assert.ok(r9.body.results[0].content.endsWith('(5/5 completed)'))
    assert.equal(r9.body.reminder, null)
    assert.equal(r9.body.progress.percent, 100)
    const render = await request(server.url, 'GET', '/v1/sessions/walk/render')
    assert.equal(render.text, r9.body.results[0].content)
  })
})

describe('Durability on SQLite', () => {
  it('Should keep state across a graceful restart', async () => {
    const env = sqliteEnv('restart')
    const first = await startServer(env)
    await roundOf(first, 'keep', [
      todoCall(['completed', 'in_progress', 'pending', 'pending', 'pending'], 'a'),
    ])
    await roundOf(first, 'keep', [{ name: 'bash' }])
    const before = await request(first.url, 'GET', '/v1/sessions/keep')
    assert.equal(await first.stop(), 0)
    const second = await startServer(env)
    try {
      const after = await request(second.url, 'GET', '/v1/sessions/keep')
      assert.equal(after.status, 200)
      assert.deepEqual(after.body, before.body)
      const next = await roundOf(second, 'keep', [{ name: 'bash' }])
      assert.equal(next.body.round, 3)
    } finally {
      await second.stop()
    }
  })

  it('Should finish in-flight rounds on SIGTERM, then exit 0 with the store closed', async () => {
    const env = sqliteEnv('sigterm')
    const server = await startServer({ ...env, LOG_LEVEL: 'info' })
    const pending = Array.from({ length: 30 }, (_, i) =>
      roundOf(server, 'drain', [{ id: `b${i}`, name: 'bash' }]).then(
        (res) => res.status,
        () => 'refused'
      )
    )
    await new Promise((resolve) => setTimeout(resolve, 5))
    const code = await server.stop()
    const statuses = await Promise.all(pending)
    assert.equal(code, 0)
    assert.ok(
      statuses.every((s) => s === 200 || s === 'refused'),
      JSON.stringify(statuses)
    )
    assert.match(server.output(), /draining/)
    assert.match(server.output(), /"msg":"stopped"/)
    const answered = statuses.filter((s) => s === 200).length
    const restarted = await startServer(env)
    try {
      const view = await request(restarted.url, 'GET', '/v1/sessions/drain')
      assert.equal(view.status === 404 ? 0 : view.body.round, answered)
    } finally {
      await restarted.stop()
    }
  })

  it('Should keep every acknowledged round after kill -9', async () => {
    const env = sqliteEnv('kill9')
    const server = await startServer(env)
    const acked = new Set<string>()
    let hotAcked = 0
    let stop = false
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const session = `w${w}-${i}`
        try {
          const res = await roundOf(server, session, [
            todoCall(['pending', 'pending', 'pending', 'pending', 'pending'], 'x'),
          ])
          if (res.status === 200) acked.add(session)
          const hot = await roundOf(server, 'hot', [{ name: 'bash' }])
          if (hot.status === 200) hotAcked++
        } catch {
          return
        }
      }
    }
    const workers = Array.from({ length: 8 }, (_, w) => worker(w))
    // a condition, not a time: a loaded machine acknowledges fewer rounds per second
    await eventually(() => acked.size > 40, 60_000)
    await server.kill()
    stop = true
    await Promise.all(workers)
    assert.ok(acked.size > 20, `only ${acked.size} rounds acknowledged before the kill`)

    const restarted = await startServer(env)
    try {
      for (const session of acked) {
        const res = await request(restarted.url, 'GET', `/v1/sessions/${session}`)
        assert.equal(res.status, 200, `acknowledged session ${session} lost`)
        assert.equal(res.body.progress.total, 5)
      }
      const hot = await request(restarted.url, 'GET', '/v1/sessions/hot')
      assert.ok(
        hot.body.round >= hotAcked,
        `hot session has ${hot.body.round} rounds, ${hotAcked} acknowledged`
      )
    } finally {
      await restarted.stop()
    }
  })
})

describe('Concurrency and hostile input against the real server', () => {
  let server: ServerProcess
  before(async () => {
    server = await startServer({ ...sqliteEnv('concurrency'), BODY_LIMIT_BYTES: '65536' })
  })
  after(async () => {
    await server.stop()
  })

  it('Should count 40 concurrent rounds on one session as 40', async () => {
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        roundOf(server, 'c40', [
          i % 2
            ? { name: 'bash' }
            : todoCall(['pending', 'pending', 'pending', 'pending', 'pending'], `t${i}`),
        ])
      )
    )
    assert.deepEqual([...new Set(replies.map((r) => r.status))], [200])
    assert.deepEqual(
      replies.map((r) => r.body.round).sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, i) => i + 1)
    )
    const view = await request(server.url, 'GET', '/v1/sessions/c40')
    assert.equal(view.body.round, 40)
    assert.equal(view.body.version, 40)
  })

  it('Should send the request id and the security headers straight from the Node response', async () => {
    const res = await roundOf(server, 'headers', [{ name: 'bash' }], {
      'X-Request-Id': 'e2e-req-1',
    })
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('x-request-id'), 'e2e-req-1')
    assert.equal(res.headers.get('content-type'), 'application/json')
    for (const [name, value] of SECURE_HEADERS) assert.equal(res.headers.get(name), value, name)
    const fresh = await request(server.url, 'GET', '/v1/sessions/headers', undefined, {
      'X-Request-Id': 'bad id',
    })
    assert.match(fresh.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
    assert.equal(fresh.headers.get('x-frame-options'), 'SAMEORIGIN')
    for (const path of [
      '/v1/sessions/headers',
      '/v1/sessions/headers/render',
      '/v1/sessions/headers/history',
    ]) {
      for (const tag of ['"1"', 'W/"1"', '*', '"0", "1"']) {
        const unchanged = await request(server.url, 'GET', path, undefined, {
          'If-None-Match': tag,
        })
        assert.equal(unchanged.status, 304, `${path} ${tag}`)
        assert.equal(unchanged.headers.get('etag'), '"1"')
      }
      assert.equal(
        (await request(server.url, 'GET', path, undefined, { 'If-None-Match': '"2"' })).status,
        200
      )
    }
    const page = await request(server.url, 'GET', '/')
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src/)
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff')
  })

  it('Should answer malformed round input on the real server as through app.request()', async () => {
    for (const c of ROUND_INPUT_CASES) {
      const res = await fetch(server.url + c.path, {
        method: 'POST',
        body: c.body,
        headers: c.headers,
      })
      const text = await res.text()
      assert.equal(res.status, c.status, `${c.name}: ${text}`)
      if (c.problem === null) continue
      const body = JSON.parse(text)
      assert.equal(body.type, `https://agent-todos.dev/problems/${c.problem}`, c.name)
      assert.equal(body.detail, c.detail, c.name)
      assert.deepEqual(
        (body.errors ?? []).map((e: { pointer: string }) => e.pointer),
        c.pointers,
        c.name
      )
    }
  })

  it('Should validate and honour Idempotency-Key on the real server', async () => {
    const bad = await roundOf(server, 'idem', [{ name: 'bash' }], {
      'Idempotency-Key': 'k'.repeat(256),
    })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.errors[0].pointer, '/headers/idempotency-key')
    const first = await roundOf(server, 'idem', [{ name: 'bash' }], { 'Idempotency-Key': 'once' })
    const again = await roundOf(server, 'idem', [{ name: 'bash' }], { 'Idempotency-Key': 'once' })
    assert.equal(first.status, 200)
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    assert.equal(again.text, first.text)
    assert.equal(first.body.round, 1)
  })

  it('Should answer garbage on every route without a 5xx and without changing state', async () => {
    await roundOf(server, 'victim', [
      todoCall(['completed', 'in_progress', 'pending', 'pending', 'pending'], 'v'),
    ])
    const snapshot = async () => [
      (await request(server.url, 'GET', '/v1/sessions/victim')).text,
      (await request(server.url, 'GET', '/v1/sessions/victim/history')).text,
    ]
    const before = await snapshot()
    const bodies: (string | undefined)[] = [
      undefined,
      '',
      '{',
      'null',
      '[]',
      '"x"',
      '42',
      '{"tool_calls":null}',
      '{"tool_calls":[{"name":"todo","input":{"items":[{"text":"' +
        'x'.repeat(20_000) +
        '"}]}}],"dialect":7}',
      '{"items":"no"}',
      '{"items":[{"id":"1","content":"a","status":"done"}]}',
      '{"outcome":"nope"}',
      '{"__proto__":{"polluted":true},"tool_calls":[{"name":"bash"}],"dialect":"nope"}',
      '\u0000\u0001\u0002',
      '{"tool_calls":[' + '{"name":"bash"},'.repeat(200) + '{"name":"bash"}]}',
      'x'.repeat(70_000),
    ]
    const routes: [string, string][] = [
      ['POST', '/v1/sessions/victim/rounds'],
      ['PUT', '/v1/sessions/victim/todos'],
      ['POST', '/v1/sessions/victim/end'],
      ['DELETE', '/v1/sessions/victim%20x'],
      ['GET', '/v1/sessions/victim'],
      ['GET', '/v1/sessions/victim/render'],
      ['GET', '/v1/sessions/victim/history?limit=-1'],
      ['GET', '/v1/sessions?state=%00&limit=abc&cursor=%ff'],
      ['GET', '/v1/tools?dialect=%7B&format=%7D'],
      ['GET', '/v1/dialects'],
      ['PATCH', '/v1/sessions/victim'],
      ['POST', '/v1/sessions/..%2F..%2Fetc/rounds'],
      ['POST', '/v1/sessions/victim/rounds/extra'],
    ]
    const contentTypes = [
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]
    let count = 0
    for (const [method, path] of routes) {
      for (const body of bodies) {
        for (const type of contentTypes) {
          if (method === 'GET' && body !== undefined) continue
          const res = await fetch(server.url + path, {
            method,
            headers: {
              'content-type': type,
              'if-match': '"zzz"',
              'idempotency-key': 'k'.repeat(300),
            },
            body: method === 'GET' ? undefined : body,
          })
          await res.arrayBuffer()
          count++
          assert.ok(
            res.status < 500,
            `${method} ${path} ${type} ${JSON.stringify(body?.slice(0, 40))} → ${res.status}`
          )
        }
      }
    }
    assert.ok(count > 300)
    assert.deepEqual(await snapshot(), before)
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
  })

  it('Should answer 413 for an oversized body without resetting the connection', async () => {
    const big = JSON.stringify({
      tool_calls: [{ name: 'bash', input: { blob: 'x'.repeat(2 * 1024 * 1024) } }],
    })
    for (const chunked of [false, true]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${server.url}/v1/sessions/big/rounds`,
          {
            method: 'POST',
            headers: chunked
              ? { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) },
          },
          (res) => {
            res.resume()
            res.on('end', () => resolve(res.statusCode ?? 0))
          }
        )
        req.on('error', reject)
        for (let i = 0; i < big.length; i += 65536) req.write(big.slice(i, i + 65536))
        req.end()
      })
      assert.equal(status, 413, chunked ? 'chunked' : 'content-length')
    }
    assert.equal((await request(server.url, 'GET', '/livez')).status, 200)
  })
})
