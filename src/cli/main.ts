/**
 * @module cli/main
 * The `agent-todos` command line: argument parsing and exit codes (0 ok, 1 failure, 2 usage).
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { watch, WatchError } from './watch.js'

export const USAGE = `Usage: agent-todos watch [session] [options]

Live progress of one session, or of every session of the key's tenant.

Options:
  --url <url>   service base URL (env AGENT_TODOS_URL, default http://127.0.0.1:8080)
  --key <key>   API key, sent as Authorization: Bearer (env AGENT_TODOS_KEY, kept out of ps)
  --once        print the current state once and exit
  --no-color    plain output (also NO_COLOR=1)
  -h, --help    this help
  --version     the version

Exit codes: 0 ok, 1 the service is unreachable, refused the key or has no such session, 2 usage.
`

const DEFAULT_URL = 'http://127.0.0.1:8080'

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
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        once: { type: 'boolean', default: false },
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
  const url = values.url ?? io.env.AGENT_TODOS_URL ?? DEFAULT_URL
  try {
    const parsedUrl = new URL(url)
    if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:')
      throw new Error('not http')
  } catch {
    io.stderr.write(`agent-todos: --url must be an http(s) URL, got '${url}'\n`)
    return 2
  }
  const out = io.stdout as NodeJS.WriteStream
  try {
    return await watch({
      url: url.replace(/\/+$/, ''),
      key: values.key ?? (io.env.AGENT_TODOS_KEY || undefined),
      session,
      once: values.once,
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
