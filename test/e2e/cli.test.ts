/**
 * End to end: `agent-todos watch` (src/cli.ts through tsx) against the real server process.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { freePort, request, startServer, type ServerProcess } from './server-process.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const AGENT_KEY = 'cli-agent-key-01'
const VIEWER_KEY = 'cli-viewer-key-01'

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI to its end (bounded); env without AGENT_TODOS_* unless given. */
function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<Run> {
  const { AGENT_TODOS_URL: _url, AGENT_TODOS_KEY: _key, ...base } = process.env
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...base, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(
          `cli ${args.join(' ')} did not exit within ${timeoutMs} ms:\n${stdout}\n${stderr}`
        )
      )
    }, timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

const s03 = (statuses: string[]) => ({
  tool_calls: [
    {
      id: 'toolu_1',
      name: 'todo',
      input: {
        items: ['Read the config', 'Migrate the table', 'Verify the counts'].map((text, i) => ({
          id: String(i + 1),
          text,
          status: statuses[i],
        })),
      },
    },
  ],
})

describe('agent-todos watch against the real server', { timeout: 60_000 }, () => {
  let server: ServerProcess
  const agent = { Authorization: `Bearer ${AGENT_KEY}` }

  before(async () => {
    server = await startServer({ AUTH_KEYS: `ops:agent:${AGENT_KEY},ops:viewer:${VIEWER_KEY}` })
    const res = await request(
      server.url,
      'POST',
      '/v1/sessions/migrate-7/rounds',
      s03(['completed', 'in_progress', 'pending']),
      agent
    )
    assert.equal(res.status, 200)
  })

  after(async () => {
    await server?.stop()
  })

  it('Should print every session of the tenant once with --once', async () => {
    const run = await cli(['watch', '--once', '--url', server.url, '--key', VIEWER_KEY])
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /migrate-7/)
    assert.match(run.stdout, /█+░+/)
    assert.match(run.stdout, /\b33%/)
    assert.match(run.stdout, /Migrate the table/)
    assert.match(run.stdout, /^working\s+migrate-7/m)
  })

  it('Should print one session with its items, reading the URL and key from the environment', async () => {
    const run = await cli(['watch', 'migrate-7', '--once'], {
      AGENT_TODOS_URL: server.url,
      AGENT_TODOS_KEY: VIEWER_KEY,
    })
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /migrate-7 · s03 · v1/)
    assert.match(run.stdout, /█+░+\s+33%/)
    assert.match(run.stdout, /\[x\] #1 Read the config/)
    assert.match(run.stdout, /\[>\] #2 Migrate the table/)
    assert.match(run.stdout, /Now: Migrate the table/)
  })

  it('Should exit non-zero with a clear message on a wrong or missing key', async () => {
    const wrong = await cli(['watch', '--once', '--url', server.url, '--key', 'not-a-valid-key'])
    assert.equal(wrong.code, 1)
    assert.equal(wrong.stdout, '')
    assert.match(wrong.stderr, /refused the key \(401 Unauthorized\)/)
    const missing = await cli(['watch', '--once', '--url', server.url])
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /requires a key/)
  })

  it('Should exit non-zero when the server is unreachable or the session unknown', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`
    const unreachable = await cli(['watch', '--once', '--url', nobody, '--key', VIEWER_KEY])
    assert.equal(unreachable.code, 1)
    assert.match(
      unreachable.stderr,
      /cannot reach the agent-todos service at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/
    )
    const unknown = await cli([
      'watch',
      'no-such-run',
      '--once',
      '--url',
      server.url,
      '--key',
      VIEWER_KEY,
    ])
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /no session 'no-such-run'/)
    const usage = await cli(['frobnicate'])
    assert.equal(usage.code, 2)
    assert.match(usage.stderr, /Usage: agent-todos watch/)
  })

  it('Should follow a session live until interrupted', async () => {
    const { AGENT_TODOS_URL: _url, AGENT_TODOS_KEY: _key, ...base } = process.env
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'watch', 'migrate-7', '--url', server.url],
      {
        cwd: ROOT,
        env: { ...base, NO_COLOR: '1', AGENT_TODOS_KEY: VIEWER_KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      }
    )
    let stdout = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code))
    )
    const waitFor = async (pattern: RegExp, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs
      while (!pattern.test(stdout)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${stdout}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    try {
      await waitFor(/33%/)
      await request(
        server.url,
        'POST',
        '/v1/sessions/migrate-7/rounds',
        s03(['completed', 'completed', 'in_progress']),
        agent
      )
      await waitFor(/66%/, 3000)
      assert.match(stdout, /Now: Verify the counts/)
      child.kill('SIGINT')
      assert.equal(await exited, 0)
    } finally {
      child.kill('SIGKILL')
    }
  })
})

describe('agent-todos watch across a server restart', { timeout: 90_000 }, () => {
  it('Should keep watching when the service restarts gracefully, and show what the new one serves', async () => {
    const port = await freePort()
    let server = await startServer({ PORT: String(port) })
    const { AGENT_TODOS_URL: _url, AGENT_TODOS_KEY: _key, ...base } = process.env
    await request(
      server.url,
      'POST',
      '/v1/sessions/before-restart/rounds',
      s03(['in_progress', 'pending', 'pending'])
    )
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'watch', '--url', server.url],
      {
        cwd: ROOT,
        env: { ...base, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    let exitCode: number | null | undefined
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve((exitCode = code)))
    )
    const waitFor = async (pattern: RegExp, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs
      while (!pattern.test(stdout)) {
        if (exitCode !== undefined) throw new Error(`watch exited ${exitCode}: ${stderr}`)
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${pattern}:\n${stdout}\n${stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    try {
      await waitFor(/before-restart/)
      // SIGTERM: the instance drains (503 on kept-alive connections), closes its streams, exits
      assert.equal(await server.stop(), 0)
      await waitFor(/reconnecting/)
      server = await startServer({ PORT: String(port) })
      await request(
        server.url,
        'POST',
        '/v1/sessions/after-restart/rounds',
        s03(['completed', 'in_progress', 'pending'])
      )
      await waitFor(/after-restart/, 30_000)
      assert.equal(exitCode, undefined, 'still watching')
      child.kill('SIGINT')
      assert.equal(await exited, 0)
    } finally {
      child.kill('SIGKILL')
      await server.stop()
    }
  })
})
