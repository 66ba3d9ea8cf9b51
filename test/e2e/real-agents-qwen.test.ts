/**
 * End to end with the real Qwen Code 0.24.4 (test/agents/node_modules/.bin/qwen), offline: it runs
 * against the chat-completions stand-in (test/agents/chat-completions.ts), posts its own
 * `"type": "http"` hooks (examples/observe/qwen-code/settings.json, pointed at the service this
 * test starts) or runs through `agent-todos observe`, and the session the service built must equal
 * what Qwen's own tool results said: the list, the statuses, the model's ids, every written list
 * in order, how the run ended, and the permission waits.
 *
 * Under CI a CLI that is not installed is a failure, never a skip.
 */
import { after, before, describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { startChatCompletionsApi, type ChatCompletionsApi } from '../agents/chat-completions.js'
import {
  expectedQwenTodos,
  QWEN_PERMISSION,
  QWEN_PLAIN,
  QWEN_SCRIPTS,
  QWEN_TODOS,
  qwenPath,
  qwenSession,
  qwenWrites,
  runQwen,
  type QwenRun,
  type QwenRunOptions,
} from '../agents/qwen.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const KEY = 'real-agents-qwen-key-01'
const AUTH = { authorization: `Bearer ${KEY}` }
const CI = process.env.CI === 'true' || process.env.CI === '1'
const TEST_TIMEOUT = 150_000

/** Skips (locally) or fails (CI) when the CLI is not installed. */
function requireQwen(t: TestContext): boolean {
  if (qwenPath()) return true
  if (CI) assert.fail('qwen is not installed: node scripts/ensure-test-agents.mjs installs it')
  t.skip('qwen is not installed (node scripts/ensure-test-agents.mjs)')
  return false
}

const path = (session: string, tail = '') => `/v1/sessions/${encodeURIComponent(session)}${tail}`

/** Polls the session until `ready` holds (a hook may land after the CLI exits). */
async function sessionWhen(
  server: ServerProcess,
  session: string,
  ready: (view: any) => boolean,
  timeoutMs = 15_000
): Promise<any> {
  const deadline = Date.now() + timeoutMs
  let last: { status: number; body: any } = { status: 0, body: null }
  while (Date.now() < deadline) {
    last = await request(server.url, 'GET', path(session), undefined, AUTH)
    if (last.status === 200 && ready(last.body)) return last.body
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.fail(
    `session ${session} never got there: ${last.status} ${JSON.stringify(last.body)}\n${server.output()}`
  )
}

/** The lists of the session's history, oldest first, repeats (lifecycle-only changes) folded. */
async function historyLists(server: ServerProcess, session: string): Promise<string[][]> {
  const res = await request(server.url, 'GET', path(session, '/history'), undefined, AUTH)
  assert.equal(res.status, 200)
  const entries = [...res.body.entries].sort((a: any, b: any) => a.version - b.version)
  const lists: string[][] = []
  for (const entry of entries) {
    assert.ok(entry.source === 'ingest' || entry.source === 'end', entry.source)
    const list = entry.items.map((item: any) => `${item.status} ${item.content}`)
    if (JSON.stringify(lists.at(-1)) !== JSON.stringify(list)) lists.push(list)
  }
  return lists.filter((list) => list.length)
}

const idsStatusesContents = (items: any[]) =>
  items.map((item) => ({ id: item.id, content: item.content, status: item.status }))

describe('Qwen Code 0.24.4, offline, against the service', () => {
  let server: ServerProcess
  const runs: QwenRun[] = []
  const apis: ChatCompletionsApi[] = []

  before(async () => {
    server = await startServer({ AUTH_KEYS: `real-agents:agent:${KEY}`, STORE: 'memory' })
  })
  after(async () => {
    await Promise.all(runs.map((run) => run.cleanup()))
    await Promise.all(apis.map((api) => api.close()))
    await server?.stop()
  })

  /** One bounded run of the real CLI, with its own stand-in (that run's ground truth). */
  async function qwenRun(options: Omit<QwenRunOptions, 'api' | 'service'>) {
    const api = await startChatCompletionsApi(QWEN_SCRIPTS)
    apis.push(api)
    const run = await runQwen({ ...options, api, service: { url: server.url, key: KEY } })
    runs.push(run)
    assert.equal(run.timedOut, false, `qwen timed out:\n${run.stdout}\n${run.stderr}`)
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`)
    return { run, calls: api.exchanges(options.script.name) }
  }

  it(
    'todo_write through its own HTTP hooks: the list, the model’s ids, every write once, a turn’s Stop is no end',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireQwen(t)) return
      const { run, calls } = await qwenRun({ script: QWEN_TODOS, hooks: true })
      const expected = expectedQwenTodos(calls)
      const session = `qwen:${qwenSession(run.stdout)}`
      const view = await sessionWhen(
        server,
        session,
        (v) => JSON.stringify(idsStatusesContents(v.items)) === JSON.stringify(expected)
      )
      assert.equal(view.source, 'qwen-code')
      assert.equal(view.dialect, 'qwen-todos')
      assert.deepEqual(idsStatusesContents(view.items), expected)
      assert.deepEqual(
        view.items.map((item: any) => item.id),
        ['1', '2', '3', '4']
      )
      // the refused write (two items with one id) and the no-op write are no list of their own
      assert.ok(calls.some((e) => e.result === 'Todo IDs must be unique within the array.'))
      assert.deepEqual(await historyLists(server, session), qwenWrites(calls))
      assert.equal(view.waiting, null)
      assert.equal(view.ended, null, '-p sends Stop, never SessionEnd')
      assert.equal(view.observed.todo_tools, true, 'a todo_write was seen')
    }
  )

  it(
    'todo_write through `agent-todos observe` (stream-json): ended with the exit status',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireQwen(t)) return
      const { run, calls } = await qwenRun({ script: QWEN_TODOS, observe: true })
      const session = `qwen:${qwenSession(run.stdout)}`
      const view = await sessionWhen(server, session, (v) => v.ended !== null)
      assert.deepEqual(idsStatusesContents(view.items), expectedQwenTodos(calls))
      assert.equal(view.ended.outcome, 'completed')
      assert.equal(view.ended.detail, 'exit code 0')
      assert.deepEqual(view.ended.unfinished, ['3', '4'])
      assert.equal(view.observed.todo_tools, true)
      assert.deepEqual(await historyLists(server, session), qwenWrites(calls))
    }
  )

  it(
    'hooks and observe of one run feed one session, each write applied once',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireQwen(t)) return
      const { run, calls } = await qwenRun({ script: QWEN_TODOS, hooks: true, observe: true })
      const session = `qwen:${qwenSession(run.stdout)}`
      const view = await sessionWhen(server, session, (v) => v.ended !== null)
      assert.deepEqual(idsStatusesContents(view.items), expectedQwenTodos(calls))
      assert.equal(view.ended.outcome, 'completed')
      assert.deepEqual(await historyLists(server, session), qwenWrites(calls))
      const listed = await request(
        server.url,
        'GET',
        '/v1/sessions?source=qwen-code',
        undefined,
        AUTH
      )
      assert.equal(
        listed.body.sessions.filter((s: any) => s.session_id === session).length,
        1,
        'one session'
      )
    }
  )

  it(
    'a run without todo_write (off by default) says so: todo_tools false',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireQwen(t)) return
      const { run } = await qwenRun({ script: QWEN_PLAIN, observe: true, todoWrite: false })
      const session = `qwen:${qwenSession(run.stdout)}`
      const view = await sessionWhen(server, session, (v) => v.ended !== null)
      assert.equal(view.observed.todo_tools, false)
      assert.deepEqual(view.items, [])
      assert.equal(view.ended.outcome, 'completed')
    }
  )

  it(
    'a permission prompt marks the session waiting until Qwen goes on; the denied call changes nothing',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireQwen(t)) return
      const waited: any[] = []
      const { run, calls } = await qwenRun({
        script: QWEN_PERMISSION,
        hooks: true,
        sdk: {
          // answer only once the service shows the wait: the first is denied, the second allowed
          allow: async (nth) => {
            const deadline = Date.now() + 15_000
            while (Date.now() < deadline) {
              const res = await request(
                server.url,
                'GET',
                '/v1/sessions?source=qwen-code&state=waiting',
                undefined,
                AUTH
              )
              const waiting = res.body.sessions?.filter((s: any) => s.waiting !== null) ?? []
              if (waiting.length === 1) {
                waited.push(waiting[0].waiting)
                return nth > 0
              }
              await new Promise((resolve) => setTimeout(resolve, 50))
            }
            throw new Error(`the service never showed the wait:\n${server.output()}`)
          },
        },
      })
      assert.equal(waited.length, 2)
      for (const wait of waited) {
        assert.equal(wait.reason, 'permission_prompt')
        assert.match(wait.message, /run_shell_command/)
      }
      assert.match(calls[1].result!, /^\[Operation Cancelled\]/)
      const session = `qwen:${qwenSession(run.stdout)}`
      const view = await sessionWhen(
        server,
        session,
        (v) => v.items[0]?.status === 'completed' && v.waiting === null
      )
      assert.deepEqual(idsStatusesContents(view.items), expectedQwenTodos(calls))
      assert.deepEqual(await historyLists(server, session), qwenWrites(calls))
    }
  )
})
