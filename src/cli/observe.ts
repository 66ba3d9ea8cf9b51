/**
 * @module cli/observe
 * `agent-todos observe -- <command…>`: runs an agent CLI as it is (`codex exec --json …`,
 * `claude -p … --output-format stream-json --verbose`, `gemini … --output-format stream-json`),
 * passes its output through unchanged and streams every JSON line of its stdout to the service's
 * ingest route for that agent, in order, in batches, retrying with backoff on its own schedule so the
 * agent's output never waits for the service. When the run is over and the stream did not end the
 * session itself, the session is ended with the command's exit status. The exit code is the
 * command's.
 */
import { spawn } from 'node:child_process'
import { constants as osConstants } from 'node:os'
import { createAgentTodosClient } from '../client/index.js'

/** The agents `observe` knows, and the ingest route each one's stream goes to. */
export const AGENTS = {
  claude: { route: '/v1/ingest/claude-agent-sdk', prefix: 'claude' },
  codex: { route: '/v1/ingest/codex', prefix: 'codex' },
  gemini: { route: '/v1/ingest/gemini-cli', prefix: 'gemini' },
} as const

export type AgentKind = keyof typeof AGENTS

export interface ObserveOptions {
  /** Service base URL, without a trailing slash. */
  url: string
  key?: string
  /** Names the session (`?session_id=`) instead of the id the stream carries. */
  sessionId?: string
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
}

export interface Tuning {
  /** Wait this long after the first queued line for more before posting. */
  lingerMs: number
  maxBatchLines: number
  maxBatchBytes: number
  /** Lines kept while the service cannot take them; the oldest go past this. */
  maxQueueBytes: number
  retryBaseMs: number
  retryMaxMs: number
  /** After an abort, how long the command has to exit on its own before SIGTERM. */
  signalGraceMs: number
}

const DEFAULT_TUNING: Tuning = {
  lingerMs: 20,
  maxBatchLines: 500,
  maxBatchBytes: 512 * 1024,
  maxQueueBytes: 32 * 1024 * 1024,
  retryBaseMs: 250,
  retryMaxMs: 8000,
  signalGraceMs: 2000,
}

const NAMES: Record<string, AgentKind> = {
  claude: 'claude',
  'claude-code': 'claude',
  '@anthropic-ai/claude-code': 'claude',
  codex: 'codex',
  '@openai/codex': 'codex',
  gemini: 'gemini',
  'gemini-cli': 'gemini',
  '@google/gemini-cli': 'gemini',
}

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
  } else if (format() !== 'stream-json') return 'gemini needs --output-format stream-json'
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
  return typeof value.session_id === 'string' && value.session_id
    ? `claude:${value.session_id}`
    : null
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })

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
class IngestSender {
  private queue: string[] = []
  private queueBytes = 0
  private wake: (() => void) | null = null
  private closing = false
  private stopped = false
  private readonly deadline = new AbortController()
  private readonly result: Delivery = {
    delivered: 0,
    failed: 0,
    dropped: 0,
    undelivered: 0,
    complete: true,
    sessionId: null,
  }
  private readonly loop: Promise<void>
  private warned = new Set<string>()
  /** The session later batches name (a Codex or Gemini stream names it on its first line only). */
  sessionParam: string | null

  constructor(
    private readonly options: ObserveOptions,
    private readonly tuning: Tuning
  ) {
    this.sessionParam = options.sessionId ?? null
    this.loop = this.run()
  }

  push(line: string): void {
    if (this.stopped) return
    this.queue.push(line)
    this.queueBytes += Buffer.byteLength(line) + 1
    while (this.queueBytes > this.tuning.maxQueueBytes && this.queue.length > 1) {
      const old = this.queue.shift()!
      this.queueBytes -= Buffer.byteLength(old) + 1
      this.result.dropped++
      this.result.complete = false
      this.warnOnce('dropped', 'the service is behind; dropping the oldest lines')
    }
    this.wake?.()
  }

  /** No more lines: deliver what is queued, giving up after `timeoutMs`. */
  async close(timeoutMs: number): Promise<Delivery> {
    this.closing = true
    this.wake?.()
    const timer = setTimeout(() => this.deadline.abort(), timeoutMs)
    await this.loop
    clearTimeout(timer)
    this.result.undelivered = this.queue.length
    if (this.queue.length) this.result.complete = false
    return this.result
  }

  private warnOnce(key: string, message: string) {
    if (this.warned.has(key)) return
    this.warned.add(key)
    this.options.err.write(`agent-todos observe: ${message}\n`)
  }

  private take(): string[] {
    const batch: string[] = []
    let bytes = 0
    while (this.queue.length && batch.length < this.tuning.maxBatchLines) {
      const size = Buffer.byteLength(this.queue[0]) + 1
      if (batch.length && bytes + size > this.tuning.maxBatchBytes) break
      batch.push(this.queue.shift()!)
      bytes += size
      this.queueBytes -= size
    }
    return batch
  }

  private async run(): Promise<void> {
    for (;;) {
      if (!this.queue.length) {
        if (this.closing || this.stopped) return
        await new Promise<void>((resolve) => (this.wake = resolve))
        this.wake = null
        if (!this.closing) await sleep(this.tuning.lingerMs)
        continue
      }
      const batch = this.take()
      const ok = await this.deliver(batch)
      if (!ok) {
        // the deadline passed mid-retry: what is left stays undelivered
        this.queue.unshift(...batch)
        return
      }
      if (this.stopped) return
    }
  }

  /** One batch to its end: taken, refused (dropped with a warning), or the deadline passed. */
  private async deliver(batch: string[]): Promise<boolean> {
    const { url, key, agent } = this.options
    for (let attempt = 0; ; attempt++) {
      if (this.deadline.signal.aborted) return false
      const target = new URL(AGENTS[agent].route, url)
      if (this.sessionParam) target.searchParams.set('session_id', this.sessionParam)
      const headers: Record<string, string> = { 'Content-Type': 'application/x-ndjson' }
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
        const retryAfter = Number(res.headers.get('retry-after'))
        if (Number.isFinite(retryAfter) && retryAfter >= 0) retryAfterMs = retryAfter * 1000
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
      if (status === 401 || status === 403 || status === 404) {
        this.warnOnce(
          'fatal',
          `the service refused the stream (${status}${detail ? `: ${detail}` : ''}); the command runs on unobserved`
        )
        this.stopped = true
        this.result.failed += batch.length
        this.result.complete = false
        this.queue = []
        this.queueBytes = 0
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
      const wait = retryAfterMs ?? backoff / 2 + Math.random() * (backoff / 2)
      await sleep(Math.min(wait, this.tuning.retryMaxMs), this.deadline.signal)
    }
  }
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

  // a reader that went away (`| head`) must not stop the run nor its reporting
  out.on('error', () => {})
  const [program, ...args] = command
  const child = spawn(program, args, { stdio: ['inherit', 'pipe', 'pipe'] })
  let spawnError: NodeJS.ErrnoException | null = null
  let pending = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out.write(chunk)
    pending += chunk.toString('utf8')
    let newline: number
    while ((newline = pending.indexOf('\n')) >= 0) {
      onLine(pending.slice(0, newline))
      pending = pending.slice(newline + 1)
    }
  })
  child.stderr.on('data', (chunk: Buffer) => err.write(chunk))

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
    child.once('close', (c, s) => resolve([c, s]))
  })
  clearTimeout(graceTimer)
  options.signal?.removeEventListener('abort', onAbort)
  if (pending) onLine(pending)

  const delivery = await sender.close(options.flushTimeoutMs ?? 10_000)
  if (skipped)
    err.write(`agent-todos observe: ${skipped} stdout line(s) were not JSON and were not sent\n`)
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
