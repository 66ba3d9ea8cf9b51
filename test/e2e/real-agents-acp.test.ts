/**
 * End to end with real ACP agents, offline: a scripted ACP client (the editor's side, on
 * @agentclientprotocol/sdk 2.4.0) runs `agent-todos acp -- <agent>` as Zed would, in front of the
 * real `qwen --acp` (Qwen Code 0.24.4, against a scripted Chat Completions stand-in) and the
 * Claude ACP adapter (`claude-agent-acp` 0.101.0 driving the installed Claude Code, against the
 * scripted Anthropic Messages stand-in). The session the service built from what the tap teed
 * must equal the agent's own todo store (the lists its todo tool accepted, statuses, Qwen's ids),
 * be waiting while the client holds a permission request open ("default" mode), and be cleared
 * once it answered; the prompt's end_turn ends the run.
 *
 * RECORD_ACP_FIXTURES=1 writes what the tap posted to test/fixtures/ingest/acp/ (README.md there).
 * Under CI a CLI that is not installed is a failure, never a skip.
 */
import { after, before, describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, realpathSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runAcpClient, type AcpRun } from '../agents/acp-client.js'
import {
  startChatCompletionsApi,
  type ChatCompletionsApi as ChatApi,
} from '../agents/chat-completions.js'
import { startModelApi, type ModelApi } from '../agents/model-api.js'
import type { Script } from '../agents/scripts.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(ROOT, 'test/agents/node_modules/.bin')
const KEY = 'real-acp-agent-key-0001'
const AUTH = { authorization: `Bearer ${KEY}` }
const CI = process.env.CI === 'true' || process.env.CI === '1'
const RECORD = process.env.RECORD_ACP_FIXTURES === '1'
const TEST_TIMEOUT = 200_000

const H = 'Write the /health handler'
const T = 'Add a test for /health'
const R = 'Update the README'

/** The installed CLI's path; skips (locally) or fails (CI) when it is not installed. */
function requireCli(t: TestContext, name: string): string | null {
  const path = join(BIN, name)
  if (existsSync(path)) return realpathSync(path)
  if (CI) assert.fail(`${name} is not installed: node scripts/ensure-test-agents.mjs installs it`)
  t.skip(`${name} is not installed (node scripts/ensure-test-agents.mjs)`)
  return null
}

/** A pass-through in front of the service that keeps every body the tap posted. */
async function startRecorder(
  target: string
): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const body = Buffer.concat(chunks)
      bodies.push(body.toString('utf8'))
      const headers: Record<string, string> = {}
      for (const name of ['content-type', 'authorization'])
        if (typeof req.headers[name] === 'string') headers[name] = req.headers[name]
      const answer = await fetch(target + req.url!, { method: req.method, headers, body })
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' })
      res.end(Buffer.from(await answer.arrayBuffer()))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server }
}

/**
 * The wire as the fixtures keep it: the tap's lines, temp paths scrubbed, the (large, unused)
 * `available_commands_update` lists cut to their first two commands (and Qwen's half-megabyte
 * `_meta` of them to `{trimmed: true}`).
 */
function wireFixture(bodies: string[], root: string): string {
  return bodies
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const value = JSON.parse(line)
      const update = (value.msg ?? value.message)?.params?.update
      if (update?.sessionUpdate !== 'available_commands_update') return line
      update.availableCommands = update.availableCommands.slice(0, 2)
      if (update._meta) update._meta = { trimmed: true }
      return JSON.stringify(value)
    })
    .map((line) => `${line.split(root).join('/tmp/acp-run')}\n`)
    .join('')
}

const sessionPath = (session: string) => `/v1/sessions/${encodeURIComponent(session)}`

async function getSession(server: ServerProcess, session: string) {
  const res = await request(server.url, 'GET', sessionPath(session), undefined, AUTH)
  return res.status === 200 ? res.body : null
}

/** Waits for the session to satisfy `ready` (polled: another process writes it), failing with what it was. */
async function sessionWhen(server: ServerProcess, session: string, ready: (view: any) => boolean) {
  let last: any = null
  for (const end = Date.now() + 30_000; Date.now() < end;) {
    last = await getSession(server, session)
    if (last && ready(last)) return last
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.fail(`session ${session} never got there: ${JSON.stringify(last)}`)
}

const rows = (items: any[]) => items.map((item) => [item.id, item.status, item.content])

describe('real ACP agents behind agent-todos acp, against the service', () => {
  let server: ServerProcess
  const cleanups: (() => Promise<unknown>)[] = []

  before(async () => {
    server = await startServer({ AUTH_KEYS: `real-acp:agent:${KEY}`, STORE: 'memory' })
  })
  after(async () => {
    for (const cleanup of cleanups) await cleanup()
    await server?.stop()
  })

  /** A fresh HOME and project directory. */
  async function workspace() {
    const root = await mkdtemp(join(tmpdir(), 'agent-todos-acp-'))
    const home = join(root, 'home')
    const cwd = join(root, 'project')
    await mkdir(home, { recursive: true })
    await mkdir(cwd, { recursive: true })
    cleanups.push(() => rm(root, { recursive: true, force: true }))
    return { root: realpathSync(root), home, cwd: realpathSync(cwd) }
  }

  /** The tap in front of the agent, and the client in front of the tap. */
  async function runThroughTap(options: {
    agent: string[]
    env: Record<string, string>
    cwd: string
    prompt: string
    /** `session/set_mode` (default "default": writes ask); null: the agent's own default. */
    mode?: string | null
  }): Promise<{ run: AcpRun; bodies: string[]; waitingSeen: any }> {
    const recorder = await startRecorder(server.url)
    cleanups.push(async () => {
      recorder.server.closeAllConnections()
      recorder.server.close()
    })
    let waitingSeen: any = null
    const run = await runAcpClient({
      command: [
        process.execPath,
        '--import',
        import.meta.resolve('tsx'),
        join(ROOT, 'src/cli.ts'),
        'acp',
        '--url',
        recorder.url,
        '--',
        ...options.agent,
      ],
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        TERM: 'dumb',
        AGENT_TODOS_KEY: KEY,
        ...options.env,
      },
      prompt: options.prompt,
      mode: options.mode === null ? undefined : (options.mode ?? 'default'),
      onPermission: async ({ sessionId }) => {
        // the agent waits for the person: so must the session, until the answer
        waitingSeen = await sessionWhen(server, `acp:${sessionId}`, (view) => view.waiting !== null)
        return 'allow_once'
      },
      timeoutMs: 150_000,
    })
    return { run, bodies: recorder.bodies, waitingSeen }
  }

  it(
    'Should mirror qwen --acp: the plan with Qwen’s ids, waiting on a permission request',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      const qwen = requireCli(t, 'qwen')
      if (!qwen) return
      const { root, home, cwd } = await workspace()
      await mkdir(join(home, '.qwen'), { recursive: true })
      await writeFile(
        join(home, '.qwen/settings.json'),
        JSON.stringify({
          security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          tools: { todoWrite: { enabled: true } },
        })
      )
      const todos = (statuses: string[]) => ({
        todos: [H, T, R].map((content, i) => ({ id: String(i + 1), content, status: statuses[i] })),
      })
      const api: ChatApi = await startChatCompletionsApi('script=acp-qwen', [
        {
          text: 'Planning.',
          calls: [{ name: 'todo_write', input: todos(['in_progress', 'pending', 'pending']) }],
        },
        {
          calls: [
            { name: 'write_file', input: { file_path: join(cwd, 'health.js'), content: 'ok\n' } },
          ],
        },
        { calls: [{ name: 'todo_write', input: todos(['completed', 'in_progress', 'pending']) }] },
        // refused by Qwen's tool (a duplicate id): the list must stay as it was
        {
          calls: [
            {
              name: 'todo_write',
              input: {
                todos: [
                  { id: '1', content: H, status: 'completed' },
                  { id: '1', content: T, status: 'completed' },
                ],
              },
            },
          ],
        },
        {
          calls: [{ name: 'todo_write', input: todos(['completed', 'completed', 'in_progress']) }],
        },
        { text: 'Done.' },
      ])
      cleanups.push(() => api.close())
      const { run, bodies, waitingSeen } = await runThroughTap({
        agent: [process.execPath, qwen, '--acp'],
        cwd,
        env: {
          HOME: home,
          OPENAI_API_KEY: 'sk-dummy-qwen',
          OPENAI_BASE_URL: `${api.url}/v1`,
          OPENAI_MODEL: 'qwen3-coder-plus',
          QWEN_CODE_NO_RELAUNCH: 'true',
        },
        prompt: 'Add a /health endpoint with a test (script=acp-qwen)',
      })
      if (RECORD)
        await writeFile(
          join(ROOT, 'test/fixtures/ingest/acp/qwen-wire.ndjson'),
          wireFixture(bodies, root)
        )
      assert.equal(run.stopReason, 'end_turn', run.stderr)
      assert.equal(run.code, 0)
      assert.equal(run.permissions, 1)

      // the agent's own truth: the last list its todo_write accepted
      const accepted = api
        .exchanges()
        .filter((e) => e.name === 'todo_write' && e.result?.startsWith('Todos have been modified'))
      assert.equal(accepted.length, 3, JSON.stringify(api.exchanges()))
      const last = accepted.at(-1)!.input.todos as { id: string; content: string; status: string }[]

      const id = `acp:${run.sessionId}`
      assert.equal(waitingSeen.waiting.reason, 'permission_prompt')
      assert.equal(waitingSeen.waiting.message, 'Writing to health.js')
      // while waiting, the list was the first write's
      assert.deepEqual(rows(waitingSeen.items), [
        ['1', 'in_progress', H],
        ['2', 'pending', T],
        ['3', 'pending', R],
      ])
      const session = await sessionWhen(server, id, (view) => view.ended !== null)
      assert.equal(session.source, 'acp')
      assert.equal(session.dialect, 'opencode-todos')
      assert.deepEqual(
        rows(session.items),
        last.map((todo) => [todo.id, todo.status, todo.content])
      )
      assert.equal(session.waiting, null)
      assert.equal(session.ended.outcome, 'completed')
    }
  )

  it(
    'Should mirror the Claude ACP adapter: plans without ids, activeForm texts, waiting on Write',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      const adapter = requireCli(t, 'claude-agent-acp')
      const claude = requireCli(t, 'claude')
      if (!adapter || !claude) return
      const { root, home, cwd } = await workspace()
      await mkdir(join(home, '.claude'), { recursive: true })
      const todo = (content: string, status: string, activeForm: string) => ({
        content,
        status,
        activeForm,
      })
      const list = (statuses: string[]) => ({
        todos: [
          todo(H, statuses[0], 'Writing the /health handler'),
          todo(T, statuses[1], 'Adding a test for /health'),
          todo(R, statuses[2], 'Updating the README'),
        ],
      })
      const script: Script = {
        name: 'acp-claude',
        prompt: 'Add a /health endpoint with a test (script=acp-claude)',
        turns: [
          {
            text: 'Planning.',
            calls: [{ name: 'ToolSearch', input: { query: 'select:TodoWrite' } }],
          },
          { calls: [{ name: 'TodoWrite', input: list(['in_progress', 'pending', 'pending']) }] },
          {
            calls: [
              { name: 'Write', input: { file_path: join(cwd, 'health.js'), content: 'ok\n' } },
            ],
          },
          { calls: [{ name: 'TodoWrite', input: list(['completed', 'in_progress', 'pending']) }] },
          {
            calls: [{ name: 'TodoWrite', input: list(['completed', 'completed', 'in_progress']) }],
          },
          { text: 'Done.' },
        ],
      }
      const api: ModelApi = await startModelApi({ [script.name]: script })
      cleanups.push(() => api.close())
      const { run, bodies, waitingSeen } = await runThroughTap({
        // the bin is not executable in the package: run its JS entry with node
        agent: [process.execPath, adapter],
        cwd,
        env: {
          HOME: home,
          ANTHROPIC_API_KEY: 'sk-ant-dummy',
          ANTHROPIC_BASE_URL: api.url,
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          // TodoWrite instead of the Task* tools the adapter's sessions have by default
          CLAUDE_CODE_ENABLE_TASKS: '0',
          CLAUDE_CODE_ENABLE_TODO_TOOLS: '1',
          CLAUDE_CODE_EXECUTABLE: claude,
        },
        prompt: script.prompt,
      })
      if (RECORD)
        await writeFile(
          join(ROOT, 'test/fixtures/ingest/acp/claude-wire.ndjson'),
          wireFixture(bodies, root)
        )
      assert.equal(run.stopReason, 'end_turn', run.stderr)
      assert.equal(run.permissions, 1)
      const writes = api
        .exchanges()
        .filter((e) => e.name === 'TodoWrite' && e.result?.startsWith('Todos have been modified'))
      assert.equal(writes.length, 3, JSON.stringify(api.exchanges().map((e) => [e.name, e.result])))
      // what the adapter sent as plans: the in_progress item as its activeForm
      const plans = run.updates.filter((u) => u.sessionUpdate === 'plan')
      assert.equal(plans.length, 3)
      assert.deepEqual(
        (plans[1].entries as any[]).map((e) => e.content),
        [H, 'Adding a test for /health', R]
      )

      assert.equal(waitingSeen.waiting.reason, 'permission_prompt')
      assert.equal(waitingSeen.waiting.message, 'Write health.js')
      const session = await sessionWhen(
        server,
        `acp:${run.sessionId}`,
        (view) => view.ended !== null
      )
      assert.equal(session.source, 'acp')
      // one identity per item across the activeForm flips: the ids of the first plan stay
      assert.deepEqual(rows(session.items), [
        ['1', 'completed', H],
        ['2', 'completed', T],
        ['3', 'in_progress', R],
      ])
      assert.equal(session.items[2].active_form, 'Updating the README')
      assert.equal(session.waiting, null)
      assert.equal(session.ended.outcome, 'completed')
    }
  )

  it(
    'Should mirror opencode acp: its todowrite list from the tool call’s rawInput',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      const opencode = requireCli(t, 'opencode')
      if (!opencode) return
      const { root, home, cwd } = await workspace()
      const config = join(home, '.config')
      const todos = (statuses: string[]) => ({
        todos: [H, T, R].map((content, i) => ({
          content,
          status: statuses[i],
          priority: 'medium',
        })),
      })
      const api = await startChatCompletionsApi('script=acp-opencode', [
        {
          text: 'Planning.',
          calls: [{ name: 'todowrite', input: todos(['in_progress', 'pending', 'pending']) }],
        },
        { calls: [{ name: 'todowrite', input: todos(['completed', 'in_progress', 'pending']) }] },
        { text: 'Done.' },
      ])
      cleanups.push(() => api.close())
      await mkdir(join(config, 'opencode'), { recursive: true })
      await writeFile(
        join(config, 'opencode/opencode.json'),
        JSON.stringify({
          model: 'fake/fake-model',
          small_model: 'fake/fake-model',
          autoupdate: false,
          share: 'disabled',
          provider: {
            fake: {
              npm: '@ai-sdk/openai-compatible',
              options: { baseURL: `${api.url}/v1`, apiKey: 'sk-dummy-opencode' },
              models: {
                'fake-model': { tool_call: true, limit: { context: 200000, output: 8192 } },
              },
            },
          },
        })
      )
      const { run, bodies } = await runThroughTap({
        agent: [opencode, 'acp'],
        cwd,
        mode: null,
        env: {
          HOME: home,
          XDG_CONFIG_HOME: config,
          XDG_DATA_HOME: join(home, '.local/share'),
          XDG_CACHE_HOME: join(home, '.cache'),
          XDG_STATE_HOME: join(home, '.local/state'),
          OPENCODE_DISABLE_MODELS_FETCH: '1',
          OPENCODE_DISABLE_AUTOUPDATE: '1',
          OPENCODE_DISABLE_SHARE: '1',
          OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
          OPENCODE_DISABLE_CLAUDE_CODE: '1',
        },
        prompt: 'Add a /health endpoint with a test (script=acp-opencode)',
      })
      if (RECORD)
        await writeFile(
          join(ROOT, 'test/fixtures/ingest/acp/opencode-wire.ndjson'),
          wireFixture(bodies, root)
        )
      assert.equal(run.stopReason, 'end_turn', run.stderr)
      assert.equal(run.updates.filter((u) => u.sessionUpdate === 'plan').length, 0)
      const written = api
        .exchanges()
        .filter((e) => e.name === 'todowrite' && e.result?.startsWith('['))
      assert.equal(written.length, 2)
      const last = written.at(-1)!.input.todos as { content: string; status: string }[]
      const session = await sessionWhen(
        server,
        `acp:${run.sessionId}`,
        (view) => view.ended !== null
      )
      assert.deepEqual(
        session.items.map((item: any) => [item.status, item.content]),
        last.map((todo) => [todo.status, todo.content])
      )
      assert.deepEqual(
        session.items.map((item: any) => item.id),
        ['1', '2', '3']
      )
      assert.equal(session.ended.outcome, 'completed')
    }
  )

  it(
    'Should keep no list for copilot --acp, whose one plan is empty (its todos are SQL rows)',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      const copilot = requireCli(t, 'copilot')
      if (!copilot) return
      const { root, home, cwd } = await workspace()
      const api = await startChatCompletionsApi('script=acp-copilot', [
        {
          text: 'Planning.',
          calls: [
            {
              name: 'sql',
              input: {
                description: 'Add todos',
                query: `INSERT INTO todos (id, title, status) VALUES ('health', '${H}', 'in_progress'), ('test', '${T}', 'pending');`,
              },
            },
          ],
        },
        {
          calls: [
            {
              name: 'sql',
              input: {
                description: 'Update',
                query: "UPDATE todos SET status = 'done' WHERE id = 'health';",
              },
            },
          ],
        },
        { text: 'Done.' },
      ])
      cleanups.push(() => api.close())
      const { run, bodies } = await runThroughTap({
        agent: [copilot, '--acp', '--disable-client-telemetry', '--no-auto-update'],
        cwd,
        mode: null,
        env: {
          HOME: home,
          COPILOT_PROVIDER_BASE_URL: `${api.url}/v1`,
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_PROVIDER_API_KEY: 'sk-dummy-copilot',
          COPILOT_MODEL: 'gpt-4.1',
          COPILOT_OFFLINE: '1',
          COPILOT_AUTO_UPDATE: 'false',
          COPILOT_PKG_CACHE_HOME: join(home, '.copilot-pkg'),
        },
        prompt: 'Add a /health endpoint with a test (script=acp-copilot)',
      })
      if (RECORD)
        await writeFile(
          join(ROOT, 'test/fixtures/ingest/acp/copilot-wire.ndjson'),
          wireFixture(bodies, root)
        )
      assert.equal(run.stopReason, 'end_turn', run.stderr)
      assert.deepEqual(
        run.updates.filter((u) => u.sessionUpdate === 'plan').map((u) => u.entries),
        [[]]
      )
      assert.ok(api.exchanges().some((e) => e.name === 'sql' && e.result?.includes('inserted')))
      const session = await sessionWhen(
        server,
        `acp:${run.sessionId}`,
        (view) => view.ended !== null
      )
      assert.deepEqual(session.items, [])
      assert.equal(session.ended.outcome, 'completed')
    }
  )
})
