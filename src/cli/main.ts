/**
 * @module cli/main
 * The `agent-todos` command line: argument parsing and exit codes (0 ok, 1 failure, 2 usage;
 * `observe` exits with its command's code).
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { runAcpCli } from './acp.js'
import { optionsAndCommand } from './args.js'
import { AGENTS, detectAgent, observe, type AgentKind } from './observe.js'
import { observeOpencode } from './observe-opencode.js'
import { watch, WatchError } from './watch.js'

export const USAGE = `Usage: agent-todos watch [session] [options]
       agent-todos observe [options] -- <command…>
       agent-todos acp [options] -- <agent command…>

watch: live progress of one session, or of every session of the key's tenant.
observe: run an agent CLI, pass its output through and report its todo list to the service
  (see agent-todos observe --help).
acp: a stdio tap an editor runs in place of an ACP agent (see agent-todos acp --help).

Options:
  --url <url>   service base URL (env AGENT_TODOS_URL, default http://127.0.0.1:8080)
  --key <key>   API key, sent as Authorization: Bearer (env AGENT_TODOS_KEY, kept out of ps)
  --once        print the current state once and exit
  --needs-you   only the sessions that need a person: waiting (the longest wait first), then
                stale, then runs that ended with work left; each with whose agent and where
  --no-color    plain output (also NO_COLOR=1)
  -h, --help    this help
  --version     the version

Exit codes: 0 ok, 1 the service is unreachable, refused the key or has no such session, 2 usage.
`

export const OBSERVE_USAGE = `Usage: agent-todos observe [options] -- <command…>
       agent-todos observe --opencode <server-url> [--agent kilo] [options]

Runs an agent CLI as it is, passes its stdout and stderr through unchanged, and streams every
JSON line of its stdout to the service, which keeps the agent's todo list as a session:
  codex exec --json …                                  → /v1/ingest/codex
  claude -p … --output-format stream-json --verbose    → /v1/ingest/claude-agent-sdk
  gemini -p … --output-format stream-json              → /v1/ingest/gemini-cli
  qwen -p … --output-format stream-json                → /v1/ingest/qwen-code
A stdout line longer than the service takes (1 MiB with its newline) is passed through, not
sent. When the command exits (a process it left behind holding its output does not count) and its
stream did not end the session, the session is ended with the command's exit status
(0 completed, a signal cancelled, else error).

With --opencode, no command: it follows a running \`opencode serve\` (or \`kilo serve\`, with
--agent kilo) at <server-url>/global/event and forwards its sessions' todo lists, status and waits
to /v1/ingest/opencode until stopped (Ctrl-C), connecting again when the server restarts.

Options:
  --url <url>            service base URL (env AGENT_TODOS_URL, default http://127.0.0.1:8080)
  --key <key>            API key, sent as Authorization: Bearer (env AGENT_TODOS_KEY, which
                         the command does not inherit)
  --pass-key             hand the key on to the command as AGENT_TODOS_KEY, for agent hooks that
                         post with it; the model's shell commands can then read it too
  --session-id <id>      name the session (e.g. a CI job id) instead of the agent's own id
  --agent <name>         claude, codex, gemini or qwen, when the command does not show which;
                         with --opencode: opencode (default) or kilo
  --opencode <url>       follow an opencode / Kilo server instead of running a command
  --flush-timeout <s>    how long to keep delivering after the command exited (default 10)
  -h, --help             this help

Exit code: the command's (128 + n when signal n ended it, 127 when it cannot be started),
2 for a usage error. The service being down never stops or slows the command.
`

const DEFAULT_URL = 'http://127.0.0.1:8080'
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:_-]{0,127}$/

/** The URL given, checked to be http(s); null (after a message) when it is not. */
function serviceUrl(url: string, io: CliIo): string | null {
  try {
    const parsedUrl = new URL(url)
    if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:')
      throw new Error('not http')
  } catch {
    io.stderr.write(`agent-todos: --url must be an http(s) URL, got '${url}'\n`)
    return null
  }
  return url.replace(/\/+$/, '')
}

/** Where `observe` sits in argv (after any leading --url/--key), or -1. */
function observeIndex(argv: string[]): number {
  let i = 0
  while (i < argv.length && argv[i].startsWith('-') && argv[i] !== '--')
    i += (argv[i] === '--url' || argv[i] === '--key') && !argv[i].includes('=') ? 2 : 1
  return argv[i] === 'observe' ? i : -1
}

/**
 * `agent-todos observe [options] -- <command…>`: the options end at `--` or at the first word
 * that is not an option, so `observe codex exec --json …` works too.
 */
async function runObserve(argv: string[], io: CliIo): Promise<number> {
  const parsed = optionsAndCommand(
    argv,
    {
      url: { type: 'string' },
      key: { type: 'string' },
      'session-id': { type: 'string' },
      agent: { type: 'string' },
      'flush-timeout': { type: 'string' },
      opencode: { type: 'string' },
      'pass-key': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    OBSERVE_USAGE,
    io
  )
  if (typeof parsed === 'number') return parsed
  const { values, command } = parsed
  if (values.opencode !== undefined) return runObserveOpencode(values, command, io)
  if (!command.length) {
    io.stderr.write(`agent-todos: observe needs a command\n\n${OBSERVE_USAGE}`)
    return 2
  }
  const url = serviceUrl(values.url ?? io.env.AGENT_TODOS_URL ?? DEFAULT_URL, io)
  if (!url) return 2
  const sessionId = values['session-id']
  if (sessionId !== undefined && !SESSION_ID.test(sessionId)) {
    io.stderr.write(
      `agent-todos: --session-id must match ${SESSION_ID.source}, got '${sessionId}'\n`
    )
    return 2
  }
  let agent: AgentKind | null
  if (values.agent !== undefined) {
    if (!(values.agent in AGENTS)) {
      io.stderr.write(`agent-todos: --agent must be claude, codex, gemini or qwen\n`)
      return 2
    }
    agent = values.agent as AgentKind
  } else agent = detectAgent(command)
  if (!agent) {
    io.stderr.write(
      `agent-todos: cannot tell which agent '${command[0]}' runs; pass --agent claude|codex|gemini|qwen\n`
    )
    return 2
  }
  let flushTimeoutMs: number | undefined
  if (values['flush-timeout'] !== undefined) {
    const seconds = Number(values['flush-timeout'])
    if (!Number.isFinite(seconds) || seconds < 0) {
      io.stderr.write(`agent-todos: --flush-timeout must be a number of seconds\n`)
      return 2
    }
    flushTimeoutMs = seconds * 1000
  }
  return observe({
    url,
    key: values.key ?? (io.env.AGENT_TODOS_KEY || undefined),
    passKey: values['pass-key'],
    sessionId,
    agent,
    command,
    out: io.stdout,
    err: io.stderr,
    flushTimeoutMs,
    signal: io.signal,
  })
}

/** `agent-todos observe --opencode <server-url>`: follows a server, runs no command. */
async function runObserveOpencode(
  values: {
    opencode?: string
    url?: string
    key?: string
    agent?: string
    'flush-timeout'?: string
  },
  command: string[],
  io: CliIo
): Promise<number> {
  if (command.length) {
    io.stderr.write(`agent-todos: observe --opencode runs no command\n\n${OBSERVE_USAGE}`)
    return 2
  }
  const server = serviceUrl(values.opencode!, io)
  const url = serviceUrl(values.url ?? io.env.AGENT_TODOS_URL ?? DEFAULT_URL, io)
  if (!server || !url) return 2
  const agent = values.agent ?? 'opencode'
  if (agent !== 'opencode' && agent !== 'kilo') {
    io.stderr.write(`agent-todos: with --opencode, --agent must be opencode or kilo\n`)
    return 2
  }
  const seconds = values['flush-timeout'] === undefined ? 10 : Number(values['flush-timeout'])
  if (!Number.isFinite(seconds) || seconds < 0) {
    io.stderr.write(`agent-todos: --flush-timeout must be a number of seconds\n`)
    return 2
  }
  return observeOpencode({
    url,
    key: values.key ?? (io.env.AGENT_TODOS_KEY || undefined),
    server,
    agent,
    err: io.stderr,
    signal: io.signal,
    flushTimeoutMs: seconds * 1000,
  })
}

export interface CliIo {
  stdout: NodeJS.WriteStream | NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  env: Record<string, string | undefined>
  /** Aborted on SIGINT / SIGTERM. */
  signal?: AbortSignal
}

function version(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
    ) as { version: string }
    return pkg.version
  } catch {
    return 'unknown'
  }
}

/**
 * Runs the CLI.
 * @param argv - the arguments after the program name
 * @param io - streams, environment, abort signal
 * @returns the exit code
 * @example
 * ```ts
 * const io = { stdout: process.stdout, stderr: process.stderr, env: process.env }
 * process.exitCode = await runCli(process.argv.slice(2), io)
 * ```
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'acp') return runAcpCli(argv.slice(1), io)
  const at = observeIndex(argv)
  if (at >= 0) return runObserve([...argv.slice(0, at), ...argv.slice(at + 1)], io)
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        once: { type: 'boolean', default: false },
        'needs-you': { type: 'boolean', default: false },
        'no-color': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', default: false },
      },
    })
  } catch (error) {
    io.stderr.write(`agent-todos: ${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help) {
    io.stdout.write(USAGE)
    return 0
  }
  if (values.version) {
    io.stdout.write(`${version()}\n`)
    return 0
  }
  const [command, session, ...extra] = positionals
  if (command !== 'watch' || extra.length) {
    io.stderr.write(
      `${command && command !== 'watch' ? `agent-todos: unknown command '${command}'\n\n` : ''}${USAGE}`
    )
    return 2
  }
  if (values['needs-you'] && session !== undefined) {
    io.stderr.write(
      `agent-todos: --needs-you lists the tenant's sessions; name no session\n\n${USAGE}`
    )
    return 2
  }
  const url = serviceUrl(values.url ?? io.env.AGENT_TODOS_URL ?? DEFAULT_URL, io)
  if (!url) return 2
  const out = io.stdout as NodeJS.WriteStream
  try {
    return await watch({
      url,
      key: values.key ?? (io.env.AGENT_TODOS_KEY || undefined),
      session,
      once: values.once,
      needsYou: values['needs-you'],
      out,
      color: !values['no-color'] && !io.env.NO_COLOR && out.isTTY === true,
      signal: io.signal,
    })
  } catch (error) {
    if (error instanceof WatchError) {
      io.stderr.write(`agent-todos: ${error.message}\n`)
      return error.exitCode
    }
    io.stderr.write(`agent-todos: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}
