/**
 * End to end with the real agents, offline: the real Claude Code, Codex and Gemini CLIs (pinned in
 * test/agents/package.json) run against the scripted model stand-ins of test/agents/, post their own hooks
 * (the files of examples/observe/, pointed at this service) or run through `agent-todos observe`,
 * and the session the service built must equal what the agent's own tool results said: the list,
 * the statuses, the ids the agent assigned, how the run ended.
 *
 * Under CI a CLI that is not installed is a failure, never a skip.
 */
import { after, before, describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import {
  cliPath,
  runAgent,
  type AgentName,
  type AgentRun,
  type RunOptions,
} from '../agents/agents.js'
import { startModelApi, type ModelApi, type ToolExchange } from '../agents/model-api.js'
import { SCRIPTS } from '../agents/scripts.js'
import {
  exchangesWithResults,
  expectedCodexPlan,
  expectedGeminiTodos,
  expectedTasks,
  expectedTodoWrite,
  type ExpectedItem,
} from '../agents/truth.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const KEY = 'real-agents-agent-key-01'
const AUTH = { authorization: `Bearer ${KEY}` }
const CI = process.env.CI === 'true' || process.env.CI === '1'
const TEST_TIMEOUT = 150_000

/** Skips (locally) or fails (CI) when the CLI is not installed. */
function requireCli(t: TestContext, agent: AgentName): boolean {
  if (cliPath(agent)) return true
  if (CI) assert.fail(`${agent} is not installed: node scripts/ensure-test-agents.mjs installs it`)
  t.skip(`${agent} is not installed (node scripts/ensure-test-agents.mjs)`)
  return false
}

/** The agent's own session id, from the first stdout line that names it. */
function nativeSession(run: AgentRun): string {
  for (const line of run.stdout.split('\n')) {
    try {
      const value = JSON.parse(line) as Record<string, unknown>
      if (run.agent === 'codex' && value.type === 'thread.started') return value.thread_id as string
      if (run.agent === 'gemini' && value.type === 'init') return value.session_id as string
      if (run.agent === 'claude' && typeof value.session_id === 'string') return value.session_id
    } catch {
      // not JSON
    }
  }
  throw new Error(`no session id in the ${run.agent} output:\n${run.stdout}\n${run.stderr}`)
}

const path = (session: string, tail = '') => `/v1/sessions/${encodeURIComponent(session)}${tail}`

/** Polls the session until `ready` holds (hooks a CLI does not await may land after it exits). */
async function sessionWhen(
  server: ServerProcess,
  session: string,
  ready: (view: any) => boolean,
  timeoutMs = 10_000
): Promise<any> {
  const deadline = Date.now() + timeoutMs
  let last: { status: number; body: any } = { status: 0, body: null }
  while (Date.now() < deadline) {
    last = await request(server.url, 'GET', path(session), undefined, AUTH)
    if (last.status === 200 && ready(last.body)) return last.body
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.fail(
    `session ${session} never got there: ${last.status} ${JSON.stringify(last.body)}\n${server.output()}`
  )
}

const ended = (view: any) => view.ended !== null && view.ended !== undefined

/** The view's items reduced to the fields the expectation has. */
function assertItems(items: any[], expected: ExpectedItem[], what: string) {
  const actual = items.map((item, i) => {
    const want = expected[i] ?? {}
    return {
      ...('id' in want ? { id: item.id } : {}),
      content: item.content,
      status: item.status,
      ...('active_form' in want ? { active_form: item.active_form } : {}),
    }
  })
  assert.deepEqual(actual, expected, `${what}: the list the service built`)
}

/** The list states in the session's history, oldest first, repeats (lifecycle-only changes) folded. */
async function historyLists(server: ServerProcess, session: string): Promise<string[][]> {
  const res = await request(server.url, 'GET', path(session, '/history'), undefined, AUTH)
  assert.equal(res.status, 200)
  const entries = [...res.body.entries].sort((a: any, b: any) => a.version - b.version)
  for (const entry of entries)
    assert.equal(entry.source === 'ingest' || entry.source === 'end', true)
  const lists: string[][] = []
  for (const entry of entries) {
    const list = entry.items.map((item: any) => `${item.status} ${item.content}`)
    if (JSON.stringify(lists.at(-1)) !== JSON.stringify(list)) lists.push(list)
  }
  return lists.filter((list) => list.length)
}

/** Every accepted write of a snapshot tool, as `status content` lines. */
const acceptedWrites = (
  exchanges: ToolExchange[],
  tool: string,
  accepted: (e: ToolExchange) => boolean
) =>
  exchanges
    .filter((e) => e.name === tool && e.result !== undefined && !e.isError && accepted(e))
    .map((e) => {
      const list = (e.input.todos ?? e.input.plan) as Record<string, string>[]
      return list.map((t) => `${t.status} ${t.content ?? t.step ?? t.description}`)
    })

describe('real agents, offline, against the service', () => {
  let server: ServerProcess
  const runs: AgentRun[] = []
  /** Each run has its own stand-in: its record is that run's ground truth. */
  const apis = new Map<AgentRun, ModelApi>()

  before(async () => {
    server = await startServer({ AUTH_KEYS: `real-agents:agent:${KEY}`, STORE: 'memory' })
  })
  after(async () => {
    await Promise.all(runs.map((run) => run.cleanup()))
    await Promise.all([...apis.values()].map((api) => api.close()))
    await server?.stop()
  })

  /** One bounded run of a real CLI pointed at the service; fails with its output if it hung. */
  async function agentRun(options: Omit<RunOptions, 'api' | 'service'>): Promise<AgentRun> {
    const api = await startModelApi()
    const run = await runAgent({
      ...options,
      api,
      service: { url: server.url, key: KEY },
      timeoutMs: 90_000,
    })
    runs.push(run)
    apis.set(run, api)
    assert.equal(run.timedOut, false, `${run.agent} timed out:\n${run.stdout}\n${run.stderr}`)
    return run
  }

  /** The run's todo calls that got a result, with the result the agent's tool gave. */
  const truth = (run: AgentRun, ...scripts: string[]) =>
    exchangesWithResults(
      apis.get(run)!,
      scripts,
      run.agent === 'claude' ? run.stdout : undefined
    ).filter((e) => e.result !== undefined)

  /**
   * A Claude TodoWrite run whose stream-json messages fed the session (observe, or the SDK's
   * forwarder): its list, outcome and history are what the agent's own tool results said.
   */
  async function assertStreamedTodoWrite(run: AgentRun, session: string, what: string) {
    const view = await sessionWhen(server, session, ended)
    const calls = truth(run, 'claude-todowrite')
    assert.equal(view.source, 'claude-agent-sdk')
    assert.equal(view.dialect, 'claude-todowrite')
    assertItems(view.items, expectedTodoWrite(calls), what)
    assert.equal(view.ended.outcome, 'completed')
    assert.deepEqual(
      await historyLists(server, session),
      acceptedWrites(calls, 'TodoWrite', () => true)
    )
  }

  describe('Claude Code 2.1.337', () => {
    it(
      'TodoWrite through its own HTTP hooks (examples/observe/claude-code/settings.json)',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'claude')) return
        const run = await agentRun({
          agent: 'claude',
          script: SCRIPTS['claude-todowrite'],
          hooks: true,
        })
        assert.equal(run.code, 0, run.stderr)
        const session = `claude:${nativeSession(run)}`
        const view = await sessionWhen(server, session, ended)
        const calls = truth(run, 'claude-todowrite')
        assert.equal(view.source, 'claude-code')
        assert.equal(view.dialect, 'claude-todowrite')
        // all completed: Claude clears its own store, the session shows that list as done
        assertItems(view.items, expectedTodoWrite(calls), 'TodoWrite hooks')
        assert.equal(view.progress.completed, 3)
        assert.equal(view.ended.outcome, 'completed')
        assert.deepEqual(view.ended.unfinished, [])
        // the refused write (no activeForm) never reached the list
        assert.deepEqual(
          await historyLists(server, session),
          acceptedWrites(calls, 'TodoWrite', () => true)
        )
      }
    )

    it(
      'TodoWrite through `agent-todos observe` (stream-json)',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'claude')) return
        const run = await agentRun({
          agent: 'claude',
          script: SCRIPTS['claude-todowrite'],
          observe: true,
        })
        assert.equal(run.code, 0, run.stderr)
        await assertStreamedTodoWrite(run, `claude:${nativeSession(run)}`, 'TodoWrite stream')
      }
    )

    it(
      'TodoWrite through the Agent SDK and its forwarder (examples/observe/claude-agent-sdk/main.ts)',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'claude')) return
        const listed = async () =>
          (
            await request(
              server.url,
              'GET',
              '/v1/sessions?source=claude-agent-sdk',
              undefined,
              AUTH
            )
          ).body.sessions.map((s: any) => s.session_id as string)
        const before = new Set(await listed())
        const run = await agentRun({
          agent: 'claude',
          script: SCRIPTS['claude-todowrite'],
          sdk: true,
        })
        assert.equal(run.code, 0, run.stderr)
        // the SDK's own result message, printed by the example
        assert.equal(run.stdout.trim(), 'success', run.stderr)
        const fresh = (await listed()).filter((id: string) => !before.has(id))
        assert.equal(fresh.length, 1, JSON.stringify(fresh))
        await assertStreamedTodoWrite(run, fresh[0], 'TodoWrite through the SDK')
      }
    )

    it(
      'hooks and observe of one run feed one session, each call applied once',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'claude')) return
        const run = await agentRun({
          agent: 'claude',
          script: SCRIPTS['claude-todowrite'],
          hooks: true,
          observe: true,
        })
        assert.equal(run.code, 0, run.stderr)
        const session = `claude:${nativeSession(run)}`
        const view = await sessionWhen(server, session, ended)
        const calls = truth(run, 'claude-todowrite')
        assertItems(view.items, expectedTodoWrite(calls), 'TodoWrite hooks + stream')
        assert.equal(view.ended.outcome, 'completed')
        assert.deepEqual(
          await historyLists(server, session),
          acceptedWrites(calls, 'TodoWrite', () => true)
        )
      }
    )

    for (const mode of ['hooks', 'observe'] as const)
      it(
        `Task tools (CLAUDE_CODE_ENABLE_TASKS=1) through ${mode}: the agent's ids`,
        { timeout: TEST_TIMEOUT },
        async (t) => {
          if (!requireCli(t, 'claude')) return
          const run = await agentRun({
            agent: 'claude',
            script: SCRIPTS['claude-tasks'],
            tasks: true,
            hooks: mode === 'hooks',
            observe: mode === 'observe',
          })
          assert.equal(run.code, 0, run.stderr)
          const session = `claude:${nativeSession(run)}`
          const view = await sessionWhen(server, session, ended)
          assert.equal(view.dialect, 'claude-tasks')
          assert.equal(view.source, mode === 'hooks' ? 'claude-code' : 'claude-agent-sdk')
          // #1 and #2 as TaskCreate's results named them, #3 deleted, the unknown #99 changed nothing
          assertItems(view.items, expectedTasks(truth(run, 'claude-tasks')), `Tasks ${mode}`)
          assert.equal(view.ended.outcome, 'completed')
        }
      )

    it(
      'a subagent keeps its own list, under the main session',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'claude')) return
        const run = await agentRun({
          agent: 'claude',
          script: SCRIPTS['claude-subagent'],
          hooks: true,
        })
        assert.equal(run.code, 0, run.stderr)
        const main = `claude:${nativeSession(run)}`
        const view = await sessionWhen(server, main, ended)
        assertItems(view.items, expectedTodoWrite(truth(run, 'claude-subagent')), 'main agent')
        const listing = await request(
          server.url,
          'GET',
          '/v1/sessions?state=all&limit=200',
          undefined,
          AUTH
        )
        assert.equal(listing.status, 200)
        const children = listing.body.sessions.filter((s: any) =>
          s.session_id.startsWith(`${main}:agent:`)
        )
        assert.equal(
          children.length,
          1,
          JSON.stringify(listing.body.sessions.map((s: any) => s.session_id))
        )
        const child = (
          await request(server.url, 'GET', path(children[0].session_id), undefined, AUTH)
        ).body
        assert.equal(child.parent, main)
        assertItems(child.items, expectedTodoWrite(truth(run, 'claude-subagent-child')), 'subagent')
      }
    )

    it(
      '--max-turns through observe: ended max_turns with the task still in progress',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'claude')) return
        const run = await agentRun({
          agent: 'claude',
          script: SCRIPTS['claude-max-turns'],
          maxTurns: 3,
          observe: true,
        })
        assert.equal(run.code, 1, 'claude exits 1 at the turn limit')
        const session = `claude:${nativeSession(run)}`
        const view = await sessionWhen(server, session, ended)
        assertItems(view.items, expectedTodoWrite(truth(run, 'claude-max-turns')), 'max turns')
        // the stream's error_max_turns, not observe's "exit code 1"
        assert.equal(view.ended.outcome, 'max_turns')
        const running = view.items
          .filter((i: any) => i.status === 'in_progress')
          .map((i: any) => i.id)
        assert.equal(running.length, 1)
        assert.deepEqual(view.ended.unfinished, running)
      }
    )

    it(
      '--max-turns through hooks: SessionEnd (no Stop fires) ends it cancelled',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'claude')) return
        const run = await agentRun({
          agent: 'claude',
          script: SCRIPTS['claude-max-turns'],
          maxTurns: 3,
          hooks: true,
        })
        assert.equal(run.code, 1)
        const session = `claude:${nativeSession(run)}`
        const view = await sessionWhen(server, session, ended)
        assertItems(
          view.items,
          expectedTodoWrite(truth(run, 'claude-max-turns')),
          'max turns hooks'
        )
        assert.equal(view.ended.outcome, 'cancelled')
        assert.equal(view.ended.detail, 'other')
      }
    )
  })

  describe('Codex 0.171.0', () => {
    it(
      'update_plan through `agent-todos observe -- codex exec --json`',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'codex')) return
        const run = await agentRun({ agent: 'codex', script: SCRIPTS['codex-plan'], observe: true })
        assert.equal(run.code, 0, run.stderr)
        const session = `codex:${nativeSession(run)}`
        const view = await sessionWhen(server, session, ended)
        assert.equal(view.source, 'codex')
        assert.equal(view.dialect, 'codex-plan')
        assertItems(view.items, expectedCodexPlan(truth(run, 'codex-plan')), 'Codex exec stream')
        assert.equal(view.ended.outcome, 'completed')
      }
    )

    it(
      'update_plan through its command hooks (examples/observe/codex/hooks.json)',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'codex')) return
        const run = await agentRun({ agent: 'codex', script: SCRIPTS['codex-plan'], hooks: true })
        assert.equal(run.code, 0, run.stderr)
        const session = `codex:${nativeSession(run)}`
        const view = await sessionWhen(server, session, ended)
        const calls = truth(run, 'codex-plan')
        assert.equal(view.dialect, 'codex-plan')
        assertItems(view.items, expectedCodexPlan(calls), 'Codex hooks')
        assert.equal(view.ended.outcome, 'completed')
        // the hooks carry every status (in_progress too); the refused plan (`doing`) never applied
        assert.deepEqual(
          await historyLists(server, session),
          acceptedWrites(calls, 'update_plan', (e) => e.result === 'Plan updated')
        )
      }
    )
  })

  describe('Gemini CLI 0.61.0', () => {
    it(
      'write_todos through `agent-todos observe` (stream-json)',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'gemini')) return
        const run = await agentRun({
          agent: 'gemini',
          script: SCRIPTS['gemini-todos'],
          observe: true,
        })
        assert.equal(run.code, 0, run.stderr)
        const session = `gemini:${nativeSession(run)}`
        const view = await sessionWhen(server, session, ended)
        assert.equal(view.source, 'gemini-cli')
        assert.equal(view.dialect, 'gemini-todos')
        assertItems(view.items, expectedGeminiTodos(truth(run, 'gemini-todos')), 'Gemini stream')
        assert.equal(view.ended.outcome, 'completed')
      }
    )

    it(
      'write_todos through its command hooks (examples/observe/gemini-cli/settings.json)',
      { timeout: TEST_TIMEOUT },
      async (t) => {
        if (!requireCli(t, 'gemini')) return
        const run = await agentRun({
          agent: 'gemini',
          script: SCRIPTS['gemini-todos'],
          hooks: true,
        })
        assert.equal(run.code, 0, run.stderr)
        const session = `gemini:${nativeSession(run)}`
        const view = await sessionWhen(server, session, ended)
        const calls = truth(run, 'gemini-todos')
        assertItems(view.items, expectedGeminiTodos(calls), 'Gemini hooks')
        assert.equal(view.ended.outcome, 'completed')
        // the refused write (two in_progress) fired no hook and never applied
        assert.deepEqual(
          await historyLists(server, session),
          acceptedWrites(calls, 'write_todos', () => true)
        )
      }
    )
  })
})
