/**
 * Runs the real Qwen Code CLI (0.24.4, test/agents/node_modules/.bin/qwen) offline: a fresh HOME,
 * an environment built from scratch (nothing inherited but PATH), its OpenAI-compatible model API
 * pointed at the chat-completions stand-in (chat-completions.ts), and, when asked, the settings of
 * examples/observe/qwen-code/settings.json (`tools.todoWrite.enabled` and one `"type": "http"`
 * hook per event) pointed at the service or a recorder. Bounded like agents.ts: SIGTERM at the
 * timeout, SIGKILL 2 s later, the whole process group.
 *
 * Also the capture of the real Qwen fixtures: `node --import tsx test/agents/qwen.ts` writes
 * test/fixtures/ingest/qwen-code/real-*.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { EXAMPLE_SERVICE_URL, EXAMPLES, ROOT } from './agents.js'
import {
  startChatCompletionsApi,
  type ChatCompletionsApi,
  type ChatExchange,
} from './chat-completions.js'
import { runInGroup } from './process-group.js'
import { startRecorder } from './recorder.js'
import type { Script, ScriptTurn } from './scripts.js'

const AGENTS = fileURLToPath(new URL('.', import.meta.url))

/** The CLI in test/agents/node_modules/.bin, or null when it is not installed. */
export function qwenPath(): string | null {
  const path = join(AGENTS, 'node_modules/.bin/qwen')
  return existsSync(path) ? path : null
}

const todo = (id: string, content: string, status: string) => ({ id, content, status })
const write = (...todos: ReturnType<typeof todo>[]): ScriptTurn['calls'] => [
  { name: 'todo_write', input: { todos } },
]

/**
 * Qwen's `todo_write`: create, complete one (start the next), a write the tool refuses (two
 * items with one id), a no-op write, complete another and add one, then plain text.
 */
export const QWEN_TODOS: Script = {
  name: 'qwen-todos',
  prompt: 'Add a /health endpoint with a test. (script=qwen-todos)',
  turns: [
    {
      text: 'I will plan this first.',
      calls: write(
        todo('1', 'Write the /health handler', 'in_progress'),
        todo('2', 'Add a test for /health', 'pending'),
        todo('3', 'Update the README', 'pending')
      ),
    },
    {
      calls: write(
        todo('1', 'Write the /health handler', 'completed'),
        todo('2', 'Add a test for /health', 'in_progress'),
        todo('3', 'Update the README', 'pending')
      ),
    },
    {
      // refused by the tool (ids must be unique): the list must stay as it was
      calls: write(
        todo('1', 'Write the /health handler', 'completed'),
        todo('1', 'Add a test for /health', 'completed'),
        todo('3', 'Update the README', 'pending')
      ),
    },
    {
      // the same list again: "already up to date", no todo hook fires
      calls: write(
        todo('1', 'Write the /health handler', 'completed'),
        todo('2', 'Add a test for /health', 'in_progress'),
        todo('3', 'Update the README', 'pending')
      ),
    },
    {
      calls: write(
        todo('1', 'Write the /health handler', 'completed'),
        todo('2', 'Add a test for /health', 'completed'),
        todo('3', 'Update the README', 'in_progress'),
        todo('4', 'Run the linter', 'pending')
      ),
    },
    { text: 'The handler and its test are done; the README is next.' },
  ],
}

/** A run that writes no todos: with todo_write off it is not offered at all. */
export const QWEN_PLAIN: Script = {
  name: 'qwen-plain',
  prompt: 'Say hello. (script=qwen-plain)',
  turns: [{ text: 'Hello.' }],
}

/**
 * A permission prompt (the SDK protocol, `--approval-mode default`): a plan, a shell command the
 * person denies, the same command allowed, the plan completed.
 */
export const QWEN_PERMISSION: Script = {
  name: 'qwen-permission',
  prompt: 'Print a greeting with the shell. (script=qwen-permission)',
  turns: [
    { calls: write(todo('greet', 'Print a greeting', 'in_progress')) },
    {
      calls: [
        {
          name: 'run_shell_command',
          input: { command: 'touch greeting.txt', is_background: false },
        },
      ],
    },
    {
      calls: [
        {
          name: 'run_shell_command',
          input: { command: 'touch greeting.txt', is_background: false },
        },
      ],
    },
    { calls: write(todo('greet', 'Print a greeting', 'completed')) },
    { text: 'Printed it.' },
  ],
}

export const QWEN_SCRIPTS: Record<string, Script> = {
  [QWEN_TODOS.name]: QWEN_TODOS,
  [QWEN_PLAIN.name]: QWEN_PLAIN,
  [QWEN_PERMISSION.name]: QWEN_PERMISSION,
}

export interface QwenRunOptions {
  script: Script
  api: ChatCompletionsApi
  /** The service (or a recorder) the hooks and `observe` post to. */
  service?: { url: string; key?: string }
  /** Install the hooks of examples/observe/qwen-code/settings.json (needs `service`). */
  hooks?: boolean
  /** `tools.todoWrite.enabled` (default true; the example sets it). */
  todoWrite?: boolean
  /** Run through `agent-todos observe` (needs `service`). */
  observe?: boolean
  observeArgs?: string[]
  /**
   * Run the SDK protocol (`--input-format stream-json --approval-mode default`): the prompt and
   * each permission answer go to stdin; `allow` decides each `can_use_tool` request in turn.
   */
  sdk?: { allow: (nth: number) => boolean | Promise<boolean> }
  timeoutMs?: number
  keep?: boolean
}

export interface QwenRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  home: string
  cwd: string
  root: string
  cleanup(): Promise<void>
}

/**
 * The settings a run writes to `~/.qwen/settings.json`: the test's (OpenAI auth against the
 * stand-in, no telemetry, no trust prompt), then the example's `tools` and `hooks`.
 * @param serviceUrl - the service the example's hooks are pointed at
 * @param hooks - whether to install the hooks
 * @param todoWrite - `tools.todoWrite.enabled`
 */
export async function qwenSettings(
  serviceUrl: string | undefined,
  hooks: boolean,
  todoWrite: boolean
): Promise<Record<string, unknown>> {
  let text = await readFile(join(EXAMPLES, 'qwen-code/settings.json'), 'utf8')
  if (serviceUrl) text = text.split(EXAMPLE_SERVICE_URL).join(serviceUrl)
  const example = JSON.parse(text) as { tools: unknown; hooks: unknown }
  return {
    security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    tools: todoWrite ? example.tools : { todoWrite: { enabled: false } },
    ...(hooks ? { hooks: example.hooks } : {}),
  }
}

/**
 * Runs `qwen -p <prompt> --output-format stream-json` to its end (bounded, default 90 s).
 * @throws when the CLI is not installed
 */
export async function runQwen(options: QwenRunOptions): Promise<QwenRun> {
  const bin = qwenPath()
  if (!bin) throw new Error('qwen is not installed (node scripts/ensure-test-agents.mjs)')
  if ((options.hooks || options.observe) && !options.service)
    throw new Error('hooks and observe need a service URL')
  const root = await mkdtemp(join(tmpdir(), 'agent-todos-qwen-'))
  const home = join(root, 'home')
  const cwd = join(root, 'project')
  await mkdir(join(home, '.qwen'), { recursive: true })
  await mkdir(cwd, { recursive: true })
  const settings = await qwenSettings(
    options.service?.url,
    options.hooks === true,
    options.todoWrite !== false
  )
  await writeFile(join(home, '.qwen/settings.json'), JSON.stringify(settings, null, 2))
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    CI: '1',
    OPENAI_API_KEY: 'sk-dummy-qwen',
    OPENAI_BASE_URL: `${options.api.url}/v1`,
    OPENAI_MODEL: 'qwen3-coder-plus',
    QWEN_CODE_NO_RELAUNCH: 'true',
  }
  if (options.service) {
    env.AGENT_TODOS_URL = options.service.url
    if (options.service.key) env.AGENT_TODOS_KEY = options.service.key
  }
  const args = options.sdk
    ? [
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--approval-mode',
        'default',
      ]
    : ['-p', options.script.prompt, '--output-format', 'stream-json']
  let command = bin
  let argv = args
  if (options.observe) {
    command = process.execPath
    argv = [
      '--import',
      import.meta.resolve('tsx'),
      join(ROOT, 'src/cli.ts'),
      'observe',
      ...(options.hooks && options.service?.key ? ['--pass-key'] : []),
      ...(options.observeArgs ?? []),
      '--',
      bin,
      ...args,
    ]
  }
  const { sdk } = options
  const run = await runInGroup(command, argv, {
    cwd,
    env,
    timeoutMs: options.timeoutMs ?? 90_000,
    drainMs: 5000,
    withStdin: sdk
      ? (child) => sdkSession(child.stdin!, child.stdout!, options.script.prompt, sdk.allow)
      : undefined,
  })
  const keep = options.keep || process.env.KEEP_AGENT_HOME === '1'
  return {
    ...run,
    home,
    cwd,
    root,
    cleanup: async () => {
      if (!keep) await rm(root, { recursive: true, force: true })
    },
  }
}

/**
 * The SDK side of Qwen's stream-json protocol: initialize, the prompt, an answer to each
 * `can_use_tool` request, and stdin closed once the turn's `result` came.
 */
function sdkSession(
  stdin: NodeJS.WritableStream,
  stdout: NodeJS.ReadableStream,
  prompt: string,
  allow: (nth: number) => boolean | Promise<boolean>
): void {
  const send = (value: unknown) => stdin.write(JSON.stringify(value) + '\n')
  send({ type: 'control_request', request_id: 'init-1', request: { subtype: 'initialize' } })
  send({
    type: 'user',
    session_id: '',
    parent_tool_use_id: null,
    message: { role: 'user', content: prompt },
  })
  let asked = 0
  let buffered = ''
  stdout.on('data', (chunk: string) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) {
      let value: { type?: string; request_id?: string; request?: { subtype?: string } }
      try {
        value = JSON.parse(line)
      } catch {
        continue
      }
      if (value.type === 'control_request' && value.request?.subtype === 'can_use_tool') {
        const requestId = value.request_id
        void Promise.resolve(allow(asked++)).then((allowed) =>
          send({
            type: 'control_response',
            response: {
              subtype: 'success',
              request_id: requestId,
              response: allowed
                ? { behavior: 'allow' }
                : { behavior: 'deny', message: 'The person said no.' },
            },
          })
        )
      }
      if (value.type === 'result') stdin.end()
    }
  })
}

/** Qwen's session id: the first stream-json line that carries one. */
export function qwenSession(stdout: string): string {
  for (const line of stdout.split('\n')) {
    try {
      const value = JSON.parse(line) as Record<string, unknown>
      if (typeof value.session_id === 'string' && value.session_id) return value.session_id
    } catch {
      // not JSON
    }
  }
  throw new Error(`no session id in the qwen output:\n${stdout}`)
}

export interface ExpectedQwenItem {
  id: string
  content: string
  status: string
}

/** Whether Qwen's tool said the write changed the list (a no-op or an error did not). */
const wrote = (e: ChatExchange) =>
  e.result !== undefined &&
  (/^Todos have been modified successfully/.test(e.result) ||
    /^Todo list has been cleared/.test(e.result))

/**
 * The list Qwen holds at the end: the input of the last `todo_write` its tool said it wrote.
 * @param exchanges - the stand-in's calls, with the CLI's result texts
 */
export function expectedQwenTodos(exchanges: readonly ChatExchange[]): ExpectedQwenItem[] {
  const last = exchanges.filter((e) => e.name === 'todo_write' && wrote(e)).pop()
  if (!last) throw new Error('no accepted todo_write')
  return (last.input.todos as ExpectedQwenItem[]).map(({ id, content, status }) => ({
    id,
    content,
    status,
  }))
}

/** Every list Qwen's tool wrote, in order, as `status content` lines. */
export function qwenWrites(exchanges: readonly ChatExchange[]): string[][] {
  return exchanges
    .filter((e) => e.name === 'todo_write' && wrote(e))
    .map((e) => (e.input.todos as ExpectedQwenItem[]).map((t) => `${t.status} ${t.content}`))
}

/** Temp paths in a capture → /home/user and /home/user/project. */
function scrub(text: string, run: QwenRun): string {
  return text
    .split(run.cwd.replace(/\//g, '-'))
    .join('-home-user-project')
    .split(run.cwd)
    .join('/home/user/project')
    .split(run.home)
    .join('/home/user')
    .split(run.root)
    .join('/home/user')
}

/** Captures the real fixtures: hooks (recorder), the stream, the tool results. */
async function capture(): Promise<void> {
  const dir = join(ROOT, 'test/fixtures/ingest/qwen-code')
  await mkdir(dir, { recursive: true })
  const save = (file: string, text: string) => writeFile(join(dir, file), text)
  const scenarios: {
    name: string
    script: Script
    todoWrite: boolean
    sdk?: QwenRunOptions['sdk']
  }[] = [
    { name: 'todos', script: QWEN_TODOS, todoWrite: true },
    { name: 'no-todo-tool', script: QWEN_PLAIN, todoWrite: false },
    // the first prompt denied, the second allowed
    { name: 'permission', script: QWEN_PERMISSION, todoWrite: true, sdk: { allow: (n) => n > 0 } },
  ]
  const only = process.argv.slice(2)
  for (const { name, script, todoWrite, sdk } of scenarios) {
    if (only.length && !only.includes(name)) continue
    const api = await startChatCompletionsApi(QWEN_SCRIPTS)
    const recorder = await startRecorder()
    const run = await runQwen({
      script,
      api,
      service: { url: recorder.url, key: 'capture-key' },
      hooks: true,
      todoWrite,
      sdk,
    })
    if (run.code !== 0 || run.timedOut)
      throw new Error(`qwen ${name}: exit ${run.code}\n${run.stdout}\n${run.stderr}`)
    // hooks Qwen does not await may land after it exits
    await new Promise((resolve) => setTimeout(resolve, 500))
    const hooks = recorder.posts('/v1/ingest/qwen-code').map((r) => JSON.parse(r.body) as unknown)
    await save(`real-${name}.json`, scrub(JSON.stringify(hooks, null, 2), run) + '\n')
    await save(`real-${name}.ndjson`, scrub(run.stdout, run))
    const results = api.exchanges(script.name).map((e) => ({
      id: e.id,
      name: e.name,
      input: e.input,
      result: e.result ?? null,
      is_error: e.isError ?? null,
    }))
    await save(
      `real-${name}.tool-results.json`,
      scrub(JSON.stringify(results, null, 2), run) + '\n'
    )
    process.stdout.write(`${name}: ${hooks.length} hooks, ${run.stdout.split('\n').length} lines\n`)
    await run.cleanup()
    await recorder.close()
    await api.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await capture()
