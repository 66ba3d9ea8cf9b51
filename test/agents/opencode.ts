/**
 * Runs the real opencode (`opencode-ai` 1.18.33) and Kilo CLI (`@kilocode/cli` 7.7.7, an opencode
 * fork) offline: `opencode serve` / `kilo serve` on 127.0.0.1 with a fresh HOME (XDG dirs inside
 * it), an environment built from scratch (nothing inherited but PATH), the model pointed at the
 * scripted Chat Completions stand-in (chat-completions.ts) through the bundled
 * `@ai-sdk/openai-compatible` provider. A test opens the server's event streams, creates a session
 * and prompts it over the server's HTTP API, as opencode's own clients do.
 *
 * The server takes ~12 s to start on 2 cores: `start` waits for its `listening` line. Every
 * server is bounded: SIGTERM on stop (and at the timeout), SIGKILL 2 s later, the whole group.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createParser } from 'eventsource-parser'
import type { ChatCompletionsApi } from './chat-completions.js'
import type { Script } from './scripts.js'

const AGENTS_DIR = fileURLToPath(new URL('.', import.meta.url))
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export type OpencodeFlavor = 'opencode' | 'kilo'

/** The CLI's executable in test/agents/node_modules/.bin, or null when it is not installed. */
export function opencodeCli(flavor: OpencodeFlavor): string | null {
  const path = join(AGENTS_DIR, 'node_modules/.bin', flavor)
  return existsSync(path) ? path : null
}

const todo = (content: string, status: string, priority: string) => ({ content, status, priority })

const script = (name: string, goal: string, turns: Script['turns']): Script => ({
  name,
  prompt: `${goal} (script=${name})`,
  turns,
})

/**
 * opencode's `todowrite` ×5: a plan, progress with a status and priority outside the described
 * ones (`doing`, `urgent`: opencode stores them as sent), a write its schema refuses (no
 * `priority`: no event), a `write` of a file (with `permission.edit: "ask"` the run waits for a
 * person), and the last list with a cancelled item.
 */
export const OPENCODE_TODOS = script('opencode-todos', 'Add a /health endpoint with a test.', [
  {
    text: 'I will plan this first.',
    calls: [
      {
        name: 'todowrite',
        input: {
          todos: [
            todo('Write the /health handler', 'in_progress', 'high'),
            todo('Add a test for /health', 'pending', 'medium'),
            todo('Update the README', 'pending', 'low'),
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'todowrite',
        input: {
          todos: [
            todo('Write the /health handler', 'completed', 'high'),
            todo('Add a test for /health', 'doing', 'urgent'),
            todo('Update the README', 'pending', 'low'),
          ],
        },
      },
    ],
  },
  {
    // refused by opencode's schema (priority missing): no todo.updated, the list stays
    calls: [
      {
        name: 'todowrite',
        input: { todos: [{ content: 'Write the /health handler', status: 'completed' }] },
      },
    ],
  },
  {
    calls: [{ name: 'write', input: { filePath: 'health.txt', content: 'ok\n' } }],
  },
  {
    calls: [
      {
        name: 'todowrite',
        input: {
          todos: [
            todo('Write the /health handler', 'completed', 'high'),
            todo('Add a test for /health', 'completed', 'medium'),
            todo('Update the README', 'cancelled', 'low'),
          ],
        },
      },
    ],
  },
  { text: 'Done: /health is in, with its test.' },
])

/** The built-in `question` tool between two writes: the run waits for the answer. */
export const OPENCODE_QUESTION = script('opencode-question', 'Pick a port and plan it.', [
  {
    calls: [
      {
        name: 'todowrite',
        input: { todos: [todo('Choose the port', 'in_progress', 'high')] },
      },
    ],
  },
  {
    calls: [
      {
        name: 'question',
        input: {
          questions: [
            {
              question: 'Which port?',
              header: 'Port',
              options: [
                { label: '8080', description: 'the default' },
                { label: '9090', description: 'the other one' },
              ],
            },
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'todowrite',
        input: { todos: [todo('Choose the port', 'completed', 'high')] },
      },
    ],
  },
  { text: 'Port chosen.' },
])

export const OPENCODE_SCRIPTS: Record<string, Script> = {
  [OPENCODE_TODOS.name]: OPENCODE_TODOS,
  [OPENCODE_QUESTION.name]: OPENCODE_QUESTION,
}

export const MODEL = { providerID: 'fake', modelID: 'fake-model' } as const

/** A TCP port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  server.close()
  await once(server, 'close')
  return port
}

export interface ServeOptions {
  flavor: OpencodeFlavor
  api: ChatCompletionsApi
  /** `permission` of the config (`{edit: 'ask'}` makes a `write` wait for a person). */
  permission?: Record<string, string>
  /**
   * A plugin file to install as the documented way does: copied into the project's
   * `.opencode/plugin/` (Kilo: `.kilo/plugin/`), with these environment variables for it.
   */
  plugin?: { file: string; env: Record<string, string> }
  /** How long the server may take to say it listens (default 90 s). */
  startTimeoutMs?: number
  /** Keep HOME after stop (also KEEP_AGENT_HOME=1). */
  keep?: boolean
}

export interface Serve {
  flavor: OpencodeFlavor
  url: string
  /** The project directory (the server's cwd, the sessions' directory). */
  cwd: string
  home: string
  root: string
  child: ChildProcess
  output(): string
  /** The server's HTTP API, JSON in and out. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
  /** A new session in the project directory; its id. */
  createSession(): Promise<string>
  /** Prompts a session without waiting for the turn (`prompt_async`). */
  prompt(session: string, text: string): Promise<void>
  stop(): Promise<void>
}

/** The config file opencode (or Kilo) reads from `$XDG_CONFIG_HOME/<flavor>/`. */
function config(options: Pick<ServeOptions, 'api' | 'permission'>) {
  return {
    model: `${MODEL.providerID}/${MODEL.modelID}`,
    small_model: `${MODEL.providerID}/${MODEL.modelID}`,
    autoupdate: false,
    share: 'disabled',
    ...(options.permission ? { permission: options.permission } : {}),
    provider: {
      [MODEL.providerID]: {
        npm: '@ai-sdk/openai-compatible',
        options: { baseURL: `${options.api.url}/v1`, apiKey: 'sk-dummy-opencode' },
        models: {
          [MODEL.modelID]: { tool_call: true, limit: { context: 200000, output: 8192 } },
        },
      },
    },
  }
}

/** The environment of one server: nothing inherited but PATH. */
function environment(flavor: OpencodeFlavor, home: string, extra: Record<string, string>) {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    ...extra,
  }
  const prefix = flavor === 'kilo' ? 'KILO' : 'OPENCODE'
  for (const name of [
    'DISABLE_MODELS_FETCH',
    'DISABLE_AUTOUPDATE',
    'DISABLE_SHARE',
    'DISABLE_LSP_DOWNLOAD',
    'DISABLE_CLAUDE_CODE',
  ])
    env[`${prefix}_${name}`] = '1'
  if (flavor === 'kilo')
    Object.assign(env, {
      KILO_DISABLE_SESSION_INGEST: '1',
      KILO_DISABLE_PRESENCE: '1',
      KILO_DISABLE_CODEBASE_INDEXING: '1',
      KILO_TELEMETRY_DISABLED: '1',
    })
  return env
}

/** A fresh HOME (config inside) and project directory for one run, and its environment. */
export async function prepareHome(
  options: Pick<ServeOptions, 'flavor' | 'api' | 'permission' | 'plugin'>
): Promise<{ root: string; home: string; cwd: string; env: Record<string, string> }> {
  const { flavor } = options
  const root = await mkdtemp(join(tmpdir(), `agent-todos-${flavor}-`))
  const home = join(root, 'home')
  const cwd = join(root, 'project')
  const configDir = join(home, '.config', flavor)
  await mkdir(configDir, { recursive: true })
  await mkdir(cwd, { recursive: true })
  await writeFile(
    join(configDir, flavor === 'kilo' ? 'kilo.json' : 'opencode.json'),
    JSON.stringify(config(options), null, 2)
  )
  if (options.plugin) {
    const dir = join(cwd, flavor === 'kilo' ? '.kilo' : '.opencode', 'plugin')
    await mkdir(dir, { recursive: true })
    await copyFile(options.plugin.file, join(dir, options.plugin.file.split('/').pop()!))
  }
  return { root, home, cwd, env: environment(flavor, home, options.plugin?.env ?? {}) }
}

/**
 * Starts `opencode serve` (or `kilo serve`) in a fresh project directory and waits until it
 * listens.
 * @throws when the CLI is not installed or the server does not come up
 */
export async function startServe(options: ServeOptions): Promise<Serve> {
  const { flavor } = options
  const bin = opencodeCli(flavor)
  if (!bin) throw new Error(`${flavor} is not installed (node scripts/ensure-test-agents.mjs)`)
  const { root, home, cwd, env } = await prepareHome(options)
  const port = await freePort()
  const child = spawn(bin, ['serve', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      // already gone
    }
  }
  const url = `http://127.0.0.1:${port}`
  const listening = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), options.startTimeoutMs ?? 90_000)
    const check = () => {
      if (/listening on http/.test(output)) {
        clearTimeout(timer)
        resolve(true)
      }
    }
    child.stdout!.on('data', check)
    child.stderr!.on('data', check)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve(false)
    })
  })
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit')
      group('SIGTERM')
      const killer = setTimeout(() => group('SIGKILL'), 2000)
      await exited
      clearTimeout(killer)
    }
    group('SIGKILL')
    if (!(options.keep || process.env.KEEP_AGENT_HOME === '1'))
      await rm(root, { recursive: true, force: true })
  }
  if (!listening) {
    await stop()
    throw new Error(`${flavor} serve did not start:\n${output}`)
  }
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(new URL(path, url), {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed as any }
  }
  const directory = `directory=${encodeURIComponent(cwd)}`
  return {
    flavor,
    url,
    cwd,
    home,
    root,
    child,
    output: () => output,
    call,
    async createSession() {
      const res = await call('POST', `/session?${directory}`, {})
      if (res.status !== 200)
        throw new Error(`POST /session: ${res.status} ${JSON.stringify(res.body)}`)
      return res.body.id as string
    },
    async prompt(session, text) {
      const res = await call('POST', `/session/${session}/prompt_async?${directory}`, {
        model: MODEL,
        parts: [{ type: 'text', text }],
      })
      if (res.status >= 300)
        throw new Error(`prompt_async: ${res.status} ${JSON.stringify(res.body)}`)
    },
    stop,
  }
}

/** The events of a server's `GET /global/event` (or `/event`), as they arrive. */
export interface EventTap {
  /** Every `data:` value, parsed, in arrival order. */
  events: any[]
  /** Resolves once an event satisfies `match` (already seen ones count). */
  until(match: (event: any) => boolean, timeoutMs?: number): Promise<any>
  close(): void
}

/**
 * Subscribes to an SSE path of the server and keeps every event.
 * @param serve - the server
 * @param path - `/global/event`, or `/event?directory=…`
 */
export async function tapEvents(
  serve: Pick<Serve, 'url'>,
  path = '/global/event'
): Promise<EventTap> {
  const controller = new AbortController()
  const events: any[] = []
  const waiters: { match: (event: any) => boolean; resolve: (event: any) => void }[] = []
  const res = await fetch(new URL(path, serve.url), {
    headers: { accept: 'text/event-stream' },
    signal: controller.signal,
  })
  if (!res.ok || !res.body) throw new Error(`${path}: ${res.status}`)
  const parser = createParser({
    onEvent(message) {
      let value: any
      try {
        value = JSON.parse(message.data)
      } catch {
        return
      }
      events.push(value)
      for (const waiter of [...waiters])
        if (waiter.match(value)) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve(value)
        }
    },
  })
  void (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
        parser.feed(decoder.decode(chunk, { stream: true }))
    } catch {
      // closed
    }
  })()
  return {
    events,
    until(match, timeoutMs = 120_000) {
      const seen = events.find(match)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no such event within ${timeoutMs} ms`)),
          timeoutMs
        )
        waiters.push({
          match,
          resolve: (event) => {
            clearTimeout(timer)
            resolve(event)
          },
        })
      })
    },
    close: () => controller.abort(),
  }
}

/** The payload of a `/global/event` value (`{directory, payload}`), or the value itself. */
export const payloadOf = (event: any): any =>
  event && typeof event === 'object' && 'payload' in event ? event.payload : event
