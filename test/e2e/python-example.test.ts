/**
 * End to end: examples/python/agent_loop.py (standard library only) against the real server.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createAgentTodosClient } from '../../src/client/index.js'
import { startServer, type ServerProcess } from './server-process.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const KEY = 'python-key-123'

/** Runs the example; resolves with its exit code and output. */
function runExample(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'python3',
      ['examples/python/agent_loop.py', ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, stdout, stderr })
      }
    )
  })
}

describe('The Python example against the real server', () => {
  let server: ServerProcess
  before(async () => {
    server = await startServer({ AUTH_KEYS: `py:agent:${KEY}` })
  })
  after(async () => {
    await server.stop()
  })

  it('Should play the walkthrough with every text exact and the reminder after three rounds without todo', async () => {
    const run = await runExample([server.url, 'py-walk'], { AGENT_TODOS_KEY: KEY })
    assert.equal(run.code, 0, run.stdout + run.stderr)
    assert.match(
      run.stdout,
      /turn {2}7: write_file 1\/5 completed \(20%\) {2}\+ <reminder>Update your todos\.<\/reminder>/
    )
    assert.equal(run.stdout.match(/<reminder>/g)?.length, 1)
    assert.match(run.stdout, /ok: 10 turns, 21 messages/)

    const client = createAgentTodosClient({ baseUrl: server.url, apiKey: KEY })
    const view = await client.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'py-walk' } },
    })
    assert.equal(view.data!.round, 10)
    assert.equal(view.data!.progress.percent, 100)
  })

  it('Should take the base URL from AGENT_TODOS_URL', async () => {
    const run = await runExample([], { AGENT_TODOS_URL: server.url, AGENT_TODOS_KEY: KEY })
    assert.equal(run.code, 0, run.stdout + run.stderr)
  })

  it('Should exit non-zero on a mismatch', async () => {
    const client = createAgentTodosClient({ baseUrl: server.url, apiKey: KEY })
    await client.POST('/v1/sessions/{session_id}/rounds', {
      params: { path: { session_id: 'py-used' } },
      body: { tool_calls: [{ id: 'x', name: 'bash' }] },
    })
    const run = await runExample([server.url, 'py-used'], { AGENT_TODOS_KEY: KEY })
    assert.equal(run.code, 1)
    assert.match(run.stderr, /^MISMATCH turn 1: round/)
    const unauthorized = await runExample([server.url, 'py-nokey'], { AGENT_TODOS_KEY: '' })
    assert.equal(unauthorized.code, 1)
    assert.match(unauthorized.stderr, /answered 401/)
  })
})
