/**
 * @module cli/observe
 * `agent-todos observe -- <command…>`: runs an agent CLI as it is (`codex exec --json …`,
 * `claude -p … --output-format stream-json --verbose`, `gemini … --output-format stream-json`,
 * `qwen -p … --output-format stream-json`),
 * passes its output through unchanged and streams every JSON line of its stdout to the service's
 * ingest route for that agent, in order, in batches, retrying with backoff on its own schedule so the
 * agent's output never waits for the service. When the run is over and the stream did not end the
 * session itself, the session is ended with the command's exit status. The exit code is the
 * command's.
 */
import { spawn } from 'node:child_process'
import { constants as osConstants } from 'node:os'
import type { Readable } from 'node:stream'
import { OBSERVE_AGENTS } from '../client/agents.js'
import { createAgentTodosClient } from '../client/index.js'
import { BatchSender, DEFAULT_BATCHING, type BatchTuning } from './batch-sender.js'
import { LineSplitter } from './lines.js'
import { originHeaders } from './origin.js'
import { sleep } from './sleep.js'
import { passThrough } from './pass-through.js'

/**
 * The agents `observe` knows, and the ingest route each one's stream goes to: generated from their
 * descriptors (`observe` in src/agents, client/agents).
 */
export const AGENTS = OBSERVE_AGENTS

export type AgentKind = keyof typeof AGENTS

export interface ObserveOptions {
  /** Service base URL, without a trailing slash. */
  url: string
  key?: string
  /** Names the session (`?session_id=`) instead of the id the stream carries. */
  sessionId?: string
  /**
   * Hand the key to the command as `AGENT_TODOS_KEY` (`--pass-key`): for agent hooks that post
   * with it while observe runs the agent. Its shell commands, which the model writes, see it too.
   */
  passKey?: boolean
  agent: AgentKind
  command: string[]
  out: NodeJS.WritableStream
  err: NodeJS.WritableStream
  /** How long to keep delivering once the command exited (default 10 s). */
  flushTimeoutMs?: number
  /** Aborted on Ctrl-C / SIGTERM: the command gets SIGTERM after a grace period. */
  signal?: AbortSignal
  /** Overrides for tests: batching and retry timings. */
  tuning?: Partial<Tuning>
  /**
   * The `X-Agent-User` / `-Host` / `-Repo` / `-Branch` headers every delivery sends (who and where
   * the agent runs); default: this user, this host and the git remote and branch of the current
   * directory, where the command runs (`cli/origin`).
   */
  originHeaders?: Record<string, string>
}

export interface Tuning extends BatchTuning {
  retryBaseMs: number
  retryMaxMs: number
  /** After an abort, how long the command has to exit on its own before SIGTERM. */
  signalGraceMs: number
  /** Longest Retry-After honoured; a longer one waits this long. */
  retryAfterMaxMs: number
  /** Longest stdout line forwarded, without its newline; a longer one is passed through only. */
  maxLineBytes: number
  /**
   * Once the command exited, its pipes are read until they close, or until nothing came for
   * `exitDrainIdleMs`, or for `exitDrainMaxMs` at most: a process it left behind may hold them.
   */
  exitDrainIdleMs: number
  exitDrainMaxMs: number
}

/** The service's default `BODY_LIMIT_BYTES`: one line and its newline must fit in a body. */
const DEFAULT_BODY_LIMIT_BYTES = 1_048_576

/** Variables of `observe`'s credentials, never handed to the command (nor the model's shell). */
const CREDENTIAL_ENV = ['AGENT_TODOS_KEY'] as const

const DEFAULT_TUNING: Tuning = {
  ...DEFAULT_BATCHING,
  retryBaseMs: 250,
  retryMaxMs: 8000,
  signalGraceMs: 2000,
  retryAfterMaxMs: 60_000,
  maxLineBytes: DEFAULT_BODY_LIMIT_BYTES - 1,
  exitDrainIdleMs: 100,
  exitDrainMaxMs: 2000,
}

/** The agent each program (or npm package) runs. */
const NAMES: Record<string, AgentKind> = Object.fromEntries(
  Object.entries(AGENTS).flatMap(([kind, agent]) =>
    agent.programs.map((program) => [program, kind as AgentKind])
  )
)

/**
 * Which agent a command runs, from its program or a launcher's argument
 * (`npx @openai/codex …`, `node …/gemini.js …`); null when none is recognised.
 * @param command - the command and its arguments
 */
export function detectAgent(command: string[]): AgentKind | null {
  for (const word of command) {
    if (/\s/.test(word)) continue
    const bare = word.replace(/@[^@/]*$/, '') // npx's pkg@version
    const scoped = /^@[^/]+\/[^/]+$/.test(bare) ? bare : null
    const base = (scoped ?? bare.split(/[\\/]/).pop() ?? '').replace(/\.(c?js|mjs|exe|cmd)$/i, '')
    const agent = NAMES[scoped ?? base]
    if (agent) return agent
  }
  return null
}

/**
 * What the command lacks for its output to be a stream `observe` can forward, or null.
 * @param agent - the detected agent
 * @param command - the command and its arguments
 */
export function streamFlagProblem(agent: AgentKind, command: string[]): string | null {
  const has = (flag: string) => command.includes(flag)
  const format = (): string | undefined => {
    for (let i = 0; i < command.length; i++) {
      const word = command[i]
      if (word === '--output-format' || word === '-o') return command[i + 1]
      if (word.startsWith('--output-format=')) return word.slice('--output-format='.length)
    }
    return undefined
  }
  if (agent === 'claude') {
    if (!(has('-p') || has('--print')) || format() !== 'stream-json' || !has('--verbose'))
      return 'claude needs -p --output-format stream-json --verbose'
  } else if (agent === 'codex') {
    if (!has('exec') || !(has('--json') || has('--experimental-json')))
      return 'codex needs exec --json'
  } else if (format() !== 'stream-json') return `${agent} needs --output-format stream-json`
  return null
}

/** The session id a stream line names, as docs/observe.md maps it (`claude:<session_id>` …). */
function sessionOfLine(agent: AgentKind, value: Record<string, unknown>): string | null {
  if (agent === 'codex')
    return value.type === 'thread.started' && typeof value.thread_id === 'string'
      ? `codex:${value.thread_id}`
      : null
  if (agent === 'gemini')
    return value.type === 'init' && typeof value.session_id === 'string'
      ? `gemini:${value.session_id}`
      : null
  if (agent === 'qwen') {
    // every line names it, but the SDK protocol's first (the initialize reply) only inside
    const reply = value.response as { response?: { session_id?: unknown } } | undefined
    const id = value.session_id ?? reply?.response?.session_id
    return typeof id === 'string' && id ? `qwen:${id}` : null
  }
  return typeof value.session_id === 'string' && value.session_id
    ? `claude:${value.session_id}`
    : null
}

interface Delivery {
  delivered: number
  failed: number
  dropped: number
  /** Lines still queued when delivery stopped (service down past the flush timeout). */
  undelivered: number
  /** Whether the service took every line that was not refused as malformed. */
  complete: boolean
  /** The session id the service answered with last, if any. */
  sessionId: string | null
}

/**
 * Posts NDJSON lines to one ingest route in order: one batch in flight at a time, each retried
 * with exponential backoff (honouring Retry-After) until it is taken or refused for good.
 */
class IngestSender extends BatchSender<Tuning> {
  private readonly result: Delivery = {
    delivered: 0,
    failed: 0,
    dropped: 0,
    undelivered: 0,
    complete: true,
    sessionId: null,
  }
  /** The session later batches name (a Codex or Gemini stream names it on its first line only). */
  sessionParam: string | null
  /** Who and where the agent runs, sent with every batch. */
  private readonly origin: Record<string, string>

  constructor(
    private readonly options: ObserveOptions,
    tuning: Tuning
  ) {
    super(tuning, (message) => options.err.write(`agent-todos observe: ${message}\n`))
    this.sessionParam = options.sessionId ?? null
    this.origin = options.originHeaders ?? originHeaders(process.cwd())
  }

  /** No more lines: deliver what is queued, giving up after `timeoutMs`. */
  async close(timeoutMs: number): Promise<Delivery> {
    this.result.undelivered = await this.flush(timeoutMs)
    if (this.result.undelivered) this.result.complete = false
    return this.result
  }

  protected override droppedOldest(): void {
    this.result.dropped++
    this.result.complete = false
    this.warnOnce('dropped', 'the service is behind; dropping the oldest lines')
  }

  /** One batch to its end: taken, refused (dropped with a warning), or the deadline passed. */
  protected override async deliver(batch: string[]): Promise<boolean> {
    const { url, key, agent } = this.options
    for (let attempt = 0; ; attempt++) {
      if (this.deadline.signal.aborted) return false
      const target = new URL(AGENTS[agent].route, url)
      if (this.sessionParam) target.searchParams.set('session_id', this.sessionParam)
      const headers: Record<string, string> = {
        ...this.origin,
        'Content-Type': 'application/x-ndjson',
      }
      if (key) headers.Authorization = `Bearer ${key}`
      let status = 0
      let retryAfterMs: number | null = null
      let detail: string
      try {
        const res = await fetch(target, {
          method: 'POST',
          headers,
          body: batch.join('\n') + '\n',
          signal: AbortSignal.any([this.deadline.signal, AbortSignal.timeout(15_000)]),
        })
        status = res.status
        const text = await res.text()
        if (res.ok) {
          try {
            const reply = JSON.parse(text) as { session_id?: unknown }
            if (typeof reply.session_id === 'string') this.result.sessionId = reply.session_id
          } catch {
            // a 2xx without JSON is still taken
          }
          this.result.delivered += batch.length
          return true
        }
        retryAfterMs = parseRetryAfter(res.headers.get('retry-after'))
        try {
          detail = (JSON.parse(text) as { detail?: string }).detail ?? ''
        } catch {
          detail = text.slice(0, 200)
        }
      } catch (error) {
        if (this.deadline.signal.aborted) return false
        const cause = (
          error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }
        ).cause
        detail = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? String(error)
      }
      if ((status === 400 || status === 413 || status === 422) && batch.length > 1) {
        // too big together, or one line the service cannot read: send the halves one after the
        // other, so only that line is lost (ingest is idempotent, a resent line applies once)
        const half = Math.ceil(batch.length / 2)
        return (await this.deliver(batch.slice(0, half))) && this.deliver(batch.slice(half))
      }
      // only what no later attempt can change stops forwarding: a key the service does not know,
      // or a service without this route; a 403 (quota, read-only key), 409 or 413 loses its batch
      if (status === 401 || status === 404) {
        this.warnOnce(
          'fatal',
          `the service refused the stream (${status}${detail ? `: ${detail}` : ''}); the command runs on unobserved`
        )
        this.stop()
        this.result.failed += batch.length
        this.result.complete = false
        return true
      }
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
        this.warnOnce(
          `refused-${status}`,
          `the service refused ${batch.length} line(s) (${status}${detail ? `: ${detail}` : ''})`
        )
        this.result.failed += batch.length
        return true
      }
      this.warnOnce(
        'retrying',
        `cannot deliver to ${url} (${status || detail}); retrying in the background`
      )
      const backoff = Math.min(this.tuning.retryMaxMs, this.tuning.retryBaseMs * 2 ** attempt)
      const wait =
        retryAfterMs === null
          ? backoff / 2 + Math.random() * (backoff / 2)
          : Math.min(retryAfterMs, this.tuning.retryAfterMaxMs)
      await sleep(wait, this.deadline.signal)
    }
  }
}

/** A Retry-After header (seconds or an HTTP date) in ms, or null when absent or unreadable. */
function parseRetryAfter(header: string | null): number | null {
  if (header === null || !header.trim()) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null
  const at = Date.parse(header)
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null
}

/**
 * The environment the command runs in: observe's own, without its credentials, unless the key is
 * to be handed on (`--pass-key`).
 * @param passKey - the key to hand on as `AGENT_TODOS_KEY`, or undefined
 */
function commandEnv(passKey: string | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of CREDENTIAL_ENV) delete env[name]
  if (passKey) env.AGENT_TODOS_KEY = passKey
  return env
}

/**
 * Resolves once the pipes closed, or once nothing came through them for `idleMs` (unless one waits
 * for our reader), or after `maxMs`: what the command wrote before it exited is read, while a
 * process it left behind holding them cannot keep observe open.
 */
function drained(pipes: Readable[], idleMs: number, maxMs: number): Promise<void> {
  const open = pipes.filter((pipe) => !pipe.closed)
  if (!open.length) return Promise.resolve()
  return new Promise((resolve) => {
    let came = false
    let idle: NodeJS.Timeout | undefined
    const onData = () => (came = true)
    const onClose = () => {
      if (open.every((pipe) => pipe.closed)) finish()
    }
    const cap = setTimeout(finish, maxMs)
    // the check runs after the loop's next poll for I/O, so bytes already waiting count as come
    const arm = () => {
      came = false
      idle = setTimeout(() => setImmediate(check), idleMs)
    }
    const check = () =>
      came || open.some((pipe) => pipe.isPaused() && !pipe.closed) ? arm() : finish()
    function finish() {
      clearTimeout(idle)
      clearTimeout(cap)
      for (const pipe of open) pipe.off('data', onData).off('close', onClose)
      resolve()
    }
    for (const pipe of open) pipe.on('data', onData).on('close', onClose)
    arm()
  })
}

/** The exit code a shell reports for a command killed by `signal`. */
function signalExitCode(signal: NodeJS.Signals): number {
  const number = (osConstants.signals as Record<string, number>)[signal]
  return 128 + (number ?? 0)
}

/**
 * Runs the command under observation.
 * @returns the command's exit code (128 + signal number when a signal ended it, 127 when it
 *   could not be started)
 */
export async function observe(options: ObserveOptions): Promise<number> {
  const tuning = { ...DEFAULT_TUNING, ...options.tuning }
  const { agent, command, out, err } = options
  const problem = streamFlagProblem(agent, command)
  if (problem) err.write(`agent-todos observe: ${problem}; its output may not be observable\n`)

  const sender = new IngestSender(options, tuning)
  let derived: string | null = options.sessionId ?? null
  let skipped = 0
  const onLine = (line: string) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line
    if (!text.trim()) return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      skipped++
      return
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      skipped++
      return
    }
    if (!derived) {
      derived = sessionOfLine(agent, value as Record<string, unknown>)
      // Codex and Gemini name the session on their first line only: later batches say it
      if (derived && agent !== 'claude') sender.sessionParam = derived
    }
    sender.push(text)
  }

  let overlong = 0
  const lines = new LineSplitter(tuning.maxLineBytes, onLine, (bytes) => {
    if (!overlong++)
      err.write(
        `agent-todos observe: a stdout line of ${bytes} bytes is longer than the service takes (${tuning.maxLineBytes + 1} with its newline); not sending such lines\n`
      )
  })

  const [program, ...args] = command
  const child = spawn(program, args, {
    stdio: ['inherit', 'pipe', 'pipe'],
    env: commandEnv(options.passKey ? options.key : undefined),
  })
  let spawnError: NodeJS.ErrnoException | null = null
  passThrough(child.stdout, out, (chunk) => lines.push(chunk))
  passThrough(child.stderr, err)

  let aborted = false
  let graceTimer: NodeJS.Timeout | undefined
  const onAbort = () => {
    aborted = true
    // Ctrl-C reached the command too (same process group): let it stop on its own first
    graceTimer = setTimeout(() => {
      child.kill('SIGTERM')
      graceTimer = setTimeout(() => child.kill('SIGKILL'), 5000)
      graceTimer.unref()
    }, tuning.signalGraceMs)
    graceTimer.unref()
  }
  options.signal?.addEventListener('abort', onAbort, { once: true })

  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      spawnError = error
      resolve([null, null])
    })
    child.once('exit', (c, s) => resolve([c, s]))
  })
  clearTimeout(graceTimer)
  options.signal?.removeEventListener('abort', onAbort)
  await drained([child.stdout, child.stderr], tuning.exitDrainIdleMs, tuning.exitDrainMaxMs)
  child.stdout.destroy()
  child.stderr.destroy()
  lines.end()

  const delivery = await sender.close(options.flushTimeoutMs ?? 10_000)
  if (skipped)
    err.write(`agent-todos observe: ${skipped} stdout line(s) were not JSON and were not sent\n`)
  if (overlong)
    err.write(`agent-todos observe: ${overlong} stdout line(s) were too long and were not sent\n`)
  if (delivery.undelivered)
    err.write(
      `agent-todos observe: ${delivery.undelivered} line(s) could not be delivered before the flush timeout\n`
    )

  let exitCode: number
  let outcome: 'completed' | 'error' | 'cancelled'
  let detail: string
  if (spawnError) {
    const e = spawnError as NodeJS.ErrnoException
    exitCode = e.code === 'ENOENT' ? 127 : 126
    err.write(`agent-todos observe: cannot run '${program}': ${e.code ?? e.message}\n`)
    outcome = 'error'
    detail = `could not start: ${e.code ?? e.message}`
  } else if (signal) {
    exitCode = signalExitCode(signal)
    outcome = 'cancelled'
    detail = `signal ${signal}`
  } else {
    exitCode = code ?? 1
    outcome = exitCode === 0 ? 'completed' : aborted ? 'cancelled' : 'error'
    detail = `exit code ${exitCode}`
  }

  const sessionId = options.sessionId ?? derived ?? delivery.sessionId
  if (sessionId && delivery.complete) await endIfOpen(options, sessionId, outcome, detail)
  else if (sessionId && !spawnError)
    err.write(
      `agent-todos observe: not every line reached the service; leaving session ${sessionId} as it is\n`
    )
  return exitCode
}

/** Ends the session with the command's outcome unless its own stream already ended it. */
async function endIfOpen(
  options: ObserveOptions,
  sessionId: string,
  outcome: 'completed' | 'error' | 'cancelled',
  detail: string
): Promise<void> {
  const client = createAgentTodosClient({ baseUrl: options.url, apiKey: options.key })
  const params = { params: { path: { session_id: sessionId } } }
  const signal = AbortSignal.timeout(10_000)
  try {
    const view = await client.GET('/v1/sessions/{session_id}', { ...params, signal })
    if (view.data?.ended) return
    if (view.data?.source === 'rounds') {
      // --session-id named an agent loop's session: the service refused this agent's lines
      options.err.write(
        `agent-todos observe: session ${sessionId} is fed by rounds, not by this agent; not ending it\n`
      )
      return
    }
    if (view.response.status !== 200 && view.response.status !== 404) {
      options.err.write(
        `agent-todos observe: cannot read session ${sessionId} (${view.response.status}); not ending it\n`
      )
      return
    }
    const ended = await client.POST('/v1/sessions/{session_id}/end', {
      ...params,
      body: { outcome, detail },
      signal,
    })
    if (!ended.response.ok)
      options.err.write(
        `agent-todos observe: cannot end session ${sessionId} (${ended.response.status}${ended.error?.detail ? `: ${ended.error.detail}` : ''})\n`
      )
  } catch (error) {
    options.err.write(
      `agent-todos observe: cannot end session ${sessionId}: ${(error as Error).message}\n`
    )
  }
}
