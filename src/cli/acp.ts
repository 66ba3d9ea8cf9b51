/**
 * @module cli/acp
 * `agent-todos acp -- <agent command…>`: a stdio tap an editor runs in place of an ACP agent (Zed's
 * `agent_servers`, JetBrains' ACP settings). It spawns the agent and passes every byte through
 * both ways unchanged — the editor's stdin to the agent, the agent's stdout to the editor, its
 * stderr as it is — and, off that path, cuts both directions into their newline-delimited
 * JSON-RPC messages and posts them, in wire order and wrapped with their direction
 * (`{dir: "agent->client"|"client->agent", connection, seq, session?, request?, msg}`), to
 * `POST /v1/ingest/acp`. The service being slow
 * or down never holds the editor: the lines wait in a bounded queue, the oldest dropped (counted,
 * with a warning) past it. The exit code is the agent's (128 + n for signal n); SIGINT, SIGTERM and
 * SIGHUP sent to the tap are forwarded to the agent.
 *
 * The passthrough thread only moves bytes and hands a copy of each chunk to a worker thread (this
 * same module, `runTee`), which cuts the lines, parses, wraps and posts them: measured on 72 MB of
 * NDJSON through `cat`, the bytes took 0.35 s through the tap against 0.26 s without it, where
 * parsing in the same thread took 5.3 s. The queue and batching are observe's (`cli/batch-sender`),
 * the delivery the tap's own: its lines are wrapped and attributed to sessions here, and a line is
 * never worth retrying at the cost of the ones after it (a dropped batch is counted).
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { constants as osConstants } from 'node:os'
import type { Readable, Writable } from 'node:stream'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { optionsAndCommand } from './args.js'
import { BatchSender, DEFAULT_BATCHING, type BatchTuning } from './batch-sender.js'
import { LineSplitter } from './lines.js'
import { originHeaders } from './origin.js'
import { sleep } from './sleep.js'
import { passThrough } from './pass-through.js'

export interface AcpTapOptions {
  /** Service base URL, without a trailing slash. */
  url: string
  key?: string
  command: string[]
  /** The editor's side: what it writes to the agent, and where the agent's output goes. */
  stdin: Readable
  stdout: Writable
  stderr: Writable
  /** The agent's environment (the tap's, without the key). */
  env?: NodeJS.ProcessEnv
  /**
   * The `X-Agent-User` / `-Host` / `-Repo` / `-Branch` headers of every delivery (default: who runs
   * the tap, and the git remote and branch of its working directory, the agent's).
   */
  originHeaders?: Record<string, string>
  /** Forward these signals of the tap's process to the agent (the CLI; tests leave it off). */
  forwardSignals?: boolean
  tuning?: Partial<AcpTuning>
}

export interface AcpTuning extends BatchTuning {
  /** Attempts per batch before it is dropped (counted). */
  maxAttempts: number
  retryBaseMs: number
  /** Longest line sent, in bytes (the service's default body limit less its newline). */
  maxLineBytes: number
  /** How long to keep delivering once the agent exited. */
  flushTimeoutMs: number
}

const DEFAULT_TUNING: AcpTuning = {
  ...DEFAULT_BATCHING,
  // an agent streams its answer in many small updates: a batch every 100 ms at most
  lingerMs: 100,
  maxBatchLines: 200,
  maxQueueBytes: 16 * 1024 * 1024,
  maxAttempts: 5,
  retryBaseMs: 250,
  maxLineBytes: 1_048_576 - 1,
  flushTimeoutMs: 5000,
}

const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** Lines kept before the first session is known (the handshake takes a few). */
const MAX_HELD_LINES = 256

/** Variables of the tap's credentials, never handed to the agent. */
const CREDENTIAL_ENV = ['AGENT_TODOS_KEY'] as const

/** What the tap counted, for its last words and for tests. */
export interface AcpTapStats {
  exitCode: number
  /** Messages teed, posted and taken, dropped (queue full or refused), not JSON. */
  teed: number
  delivered: number
  dropped: number
  skipped: number
}

type Side = 'client' | 'agent'

/** A tap line's `dir`: the direction a message of this sender travelled. */
const DIR_OF: Readonly<Record<Side, string>> = {
  agent: 'agent->client',
  client: 'client->agent',
}

/**
 * Which session each message belongs to: its own `sessionId`, else the one of the request it
 * answers (a response names none), as the tap tracks requests by side and id.
 */
class SessionTracker {
  private readonly requests = new Map<string, { session?: string; method: string }>()
  readonly sessions = new Set<string>()

  /** The message's session, and for a response the method of the request it answers. */
  attribute(from: Side, message: Record<string, unknown>): { session?: string; request?: string } {
    const params = record(message.params)
    const result = record(message.result)
    const own = str(params?.sessionId) ?? str(result?.sessionId)
    const id = message.id
    const hasId = typeof id === 'string' || typeof id === 'number'
    let session = own
    let request: string | undefined
    if (typeof message.method === 'string') {
      if (hasId) this.requests.set(`${from}:${id}`, { session: own, method: message.method })
    } else if (hasId) {
      // a response travels the other way from its request
      const key = `${from === 'client' ? 'agent' : 'client'}:${id}`
      const asked = this.requests.get(key)
      session = own ?? asked?.session
      request = asked?.method
      this.requests.delete(key)
    }
    if (session) this.sessions.add(session)
    return { session, request }
  }
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined

/** Posts the wrapped lines to the acp route; a batch refused or out of attempts is dropped (counted). */
class TapSender extends BatchSender<AcpTuning> {
  delivered = 0
  dropped = 0

  constructor(
    private readonly options: { url: string; key?: string; origin: Record<string, string> },
    tuning: AcpTuning,
    warn: (message: string) => void
  ) {
    super(tuning, warn)
  }

  /** No more lines: deliver what is queued, giving up after the flush timeout. */
  async close(): Promise<void> {
    const left = await this.flush(this.tuning.flushTimeoutMs)
    if (left) this.drop(left, 'the service did not take every message')
  }

  protected override droppedOldest(): void {
    this.drop(1, 'the service is behind; dropping the oldest messages')
  }

  private drop(count: number, why: string) {
    this.dropped += count
    this.warnOnce(why, why)
  }

  /** One batch: taken, or dropped (counted) once refused or out of attempts; false past the deadline. */
  protected override async deliver(batch: string[]): Promise<boolean> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/x-ndjson',
      ...this.options.origin,
    }
    if (this.options.key) headers.Authorization = `Bearer ${this.options.key}`
    for (let attempt = 1; ; attempt++) {
      if (this.deadline.signal.aborted) return false
      let status = 0
      try {
        const res = await fetch(`${this.options.url}/v1/ingest/acp`, {
          method: 'POST',
          headers,
          body: batch.join('\n') + '\n',
          signal: AbortSignal.any([this.deadline.signal, AbortSignal.timeout(15_000)]),
        })
        status = res.status
        await res.arrayBuffer()
        if (res.ok) {
          this.delivered += batch.length
          return true
        }
      } catch {
        if (this.deadline.signal.aborted) return false
      }
      if (status === 401 || status === 404) {
        this.warnOnce(
          'fatal',
          `the service refused the messages (${status}); the agent runs on unobserved`
        )
        this.drop(batch.length + this.stop(), 'messages not delivered')
        return true
      }
      const retryable = status === 0 || status === 408 || status === 429 || status >= 500
      if (!retryable || attempt >= this.tuning.maxAttempts) {
        this.drop(
          batch.length,
          `the service did not take ${batch.length} message(s) (${status || 'unreachable'}); dropping them`
        )
        return true
      }
      this.warnOnce(
        'retrying',
        `cannot deliver to ${this.options.url} (${status || 'unreachable'}); retrying in the background`
      )
      await sleep(this.tuning.retryBaseMs * 2 ** (attempt - 1), this.deadline.signal)
    }
  }
}

/**
 * Pipes `from` into `to` as the bytes come (`passThrough`), and calls `onEnd` when it ends.
 */
function pipeThrough(
  from: Readable,
  to: Writable,
  tee: (chunk: Buffer) => void,
  onEnd: () => void
) {
  passThrough(from, to, tee)
  from.once('end', onEnd)
  from.once('error', onEnd)
}

/** The exit code a shell reports for a command killed by `signal`. */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + ((osConstants.signals as Record<string, number>)[signal] ?? 0)
}

/**
 * The agent's environment: the tap's, without its credentials.
 * @param env - the tap's environment
 */
export function agentEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env }
  for (const name of CREDENTIAL_ENV) delete copy[name]
  return copy
}

/** What the tee thread is started with (`workerData`). */
interface TeeConfig {
  url: string
  key?: string
  tuning: AcpTuning
  /** The origin headers given, else found by the tee thread in `cwd` (git runs off the path). */
  origin?: Record<string, string>
  cwd: string
}

/** Messages of the passthrough thread to the tee thread, in the order the bytes passed. */
type ToTee =
  | { from: Side; chunk: Uint8Array }
  | { exit: { code: number | null; signal: NodeJS.Signals | null } }

/** Messages of the tee thread back. */
type FromTee = { warn: string } | { done: Omit<AcpTapStats, 'exitCode'> }

/** Marks this module's tee thread (the module is its own worker entry, in both builds). */
const TEE_MARK = 'agent-todos-acp-tee'

/**
 * The tee thread: cuts both directions' bytes into lines, wraps the JSON-RPC ones and posts them.
 * It runs beside the passthrough, never in its way: the bytes are passed on before they get here.
 * @param config - the service and the tuning
 */
function runTee(config: TeeConfig): void {
  const port = parentPort!
  const warn = (text: string) => port.postMessage({ warn: text } satisfies FromTee)
  const origin = config.origin ?? originHeaders(config.cwd)
  const sender = new TapSender({ ...config, origin }, config.tuning, warn)
  const sessions = new SessionTracker()
  const connection = randomUUID()
  let seq = 0
  let teed = 0
  let skipped = 0
  let overlong = 0
  let heldDropped = 0
  /** Lines before any session is known: held so every delivery names one. */
  let held: string[] | null = []

  const onLine = (from: Side) => (line: string) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line
    if (!text.trim()) return
    let message: Record<string, unknown> | undefined
    try {
      message = record(JSON.parse(text))
    } catch {
      // not JSON: the agent's business, not ours
    }
    if (!message) {
      skipped++
      return
    }
    teed++
    const { session, request } = sessions.attribute(from, message)
    const wrapped = `{"dir":"${DIR_OF[from]}","connection":"${connection}","seq":${seq++}${session ? `,"session":${JSON.stringify(session)}` : ''}${request ? `,"request":${JSON.stringify(request)}` : ''},"msg":${text}}`
    if (held) {
      held.push(wrapped)
      if (!session) {
        // a connection that never opens a session has nothing to report: keep its last lines only
        if (held.length > MAX_HELD_LINES) {
          held.shift()
          heldDropped++
        }
        return
      }
      for (const line of held) sender.push(line)
      held = null
    } else sender.push(wrapped)
  }
  const splitters: Record<Side, LineSplitter> = {
    client: new LineSplitter(config.tuning.maxLineBytes, onLine('client'), () => overlong++),
    agent: new LineSplitter(config.tuning.maxLineBytes, onLine('agent'), () => overlong++),
  }

  port.on('message', (message: ToTee) => {
    if ('chunk' in message) {
      splitters[message.from].push(
        Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength)
      )
      return
    }
    splitters.client.end()
    splitters.agent.end()
    if (!held) {
      for (const session of sessions.sessions) {
        sender.push(
          JSON.stringify({ from: 'tap', connection, seq: seq++, session, exit: message.exit })
        )
      }
    }
    void sender.close().then(() => {
      if (skipped) warn(`${skipped} line(s) were not JSON and were not sent`)
      if (overlong) warn(`${overlong} line(s) were too long to send`)
      if (held?.length || heldDropped)
        warn(`${(held?.length ?? 0) + heldDropped} message(s) named no session and were not sent`)
      if (sender.dropped) warn(`${sender.dropped} message(s) did not reach the service`)
      const done = { teed, delivered: sender.delivered, dropped: sender.dropped, skipped }
      port.postMessage({ done } satisfies FromTee)
      port.close()
    })
  })
}

if (!isMainThread && (workerData as { mark?: string } | null)?.mark === TEE_MARK) {
  runTee((workerData as { config: TeeConfig }).config)
}

/**
 * This module as the tee thread's entry. Run from its TypeScript source (tsx, the tests), the
 * thread registers tsx first: a worker does not inherit the loader hooks of `--import tsx`.
 */
function teeWorker(data: { mark: string; config: TeeConfig }): Worker {
  const self = import.meta.url
  if (!self.endsWith('.ts')) return new Worker(new URL(self), { workerData: data })
  const tsx = import.meta.resolve('tsx/esm/api')
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(self)}) })`
  return new Worker(boot, { eval: true, workerData: data })
}

/**
 * Runs the agent behind the tap until it exits.
 * @param options - the service, the agent command, the editor's streams
 * @returns the agent's exit code (128 + n for signal n, 127 when it cannot be started) and counts
 */
export async function acpTap(options: AcpTapOptions): Promise<AcpTapStats> {
  const tuning = { ...DEFAULT_TUNING, ...options.tuning }
  const config: TeeConfig = {
    url: options.url,
    key: options.key,
    tuning,
    origin: options.originHeaders,
    cwd: process.cwd(),
  }
  // the tee's JSON work runs in its own thread: a long line parsed, a batch posted, a service
  // that hangs, none of it waits in front of the editor's bytes
  const tee = teeWorker({ mark: TEE_MARK, config })
  let teeBroken = false
  const finished = new Promise<Omit<AcpTapStats, 'exitCode'> | null>((resolve) => {
    tee.on('message', (message: FromTee) => {
      if ('warn' in message) options.stderr.write(`agent-todos acp: ${message.warn}\n`)
      else resolve(message.done)
    })
    tee.once('error', (error) => {
      teeBroken = true
      options.stderr.write(`agent-todos acp: not reporting to the service: ${error.message}\n`)
      resolve(null)
    })
    tee.once('exit', () => resolve(null))
  })
  const send = (from: Side) => (chunk: Buffer) => {
    if (!teeBroken) tee.postMessage({ from, chunk } satisfies ToTee)
  }

  const [program, ...args] = options.command
  const child = spawn(program, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: agentEnv(options.env ?? process.env),
  })
  let spawnError: NodeJS.ErrnoException | null = null
  // the agent going away first must not crash the tap on a write to its closed stdin
  child.stdin.on('error', () => {})
  pipeThrough(options.stdin, child.stdin, send('client'), () => child.stdin.end())
  pipeThrough(child.stdout, options.stdout, send('agent'), () => {})
  child.stderr.pipe(options.stderr, { end: false })

  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  if (options.forwardSignals) for (const signal of FORWARDED) process.on(signal, forward)

  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      spawnError = error
      resolve([null, null])
    })
    child.once('close', (c, s) => resolve([c, s]))
    // a process the agent left behind holding its stdout must not keep the tap open
    child.once('exit', (c, s) => setTimeout(() => resolve([c, s]), 2000).unref())
  })
  if (options.forwardSignals) for (const s of FORWARDED) process.off(s, forward)
  options.stdin.pause()

  let exitCode: number
  if (spawnError) {
    const error = spawnError as NodeJS.ErrnoException
    options.stderr.write(
      `agent-todos acp: cannot run '${program}': ${error.code ?? error.message}\n`
    )
    exitCode = error.code === 'ENOENT' ? 127 : 126
  } else exitCode = signal ? signalExitCode(signal) : (code ?? 1)

  if (!teeBroken) tee.postMessage({ exit: { code, signal } } satisfies ToTee)
  const stats = await finished
  await tee.terminate()
  return { exitCode, ...(stats ?? { teed: 0, delivered: 0, dropped: 0, skipped: 0 }) }
}

export const ACP_USAGE = `Usage: agent-todos acp [options] -- <agent command…>

A stdio tap an editor runs in place of an ACP agent (Zed's agent_servers, JetBrains): runs the
agent, passes every byte between the editor and the agent through unchanged, and reports the
JSON-RPC messages of both directions to the service (POST /v1/ingest/acp), which keeps the agent's
plan as the session acp:<sessionId>. The service being slow or down never holds the editor.

Options:
  --url <url>   service base URL (env AGENT_TODOS_URL, default http://127.0.0.1:8080)
  --key <key>   API key (env AGENT_TODOS_KEY, which the agent does not inherit)
  -h, --help    this help

Exit code: the agent's (128 + n when signal n ended it, 127 when it cannot be started), 2 for a
usage error.
`

/**
 * \`agent-todos acp [options] -- <agent command…>\`: options end at \`--\` or the first word
 * that is not one.
 * @param argv - the words after \`acp\`
 * @param io - the tap's streams and environment
 * @returns the exit code
 */
export async function runAcpCli(
  argv: string[],
  io: {
    stdout: NodeJS.WritableStream
    stderr: NodeJS.WritableStream
    env: Record<string, string | undefined>
  }
): Promise<number> {
  const parsed = optionsAndCommand(
    argv,
    {
      url: { type: 'string' },
      key: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    ACP_USAGE,
    io
  )
  if (typeof parsed === 'number') return parsed
  const { values, command } = parsed
  if (!command.length) {
    io.stderr.write(`agent-todos: acp needs the agent's command\n\n${ACP_USAGE}`)
    return 2
  }
  const url = values.url ?? io.env.AGENT_TODOS_URL ?? 'http://127.0.0.1:8080'
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http')
  } catch {
    io.stderr.write(`agent-todos: --url must be an http(s) URL, got '${url}'\n`)
    return 2
  }
  const stats = await acpTap({
    url: url.replace(/\/+$/, ''),
    key: values.key ?? (io.env.AGENT_TODOS_KEY || undefined),
    command,
    stdin: process.stdin,
    stdout: io.stdout as Writable,
    stderr: io.stderr as Writable,
    env: io.env,
    forwardSignals: true,
  })
  process.stdin.destroy()
  return stats.exitCode
}
