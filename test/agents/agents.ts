/**
 * Runs the real agent CLIs (pinned in test/agents/package.json, installed into
 * test/agents/node_modules by scripts/ensure-test-agents.mjs) offline: a fresh HOME,
 * an environment built from scratch (nothing inherited but PATH), the model API pointed at the
 * scripted stand-in, and, when asked, the hook configuration of examples/observe/ pointed at the
 * service (or a recorder). Every run is bounded: SIGTERM at the timeout, SIGKILL 2 s later, the
 * whole process group (hooks and native children included).
 */
import { existsSync } from 'node:fs'
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { ModelApi } from './model-api.js'
import { runInGroup } from './process-group.js'
import type { Script } from './scripts.js'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const EXAMPLES = join(ROOT, 'examples/observe')
/** test/agents/: the test-only package that holds the CLIs and the Agent SDK. */
const AGENTS = fileURLToPath(new URL('.', import.meta.url))

export type AgentName = 'claude' | 'codex' | 'gemini'

/** The URL the examples name for the service; tests replace it with theirs. */
export const EXAMPLE_SERVICE_URL = 'http://127.0.0.1:8080'

/** The CLI's executable in test/agents/node_modules/.bin, or null when it is not installed. */
export function cliPath(agent: AgentName): string | null {
  const path = join(AGENTS, 'node_modules/.bin', agent)
  return existsSync(path) ? path : null
}

export interface AgentRun {
  agent: AgentName
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  durationMs: number
  /** The fresh HOME and the project directory (cwd) of the run; removed by cleanup(). */
  home: string
  cwd: string
  /** The temp root both live in (for scrubbing it out of captures). */
  root: string
  cleanup(): Promise<void>
}

export interface RunOptions {
  agent: AgentName
  script: Script
  api: ModelApi
  /** The service (or a recorder) that hooks and `observe` post to. */
  service?: { url: string; key?: string }
  /** Install the hook configuration of examples/observe/ (needs `service`). */
  hooks?: boolean
  /** Run the CLI through `agent-todos observe` (needs `service`). */
  observe?: boolean
  /**
   * Claude: run examples/observe/claude-agent-sdk/main.ts instead of the CLI: the Agent SDK's
   * `query()` (which runs its own copy of Claude Code) through the documented forwarder (needs
   * `service`).
   */
  sdk?: boolean
  /** Extra `observe` options, e.g. ['--session-id', 'ci-42']. */
  observeArgs?: string[]
  /** Claude: Tasks mode (CLAUDE_CODE_ENABLE_TASKS=1) instead of TodoWrite. */
  tasks?: boolean
  /** Claude: --max-turns (default 20). */
  maxTurns?: number
  timeoutMs?: number
  /** Keep HOME after the run (also KEEP_AGENT_HOME=1). */
  keep?: boolean
}

const exampleText = async (file: string, serviceUrl?: string) => {
  const text = await readFile(join(EXAMPLES, file), 'utf8')
  return serviceUrl ? text.split(EXAMPLE_SERVICE_URL).join(serviceUrl) : text
}

/** Writes the agent's configuration into the fresh HOME; returns the CLI arguments. */
async function prepare(options: RunOptions, home: string): Promise<string[]> {
  const { agent, script, api, service, hooks } = options
  if (hooks) {
    if (!service) throw new Error('hooks need a service URL')
    await mkdir(join(home, '.agent-todos'), { recursive: true })
    await copyFile(join(EXAMPLES, 'forward-hook.sh'), join(home, '.agent-todos/forward-hook.sh'))
    await chmod(join(home, '.agent-todos/forward-hook.sh'), 0o755)
  }
  if (agent === 'claude') {
    await mkdir(join(home, '.claude'), { recursive: true })
    if (hooks)
      await writeFile(
        join(home, '.claude/settings.json'),
        await exampleText('claude-code/settings.json', service!.url)
      )
    return [
      '-p',
      script.prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--max-turns',
      String(options.maxTurns ?? 20),
      '--debug-file',
      join(home, 'claude-debug.txt'),
    ]
  }
  if (agent === 'codex') {
    const codexHome = join(home, '.codex')
    await mkdir(codexHome, { recursive: true })
    // top-level keys first (TOML), then the example verbatim, then the stand-in's provider
    const config = [
      '# test: the model API is the scripted stand-in',
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'sandbox_mode = "read-only"',
      'check_for_update_on_startup = false',
      '',
      await exampleText('codex/config.toml'),
      '[model_providers.fake]',
      'name = "Scripted Responses API"',
      `base_url = "${api.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_OPENAI_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      'stream_idle_timeout_ms = 20000',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[feedback]',
      'enabled = false',
      '',
    ].join('\n')
    await writeFile(join(codexHome, 'config.toml'), config)
    if (hooks) await writeFile(join(codexHome, 'hooks.json'), await exampleText('codex/hooks.json'))
    return [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--color',
      'never',
      ...(hooks ? ['--dangerously-bypass-hook-trust'] : []),
      script.prompt,
    ]
  }
  const example = JSON.parse(await exampleText('gemini-cli/settings.json')) as Record<
    string,
    unknown
  >
  const settings = {
    // test: API-key auth against the stand-in, no telemetry, no trust prompt
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    model: example.model,
    ...(hooks ? { hooks: example.hooks } : {}),
  }
  await mkdir(join(home, '.gemini'), { recursive: true })
  await writeFile(join(home, '.gemini/settings.json'), JSON.stringify(settings, null, 2))
  return ['-p', script.prompt, '--output-format', 'stream-json', '--approval-mode', 'yolo']
}

/** The environment of one run: nothing inherited but PATH. */
function environment(options: RunOptions, home: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
  }
  if (options.service) {
    env.AGENT_TODOS_URL = options.service.url
    if (options.service.key) env.AGENT_TODOS_KEY = options.service.key
  }
  if (options.agent === 'claude')
    Object.assign(env, {
      ANTHROPIC_API_KEY: 'sk-ant-dummy',
      ANTHROPIC_BASE_URL: options.api.url,
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_BUG_COMMAND: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      // the hook runs get it from the example settings.json's "env"; the others need it here
      ...(options.hooks ? {} : { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' }),
      CLAUDE_CODE_ENABLE_TASKS: options.tasks ? '1' : '0',
    })
  else if (options.agent === 'codex')
    Object.assign(env, {
      CODEX_HOME: join(home, '.codex'),
      FAKE_OPENAI_API_KEY: 'sk-dummy',
      RUST_LOG: 'warn',
      NO_COLOR: '1',
    })
  else
    Object.assign(env, {
      NO_COLOR: '1',
      CI: '1',
      GEMINI_API_KEY: 'dummy-gemini-key',
      GOOGLE_GEMINI_BASE_URL: options.api.url,
      GEMINI_TELEMETRY_ENABLED: 'false',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    })
  return env
}

/**
 * Runs one real CLI to its end (bounded by `timeoutMs`, default 60 s).
 * @throws when the CLI is not installed
 */
export async function runAgent(options: RunOptions): Promise<AgentRun> {
  const bin = cliPath(options.agent)
  if (!bin)
    throw new Error(`${options.agent} is not installed (node scripts/ensure-test-agents.mjs)`)
  if ((options.hooks || options.observe) && !options.service)
    throw new Error('hooks and observe need a service URL')
  const root = await mkdtemp(join(tmpdir(), `agent-todos-${options.agent}-`))
  const home = join(root, 'home')
  const cwd = join(root, 'project')
  await mkdir(home, { recursive: true })
  await mkdir(cwd, { recursive: true })
  const args = await prepare(options, home)
  const env = environment(options, home)
  let command = bin
  let argv = args
  if (options.sdk) {
    if (options.agent !== 'claude' || !options.service)
      throw new Error('sdk: claude, with a service')
    command = process.execPath
    argv = [
      '--import',
      import.meta.resolve('tsx'),
      // the example imports @anthropic-ai/claude-agent-sdk, installed in test/agents/ only
      '--import',
      pathToFileURL(join(AGENTS, 'resolve-here.mjs')).href,
      join(EXAMPLES, 'claude-agent-sdk/main.ts'),
      options.script.prompt,
    ]
  } else if (options.observe) {
    command = process.execPath
    argv = [
      '--import',
      import.meta.resolve('tsx'),
      join(ROOT, 'src/cli.ts'),
      'observe',
      // hooks under observe post with the key: it must be handed on (docs/observe.md)
      ...(options.hooks && options.service?.key ? ['--pass-key'] : []),
      ...(options.observeArgs ?? []),
      '--',
      bin,
      ...args,
    ]
  }
  // Gemini does not wait for its SessionEnd hook: what is left of the group gets 5 s
  const run = await runInGroup(command, argv, {
    cwd,
    env,
    timeoutMs: options.timeoutMs ?? 60_000,
    drainMs: 5000,
  })
  const keep = options.keep || process.env.KEEP_AGENT_HOME === '1'
  return {
    agent: options.agent,
    ...run,
    home,
    cwd,
    root,
    cleanup: async () => {
      if (!keep) await rm(root, { recursive: true, force: true })
    },
  }
}
