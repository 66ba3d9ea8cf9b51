/**
 * End to end with the real opencode 1.18.33 and Kilo CLI 7.7.7, offline: `opencode serve` (and
 * `kilo serve`) run against the scripted Chat Completions stand-in (test/agents/chat-completions.ts)
 * with `permission.edit: "ask"`, observed the two documented ways (docs/observe.md, "opencode and
 * Kilo"): `agent-todos observe --opencode <server-url>` following the server's `/global/event`, and
 * the plugin examples/observe/opencode-plugin.js copied into the project's `.opencode/plugin/`.
 * The session the service built must equal what opencode itself says: its `GET /session/{id}/todo`
 * (list and statuses) and the tool results the model stand-in got back, and it must show waiting
 * exactly while opencode asks for the edit's permission (its status stays busy meanwhile).
 *
 * Under CI a CLI that is not installed is a failure, never a skip. A server takes ~12 s to start on
 * 2 cores: the runner waits for its `listening` line.
 */
import { after, before, describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { startChatCompletionsApi, type ChatCompletionsApi } from '../agents/chat-completions.js'
import {
  OPENCODE_SCRIPTS,
  OPENCODE_TODOS,
  ROOT,
  opencodeCli,
  startServe,
  type OpencodeFlavor,
  type Serve,
} from '../agents/opencode.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const KEY = 'real-agents-opencode-key-01'
const AUTH = { authorization: `Bearer ${KEY}` }
const CI = process.env.CI === 'true' || process.env.CI === '1'
const TEST_TIMEOUT = 300_000
const PLUGIN = join(ROOT, 'examples/observe/opencode-plugin.js')

/** Skips (locally) or fails (CI) when the CLI is not installed. */
function requireCli(t: TestContext, flavor: OpencodeFlavor): boolean {
  if (opencodeCli(flavor)) return true
  if (CI) assert.fail(`${flavor} is not installed: node scripts/ensure-test-agents.mjs installs it`)
  t.skip(`${flavor} is not installed (node scripts/ensure-test-agents.mjs)`)
  return false
}

/** Polls until `ready` gives a value, for at most `timeoutMs`. */
async function until<T>(
  what: string,
  ready: () => Promise<T | undefined>,
  timeoutMs = 120_000
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await ready()
    if (value !== undefined) return value
    if (Date.now() > deadline) assert.fail(`never: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** `agent-todos observe --opencode <server>` as a process, until stopped. */
function startObserve(server: ServerProcess, serve: Serve, agent: OpencodeFlavor) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'src/cli.ts'),
      'observe',
      '--opencode',
      serve.url,
      '--agent',
      agent,
      '--url',
      server.url,
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', AGENT_TODOS_KEY: KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    }
  )
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return {
    child,
    output: () => output,
    async stop(): Promise<number | null> {
      if (child.exitCode !== null) return child.exitCode
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      const [code] = await exited
      return code as number | null
    },
  }
}

const serviceId = (flavor: OpencodeFlavor, native: string) => `${flavor}:${native}`

/** The opencode todo an item of the service stands for (`metadata` keeps the word and priority). */
const asTodo = (item: any) => ({
  content: item.content,
  status: item.metadata?.status ?? item.status,
  priority: item.metadata?.priority,
})

async function sessionView(server: ServerProcess, id: string) {
  const res = await request(server.url, 'GET', `/v1/sessions/${id}`, undefined, AUTH)
  return res.status === 200 ? res.body : undefined
}

/**
 * Prompts the todo script on a server observed by whatever feeds `server`, checks the wait on the
 * edit's permission, answers it, and compares the session with opencode's own account.
 */
async function runObserved(
  server: ServerProcess,
  serve: Serve,
  api: ChatCompletionsApi,
  flavor: OpencodeFlavor
) {
  const native = await serve.createSession()
  const id = serviceId(flavor, native)
  // session.created reached the service: whatever forwards is connected
  await until('the service saw the new session', () => sessionView(server, id), 60_000)
  await serve.prompt(native, OPENCODE_TODOS.prompt)

  // the `write` waits for a person: opencode lists the request and its status stays busy
  const asked = await until('opencode asks for the edit', async () => {
    const res = await serve.call('GET', '/permission')
    return (res.body as any[]).find((p) => p.sessionID === native)
  })
  assert.equal(asked.permission, 'edit')
  const waiting = await until('the service shows the session waiting', async () => {
    const view = await sessionView(server, id)
    return view?.waiting ? view : undefined
  })
  assert.equal(waiting.state, 'waiting')
  assert.equal(waiting.waiting.reason, 'permission_prompt')
  assert.match(waiting.waiting.message, /^edit .*health\.txt$/)
  const status = await serve.call('GET', '/session/status')
  assert.equal(status.body[native]?.type, 'busy', 'opencode stays busy while it asks')
  // the list so far: the two accepted writes, the refused one changed nothing
  const writes = api
    .exchanges(OPENCODE_TODOS.name)
    .filter((e) => e.name === 'todowrite' && e.result !== undefined)
  assert.equal(writes.length, 3)
  assert.match(writes[2].result!, /^The todowrite tool was called with invalid arguments/)
  assert.deepEqual(
    waiting.items.map(asTodo),
    JSON.parse(writes[1].result!),
    'the list while waiting is the last accepted write'
  )

  const reply = await serve.call('POST', `/permission/${asked.id}/reply`, { reply: 'once' })
  assert.equal(reply.status, 200, JSON.stringify(reply.body))
  await until('opencode is idle again', async () => {
    const res = await serve.call('GET', '/session/status')
    return res.body[native] === undefined || res.body[native].type === 'idle' ? true : undefined
  })
  const todo = (await serve.call('GET', `/session/${native}/todo`)).body
  assert.deepEqual(
    todo.map((t: any) => t.status),
    ['completed', 'completed', 'cancelled']
  )
  const final = await until(
    'the service has opencode’s final list, no longer waiting',
    async () => {
      const view = await sessionView(server, id)
      return view &&
        view.waiting === null &&
        JSON.stringify(view.items.map(asTodo)) === JSON.stringify(todo)
        ? view
        : undefined
    }
  )
  assert.equal(final.source, flavor)
  assert.equal(final.dialect, 'opencode-todos')
  // session.idle is activity: the server keeps the session
  assert.equal(final.ended, null)
  assert.deepEqual(
    final.items.map((item: any) => item.status),
    ['completed', 'completed', 'cancelled']
  )

  // every accepted write is a version of the list, in order; the refused one is none
  const accepted = api
    .exchanges(OPENCODE_TODOS.name)
    .filter((e) => e.name === 'todowrite' && e.result?.startsWith('['))
    .map((e) => JSON.stringify(JSON.parse(e.result!)))
  const history = await request(server.url, 'GET', `/v1/sessions/${id}/history`, undefined, AUTH)
  const lists: string[] = []
  for (const entry of [...history.body.entries].sort((a: any, b: any) => a.version - b.version)) {
    assert.equal(entry.source, 'ingest')
    const list = JSON.stringify(entry.items.map(asTodo))
    if (entry.items.length && lists.at(-1) !== list) lists.push(list)
  }
  assert.deepEqual(lists, accepted)
  return final
}

describe('real opencode and Kilo, observed', { timeout: TEST_TIMEOUT * 3 }, () => {
  let server: ServerProcess
  const apis: ChatCompletionsApi[] = []
  before(async () => {
    server = await startServer({ AUTH_KEYS: `real-agents:agent:${KEY}`, STORE: 'memory' })
  })
  after(async () => {
    await Promise.all(apis.map((api) => api.close()))
    await server?.stop()
  })

  it(
    'Should follow opencode serve through agent-todos observe --opencode: the list, the statuses, the wait',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireCli(t, 'opencode')) return
      const api = await startChatCompletionsApi(OPENCODE_SCRIPTS)
      apis.push(api)
      const serve = await startServe({ flavor: 'opencode', api, permission: { edit: 'ask' } })
      const observer = startObserve(server, serve, 'opencode')
      try {
        await until('observe follows the server', async () =>
          observer.output().includes('following') ? true : undefined
        )
        await runObserved(server, serve, api, 'opencode')
      } catch (error) {
        throw new Error(
          `${(error as Error).message}\n--- observe:\n${observer.output()}\n--- opencode:\n${serve.output().slice(-4000)}`,
          { cause: error }
        )
      } finally {
        assert.equal(await observer.stop(), 0, observer.output())
        await serve.stop()
      }
    }
  )

  it(
    'Should follow opencode serve through the plugin in .opencode/plugin/',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireCli(t, 'opencode')) return
      const api = await startChatCompletionsApi(OPENCODE_SCRIPTS)
      apis.push(api)
      const serve = await startServe({
        flavor: 'opencode',
        api,
        permission: { edit: 'ask' },
        plugin: { file: PLUGIN, env: { AGENT_TODOS_URL: server.url, AGENT_TODOS_KEY: KEY } },
      })
      try {
        await runObserved(server, serve, api, 'opencode')
      } catch (error) {
        throw new Error(
          `${(error as Error).message}\n--- opencode:\n${serve.output().slice(-4000)}`,
          { cause: error }
        )
      } finally {
        await serve.stop()
      }
    }
  )

  it(
    'Should follow kilo serve through agent-todos observe --opencode --agent kilo',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireCli(t, 'kilo')) return
      const api = await startChatCompletionsApi(OPENCODE_SCRIPTS)
      apis.push(api)
      const serve = await startServe({ flavor: 'kilo', api, permission: { edit: 'ask' } })
      const observer = startObserve(server, serve, 'kilo')
      try {
        await until('observe follows the server', async () =>
          observer.output().includes('following') ? true : undefined
        )
        await runObserved(server, serve, api, 'kilo')
      } catch (error) {
        throw new Error(
          `${(error as Error).message}\n--- observe:\n${observer.output()}\n--- kilo:\n${serve.output().slice(-4000)}`,
          { cause: error }
        )
      } finally {
        assert.equal(await observer.stop(), 0, observer.output())
        await serve.stop()
      }
    }
  )
})
