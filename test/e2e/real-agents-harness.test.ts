/**
 * The agent side of the real-agent end-to-end tests, against a recorder in place of the service:
 * the real Claude Code, Codex and Gemini CLIs play their scripts against the model stand-ins, post
 * their hooks through the files of examples/observe/ (with the key), and `agent-todos observe`
 * forwards every stdout line to the agent's ingest route and ends the session. What the service
 * makes of it is real-agents.test.ts; this shows the harness and the examples work as they are.
 *
 * Under CI a CLI that is not installed is a failure, never a skip.
 */
import { after, describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { cliPath, runAgent, type AgentName, type AgentRun } from '../agents/agents.js'
import { startModelApi, type ModelApi } from '../agents/model-api.js'
import { startRecorder, type Recorder } from '../agents/recorder.js'
import { SCRIPTS } from '../agents/scripts.js'

const KEY = 'harness-agent-key-01'
const CI = process.env.CI === 'true' || process.env.CI === '1'
const TEST_TIMEOUT = 150_000

function requireCli(t: TestContext, agent: AgentName): boolean {
  if (cliPath(agent)) return true
  if (CI) assert.fail(`${agent} is not installed: node scripts/ensure-test-agents.mjs installs it`)
  t.skip(`${agent} is not installed (node scripts/ensure-test-agents.mjs)`)
  return false
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => line.replace(/\r$/, ''))

/** A hook's JSON input as the CLI posted it: the event's name, the tool's for tool events. */
type HookInput = Record<string, unknown> & { hook_event_name: string; tool_name?: string }

describe('real agents against a recorder: hooks and observe deliver what the CLI emitted', () => {
  const cleanups: (() => Promise<void>)[] = []
  after(async () => {
    for (const cleanup of cleanups) await cleanup()
  })

  async function both(
    agent: AgentName,
    script: string
  ): Promise<{
    run: AgentRun
    api: ModelApi
    recorder: Recorder
    hooks: HookInput[]
  }> {
    const api = await startModelApi()
    const recorder = await startRecorder()
    const run = await runAgent({
      agent,
      script: SCRIPTS[script],
      api,
      service: { url: recorder.url, key: KEY },
      hooks: true,
      observe: true,
      timeoutMs: 90_000,
    })
    cleanups.push(
      () => run.cleanup(),
      () => api.close(),
      () => recorder.close()
    )
    assert.equal(run.timedOut, false, `${agent} timed out:\n${run.stderr}`)
    assert.equal(run.code, 0, run.stderr)
    // the whole script was played: the last request asked for its last turn
    const played = api.requests.filter((r) => r.script === script).map((r) => r.turn)
    assert.equal(played.at(-1), SCRIPTS[script].turns.length - 1)
    const route = { claude: 'claude-code', codex: 'codex', gemini: 'gemini-cli' }[agent]
    const hookPosts = recorder
      .posts(`/v1/ingest/${route}`)
      .filter((r) => r.headers['content-type'] !== 'application/x-ndjson')
    for (const post of hookPosts) {
      assert.equal(post.headers.authorization, `Bearer ${KEY}`)
      assert.match(String(post.headers['content-type']), /^application\/json/)
    }
    // observe: every JSON line of stdout, in order, to the stream route; then the end
    const stream = { claude: 'claude-agent-sdk', codex: 'codex', gemini: 'gemini-cli' }[agent]
    const forwarded = recorder
      .posts(`/v1/ingest/${stream}`)
      .filter((r) => r.headers['content-type'] === 'application/x-ndjson')
      .flatMap((r) => r.body.split('\n').filter(Boolean))
    assert.deepEqual(forwarded, jsonLines(run.stdout))
    const last = recorder.requests.filter((r) => r.path.startsWith('/v1/sessions/')).at(-1)!
    assert.match(last.path, /^\/v1\/sessions\/[^/]+\/end$/)
    assert.deepEqual(JSON.parse(last.body), { outcome: 'completed', detail: 'exit code 0' })
    const hooks = hookPosts.map((r) => JSON.parse(r.body) as HookInput)
    return { run, api, recorder, hooks }
  }

  it(
    'Claude Code: HTTP hooks with the key from allowedEnvVars, SessionStart by command',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireCli(t, 'claude')) return
      const { api, hooks } = await both('claude', 'claude-todowrite')
      assert.deepEqual(
        hooks.map((h) => `${h.hook_event_name}${h.tool_name ? ` ${h.tool_name}` : ''}`),
        [
          'SessionStart',
          'PostToolUse TodoWrite',
          'PostToolUse TodoWrite',
          'PostToolUse TodoWrite',
          'Stop',
          'SessionEnd',
        ]
      )
      // the refused call (no activeForm) fired no hook; the others carry the stand-in's call ids
      const accepted = api
        .exchanges('claude-todowrite')
        .filter((e) => e.name === 'TodoWrite' && !e.isError)
        .map((e) => e.id)
      assert.deepEqual(
        hooks.filter((h) => h.tool_use_id).map((h) => h.tool_use_id),
        accepted
      )
      // one session; and TodoWrite existed at all thanks to the example settings.json's "env"
      // (the run's environment has no CLAUDE_CODE_ENABLE_TODO_TOOLS when hooks are installed)
      assert.equal(new Set(hooks.map((h) => h.session_id)).size, 1)
    }
  )

  it('Codex: command hooks through forward-hook.sh', { timeout: TEST_TIMEOUT }, async (t) => {
    if (!requireCli(t, 'codex')) return
    const { api, hooks, run } = await both('codex', 'codex-plan')
    const thread = JSON.parse(run.stdout.split('\n')[0]).thread_id
    assert.deepEqual(
      hooks.map((h) => `${h.hook_event_name}${h.tool_name ? ` ${h.tool_name}` : ''}`),
      [
        'SessionStart',
        'PostToolUse update_plan',
        'PostToolUse update_plan',
        'PostToolUse update_plan',
        'Stop',
        'SessionEnd',
      ]
    )
    for (const hook of hooks) assert.equal(hook.session_id, thread)
    const accepted = api
      .exchanges('codex-plan')
      .filter((e) => e.result === 'Plan updated')
      .map((e) => e.id)
    assert.deepEqual(
      hooks.filter((h) => h.tool_use_id).map((h) => h.tool_use_id),
      accepted
    )
  })

  it(
    'Gemini CLI: command hooks through forward-hook.sh, the model from settings.json',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      if (!requireCli(t, 'gemini')) return
      const { api, hooks } = await both('gemini', 'gemini-todos')
      assert.equal(
        api.requests.filter((r) => r.path.includes('/models/gemini-2.5-pro:')).length > 0,
        true
      )
      assert.deepEqual(
        hooks.map((h) => `${h.hook_event_name}${h.tool_name ? ` ${h.tool_name}` : ''}`),
        [
          'SessionStart',
          'AfterTool write_todos',
          'AfterTool write_todos',
          'AfterTool write_todos',
          'AfterAgent',
          'SessionEnd',
        ]
      )
      // the refused write (two in_progress) fired no hook
      const accepted = api
        .exchanges('gemini-todos')
        .filter((e) => !e.isError)
        .map((e) => JSON.stringify(e.input))
      assert.deepEqual(
        hooks.filter((h) => h.tool_input).map((h) => JSON.stringify(h.tool_input)),
        accepted
      )
    }
  )
})
