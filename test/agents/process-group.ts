/**
 * Runs a real agent CLI as the e2e tests do: in a process group of its own (its helpers and hook
 * commands too), its output collected, SIGTERM then SIGKILL to the whole group past the time
 * limit, and whatever is left of the group killed when it ends.
 */
import { spawn, type ChildProcess } from 'node:child_process'

/** How a run ended and what it wrote. */
export interface GroupRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  durationMs: number
}

export interface GroupRunOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  timeoutMs: number
  /**
   * How long the group may outlive its leader before it is killed (Gemini and Qwen do not wait
   * for their SessionEnd hook); 0: at once.
   */
  drainMs?: number
  /** Gives the child a stdin pipe, and is called once its output is being collected. */
  withStdin?: (child: ChildProcess) => void
}

/** Whether any process of the group is left. */
function alive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Runs `command` to its end in a process group of its own.
 * @param command - the program
 * @param argv - its arguments
 * @param options - where and how long it runs
 */
export async function runInGroup(
  command: string,
  argv: string[],
  { cwd, env, timeoutMs, drainMs = 0, withStdin }: GroupRunOptions
): Promise<GroupRun> {
  const started = Date.now()
  const child = spawn(command, argv, {
    cwd,
    env,
    stdio: [withStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  withStdin?.(child)
  let timedOut = false
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      // already gone
    }
  }
  const timer = setTimeout(() => {
    timedOut = true
    group('SIGTERM')
    setTimeout(() => group('SIGKILL'), 2000).unref()
  }, timeoutMs)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s]))
  )
  clearTimeout(timer)
  const drainUntil = Date.now() + drainMs
  while (Date.now() < drainUntil && alive(child.pid!))
    await new Promise((resolve) => setTimeout(resolve, 50))
  group('SIGKILL')
  return { code, signal, stdout, stderr, timedOut, durationMs: Date.now() - started }
}
