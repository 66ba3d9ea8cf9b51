/**
 * Runs GitHub Copilot CLI (test/agents/node_modules/.bin/copilot, 1.0.102) offline in BYOK mode
 * against the chat-completions stand-in (chat-completions.ts): a fresh HOME, an
 * environment built from scratch (nothing inherited but PATH), its hooks in
 * `~/.copilot/hooks/agent-todos.json`: examples/observe/copilot/agent-todos.json pointed at the
 * service (`COPILOT_HOOK_ALLOW_LOCALHOST=1`), or, for captures, hooks of every event in one
 * casing posting to a recorder. HTTP hooks of `preToolUse` / `permissionRequest` must be https,
 * so those events are forwarded by a command hook (examples/observe/forward-hook.sh, or for
 * captures `forward-hook.mjs` written beside the hooks file). Every run is bounded:
 * SIGTERM at the timeout, SIGKILL 2 s later, the whole process group.
 */
import { existsSync } from 'node:fs'
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { EXAMPLE_SERVICE_URL, ROOT } from './agents.js'
import type { ChatCompletionsApi } from './chat-completions.js'
import { runInGroup } from './process-group.js'
import type { Script } from './scripts.js'

const HERE = fileURLToPath(new URL('.', import.meta.url))

/** The CLI's executable, or null when it is not installed. */
export function copilotPath(): string | null {
  const path = join(HERE, 'node_modules/.bin/copilot')
  return existsSync(path) ? path : null
}

const sql = (description: string, query: string) => ({
  name: 'sql',
  input: { description, query },
})

/**
 * The todo script: Copilot's todo writes are `sql` statements on its built-in `todos` and
 * `todo_deps` tables (real-agents.md, Turn 3). It inserts three rows and a dependency, moves
 * them through in_progress and done, sends a statement SQLite refuses (no such column), writes a
 * table of its own (ignored by the service), and reads the list back (the ground truth).
 */
export const COPILOT_TODOS: Script = {
  name: 'copilot-todos',
  prompt: 'Add a /health endpoint with a test. (script=copilot-todos)',
  turns: [
    {
      text: 'Planning the work.',
      calls: [
        sql(
          'Create the todo list',
          "INSERT INTO todos (id, title, description, status) VALUES ('read-server', 'Read the server code', 'Find where routes are registered', 'pending'), ('add-health', 'Add the /health route', 'Return {status: ok}', 'pending'), ('test-health', 'Test /health', NULL, 'pending');"
        ),
      ],
    },
    {
      calls: [
        sql(
          'Dependencies',
          "INSERT INTO todo_deps (todo_id, depends_on) VALUES ('add-health', 'read-server'), ('test-health', 'add-health');"
        ),
      ],
    },
    {
      calls: [
        sql('Start the first', "UPDATE todos SET status = 'in_progress' WHERE id = 'read-server';"),
      ],
    },
    {
      calls: [
        sql('A refused statement', "UPDATE todos SET priority = 'high' WHERE id = 'add-health';"),
      ],
    },
    {
      calls: [
        sql(
          'Notes of my own',
          "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('routes live in server.ts');"
        ),
      ],
    },
    {
      calls: [
        sql(
          'Progress',
          "UPDATE todos SET status = 'done' WHERE id = 'read-server'; UPDATE todos SET status = 'in_progress' WHERE id = 'add-health';"
        ),
      ],
    },
    {
      calls: [
        sql(
          'Blocked and dropped',
          "UPDATE todos SET status = 'blocked' WHERE id = 'test-health'; INSERT INTO todos (id, title, status) VALUES ('docs', 'Document /health', 'pending'); DELETE FROM todos WHERE id = 'docs';"
        ),
      ],
    },
    {
      calls: [
        sql(
          'Read back',
          'SELECT id, title, description, status FROM todos ORDER BY rowid; SELECT todo_id, depends_on FROM todo_deps ORDER BY rowid;'
        ),
      ],
    },
    {
      calls: [
        sql(
          'Schema',
          "SELECT name, sql FROM sqlite_master WHERE name IN ('todos', 'todo_deps') ORDER BY name;"
        ),
      ],
    },
    { text: 'The /health endpoint is planned; the test is blocked for now.' },
  ],
}

/**
 * A permission prompt: run with only `--allow-tool sql`, the `create` call asks (permissionRequest
 * and Notification(permission_prompt) hooks), and `-p` refuses it at once.
 */
export const COPILOT_PERMISSION: Script = {
  name: 'copilot-permission',
  prompt: 'Write the health check file. (script=copilot-permission)',
  turns: [
    {
      calls: [
        sql(
          'Plan',
          "INSERT INTO todos (id, title, status) VALUES ('write-file', 'Write health.txt', 'in_progress');"
        ),
      ],
    },
    { calls: [{ name: 'create', input: { path: 'health.txt', file_text: 'ok\n' } }] },
    { text: 'I could not write the file.' },
  ],
}

/**
 * What Copilot's own database refuses: a dependency on no todo (its foreign keys are on), and a
 * query that fails at its second statement after the first ran (Copilot keeps the first).
 */
export const COPILOT_FAILURES: Script = {
  name: 'copilot-failures',
  prompt: 'Plan the release. (script=copilot-failures)',
  turns: [
    {
      calls: [
        sql(
          'A dependency on nothing',
          "INSERT INTO todo_deps (todo_id, depends_on) VALUES ('nope', 'nada');"
        ),
      ],
    },
    {
      calls: [
        sql(
          'Half a query',
          "INSERT INTO todos (id, title) VALUES ('tag', 'Tag the release'); INSERT INTO todos (id) VALUES ('notes');"
        ),
      ],
    },
    { calls: [sql('Read back', 'SELECT id, title, status FROM todos ORDER BY rowid;')] },
    { text: 'Tagging is planned.' },
  ],
}

export const COPILOT_SCRIPTS: Record<string, Script> = {
  [COPILOT_FAILURES.name]: COPILOT_FAILURES,
  [COPILOT_TODOS.name]: COPILOT_TODOS,
  [COPILOT_PERMISSION.name]: COPILOT_PERMISSION,
}

/** The events whose hooks the runs install, camelCase and PascalCase. */
const HTTP_EVENTS = {
  camel: [
    'sessionStart',
    'userPromptSubmitted',
    'postToolUse',
    'agentStop',
    'sessionEnd',
    'errorOccurred',
  ],
  pascal: ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop', 'SessionEnd', 'Notification'],
}
/** Events an HTTP hook may not take on localhost (https only): forwarded by a command hook. */
const COMMAND_EVENTS = { camel: ['permissionRequest'], pascal: ['PermissionRequest'] }

/** A command hook's forwarder: its stdin posted as is to the URL in argv[2]. */
const FORWARDER = `import { request } from 'node:http'
const chunks = []
for await (const c of process.stdin) chunks.push(c)
const req = request(process.argv[2], { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => { res.resume(); res.on('end', () => process.exit(0)) })
req.on('error', () => process.exit(0))
req.end(Buffer.concat(chunks))
`

/**
 * The hooks file a run installs (docs/observe.md shows the camelCase one).
 * @param url - where hooks post (`…/v1/ingest/copilot`)
 * @param casing - which event names: camelCase or PascalCase
 * @param forwarder - the command hook's script path
 */
export function copilotHooks(
  url: string,
  casing: 'camel' | 'pascal',
  forwarder: string
): Record<string, unknown> {
  const hooks: Record<string, unknown[]> = {}
  for (const event of HTTP_EVENTS[casing]) {
    hooks[event] = [{ type: 'http', url, timeoutSec: 10 }]
  }
  for (const event of COMMAND_EVENTS[casing]) {
    hooks[event] = [{ type: 'command', bash: `node ${forwarder} ${url}`, timeoutSec: 10 }]
  }
  return { version: 1, hooks }
}

export interface CopilotRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  home: string
  cwd: string
  cleanup(): Promise<void>
}

export interface CopilotRunOptions {
  script: Script
  api: ChatCompletionsApi
  /**
   * The service: installs examples/observe/copilot/agent-todos.json pointed at it (and
   * forward-hook.sh in ~/.agent-todos for the command hook), `AGENT_TODOS_KEY` set to `key`.
   */
  service?: { url: string; key?: string }
  /** Captures: hooks of every event in one casing posting to this URL instead. */
  hookUrl?: string
  casing?: 'camel' | 'pascal'
  /** Extra CLI arguments (default `--allow-all-tools`). */
  allow?: string[]
  timeoutMs?: number
  keep?: boolean
}

/**
 * Runs `copilot -p <prompt> --output-format json` once, to its end.
 * @param options - the script, the stand-in, the hooks
 */
export async function runCopilot(options: CopilotRunOptions): Promise<CopilotRun> {
  const command = copilotPath()
  if (!command) throw new Error('copilot is not installed in test/agents/node_modules')
  const root = await mkdtemp(join(tmpdir(), 'copilot-run-'))
  const home = join(root, 'home')
  const cwd = join(root, 'project')
  await mkdir(join(home, '.copilot/hooks'), { recursive: true })
  await mkdir(cwd, { recursive: true })
  if (options.service) {
    const example = await readFile(join(ROOT, 'examples/observe/copilot/agent-todos.json'), 'utf8')
    await writeFile(
      join(home, '.copilot/hooks/agent-todos.json'),
      example.split(EXAMPLE_SERVICE_URL).join(options.service.url)
    )
    await mkdir(join(home, '.agent-todos'), { recursive: true })
    await copyFile(
      join(ROOT, 'examples/observe/forward-hook.sh'),
      join(home, '.agent-todos/forward-hook.sh')
    )
    await chmod(join(home, '.agent-todos/forward-hook.sh'), 0o755)
  } else if (options.hookUrl) {
    const forwarder = join(home, '.copilot/hooks/forward-hook.mjs')
    await writeFile(forwarder, FORWARDER)
    await writeFile(
      join(home, '.copilot/hooks/agent-todos.json'),
      JSON.stringify(copilotHooks(options.hookUrl, options.casing ?? 'camel', forwarder), null, 2)
    )
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    COPILOT_PROVIDER_BASE_URL: `${options.api.url}/v1`,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_API_KEY: 'sk-dummy-copilot',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_OFFLINE: '1',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_HOOK_ALLOW_LOCALHOST: '1',
    ...(options.service
      ? {
          AGENT_TODOS_URL: options.service.url,
          ...(options.service.key ? { AGENT_TODOS_KEY: options.service.key } : {}),
        }
      : {}),
    // the binary unpacks its JS on first start: one cache for every run
    COPILOT_PKG_CACHE_HOME:
      process.env.COPILOT_PKG_CACHE_HOME ?? join(tmpdir(), 'copilot-pkg-cache'),
  }
  const argv = [
    '-p',
    options.script.prompt,
    ...(options.allow ?? ['--allow-all-tools']),
    '--output-format',
    'json',
    '--disable-client-telemetry',
    '--no-auto-update',
  ]
  const run = await runInGroup(command, argv, { cwd, env, timeoutMs: options.timeoutMs ?? 90_000 })
  const keep = options.keep || process.env.KEEP_AGENT_HOME === '1'
  return {
    ...run,
    home,
    cwd,
    cleanup: async () => {
      if (!keep) await rm(root, { recursive: true, force: true })
    },
  }
}
