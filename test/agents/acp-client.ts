/**
 * A scripted ACP client (the editor's side, on @agentclientprotocol/sdk 2.4.0) that runs a real
 * ACP agent behind `agent-todos acp`, as Zed would with the tap in its `agent_servers`:
 * `initialize` → `session/new` → [`session/set_mode`] → `session/prompt`, answering each
 * `session/request_permission` with the option the test picks, when the test lets it.
 */
import { spawn } from 'node:child_process'
import { Readable, Writable } from 'node:stream'
import { client, ndJsonStream } from '@agentclientprotocol/sdk'

export interface AcpRunOptions {
  /** The tap's command line up to and including the agent's (`node … src/cli.ts acp --url … -- …`). */
  command: string[]
  cwd: string
  env: Record<string, string>
  prompt: string
  /** `session/set_mode` after `session/new` (e.g. "default", so that writes ask). */
  mode?: string
  /**
   * Called on a permission request: resolves to the option kind to pick (`allow_once`, …), after
   * whatever the test checks while the agent waits.
   */
  onPermission?: (request: { sessionId: string; title: string | undefined }) => Promise<string>
  timeoutMs?: number
}

export interface AcpRun {
  sessionId: string
  stopReason: string
  /** Every `session/update` the client saw, in order. */
  updates: Record<string, unknown>[]
  permissions: number
  code: number | null
  signal: NodeJS.Signals | null
  stderr: string
}

/**
 * Runs one prompt turn of an ACP agent through the tap, then closes its stdin and waits for exit.
 * @param options - the command, prompt and permission policy
 */
export async function runAcpClient(options: AcpRunOptions): Promise<AcpRun> {
  const [program, ...args] = options.command
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('close', (code, signal) => resolve([code, signal]))
  )
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // gone
    }
  }
  const timer = setTimeout(kill, options.timeoutMs ?? 120_000)
  const updates: Record<string, unknown>[] = []
  let permissions = 0
  const app = client({ name: 'agent-todos-e2e' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params.update as unknown as Record<string, unknown>)
    })
    .onRequest('session/request_permission', async ({ params }) => {
      permissions++
      const kind = options.onPermission
        ? await options.onPermission({
            sessionId: params.sessionId,
            title: params.toolCall.title ?? undefined,
          })
        : 'allow_once'
      const option =
        params.options.find((o) => o.kind === kind) ??
        params.options.find((o) => o.kind.startsWith('allow')) ??
        params.options[0]
      return { outcome: { outcome: 'selected', optionId: option.optionId } }
    })
    // Qwen's own requests (craft/drainMidTurnQueue) take an empty answer
    .onRequest('*', () => ({}))
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>
  )
  try {
    const result = await app.connectWith(stream, async (agent) => {
      await agent.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      })
      const session = await agent.request('session/new', { cwd: options.cwd, mcpServers: [] })
      if (options.mode)
        await agent.request('session/set_mode', {
          sessionId: session.sessionId,
          modeId: options.mode,
        })
      const prompt = await agent.request('session/prompt', {
        sessionId: session.sessionId,
        prompt: [{ type: 'text', text: options.prompt }],
      })
      return { sessionId: session.sessionId, stopReason: prompt.stopReason }
    })
    child.stdin.end()
    const [code, signal] = await exited
    return { ...result, updates, permissions, code, signal, stderr }
  } catch (error) {
    kill()
    await exited
    throw new Error(`${(error as Error).message}\n--- stderr ---\n${stderr}`, { cause: error })
  } finally {
    clearTimeout(timer)
  }
}
