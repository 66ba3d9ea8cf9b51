/**
 * Starts the real server process (`src/server.ts` through tsx) on a free port, for end-to-end tests.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createAgentTodosClient, type AgentTodosClient } from '../../src/client/index.js'
import { recordContract } from './contract-recorder.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface ServerProcess {
  url: string
  port: number
  child: ChildProcess
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string
  /** SIGTERM, then wait for exit; returns the exit code. */
  stop(): Promise<number | null>
  /** SIGKILL, then wait for exit. */
  kill(): Promise<void>
  /**
   * The published typed client (`src/client`) on this server, with `Authorization: Bearer <key>`
   * when a key is given: `data` and `error` typed by the OpenAPI document (and each response
   * checked against it by the contract recorder). `request` is for what the document forbids.
   */
  api(apiKey?: string): AgentTodosClient
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  server.close()
  await once(server, 'close')
  return port
}

/**
 * Starts the server with the given environment and waits until /readyz answers 200.
 * @param env - variables on top of a quiet default (LOG_LEVEL=warn, STORE=memory unless given)
 * @param options - readiness timeout
 */
export async function startServer(
  env: Record<string, string> = {},
  options: { timeoutMs?: number; waitReady?: boolean } = {}
): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  let output = ''
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      STORE: 'memory',
      HOST: '127.0.0.1',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const url = `http://127.0.0.1:${port}`
  const exited = once(child, 'exit')
  const proc: ServerProcess = {
    url,
    port,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill('SIGTERM')
      const [code] = await exited
      return code as number | null
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGKILL')
      await exited
    },
    api: (apiKey) => createAgentTodosClient({ baseUrl: url, apiKey }),
  }
  if (options.waitReady === false) return proc
  // generous: a condition waited on, so it costs nothing on an idle machine and holds on a loaded one
  const deadline = Date.now() + (options.timeoutMs ?? 90_000)
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`server exited early (${child.exitCode}):\n${output}`)
    try {
      const res = await fetch(`${url}/readyz`)
      if (res.status === 200) {
        await recordContract(url)
        return proc
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await proc.kill()
  throw new Error(`server did not become ready:\n${output}`)
}

/** JSON request against a running server. */
export async function request(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {}
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const init: RequestInit = { method, headers: { ...headers } }
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body)
    ;(init.headers as Record<string, string>)['content-type'] ??= 'application/json'
  }
  const res = await fetch(base + path, init)
  const text = await res.text()
  let parsed: unknown = text
  if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text)
  return { status: res.status, headers: res.headers, body: parsed, text }
}
