/**
 * The command `observe` runs does not get `AGENT_TODOS_KEY`: the command is an agent whose model
 * runs shell commands, and with the key those could edit or delete any session of the tenant.
 * observe itself still sends it; `AGENT_TODOS_URL` is no secret and stays. Run through the real
 * executable (src/cli.ts), which reads both from its environment.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startRecorder, type Recorder } from '../agents/recorder.js'
import { ingested } from './observe-support.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const KEY = 'observe-secret-key-01'

/** A Codex-like command that prints, as its first line, what it sees of observe's variables. */
const PRINT_ENV = `console.log(JSON.stringify({ type: 'thread.started', thread_id: 't-env', key: process.env.AGENT_TODOS_KEY ?? null, url: process.env.AGENT_TODOS_URL ?? null }))`

describe('hostile: observe keeps its key from the command', () => {
  let recorder: Recorder
  before(async () => {
    recorder = await startRecorder()
  })
  after(() => recorder.close())

  /** Runs observe (with `options` before the command) and returns what the command saw. */
  async function run(options: string[]) {
    const argv = ['--import', 'tsx', 'src/cli.ts', 'observe', '--agent', 'codex', ...options, '--']
    const child = spawn(process.execPath, [...argv, process.execPath, '-e', PRINT_ENV], {
      cwd: ROOT,
      env: { ...process.env, AGENT_TODOS_URL: recorder.url, AGENT_TODOS_KEY: KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    const [code] = await once(child, 'close')
    clearTimeout(timer)
    assert.equal(code, 0, stderr)
    return JSON.parse(stdout.split('\n')[0]) as { key: unknown; url: unknown }
  }

  it('Should run the command without AGENT_TODOS_KEY and still send the key itself', async () => {
    const seen = await run([])
    assert.equal(seen.key, null, 'the command saw AGENT_TODOS_KEY')
    assert.equal(seen.url, recorder.url)
    assert.equal(ingested(recorder).length, 1)
    for (const request of recorder.requests)
      assert.equal(request.headers.authorization, `Bearer ${KEY}`, request.path)
  })

  it('Should hand the key on only when asked with --pass-key (for hooks under observe)', async () => {
    const seen = await run(['--pass-key'])
    assert.equal(seen.key, KEY)
  })
})
