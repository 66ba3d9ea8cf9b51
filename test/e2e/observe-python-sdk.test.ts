/**
 * End to end: the Python Agent SDK example of docs/observe.md
 * (examples/observe/claude-agent-sdk/main.py and its forwarder forward.py, standard library only)
 * run as it is against the real server, its `claude_agent_sdk` a stand-in that yields dataclasses
 * shaped as the SDK's (test/observe/stub-sdk).
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createAgentTodosClient } from '../../src/client/index.js'
import { startServer, type ServerProcess } from './server-process.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const KEY = 'python-sdk-key-123'

function runDriver(env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'python3',
      ['examples/observe/claude-agent-sdk/main.py'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          PYTHONPATH: 'test/observe/stub-sdk',
          STUB_SDK_FIXTURE: 'test/fixtures/ingest/claude-agent-sdk/python.json',
          ...env,
        },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, stdout, stderr })
      }
    )
  })
}

describe('The Python Agent SDK forwarder against the real server', () => {
  let server: ServerProcess
  before(async () => {
    server = await startServer({ AUTH_KEYS: `py:agent:${KEY}` })
  })
  after(async () => {
    await server.stop()
  })

  it('Should forward every message, named by the session, and build its list', async () => {
    const run = await runDriver({ AGENT_TODOS_URL: server.url, AGENT_TODOS_KEY: KEY })
    assert.equal(run.code, 0, run.stdout + run.stderr)
    assert.equal(
      run.stdout.trim().split('\n').join(' '),
      'SystemMessage AssistantMessage UserMessage ResultMessage'
    )
    const client = createAgentTodosClient({ baseUrl: server.url, apiKey: KEY })
    const view = await client.GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: 'claude:a5e6f708-192a-4b4c-85d6-e7f8091a2b3c' } },
    })
    assert.equal(view.response.status, 200)
    assert.deepEqual(
      view.data!.items.map((item) => [item.id, item.status, item.content]),
      [
        ['1', 'in_progress', 'Write the /health handler'],
        ['2', 'pending', 'Add a test for /health'],
        ['3', 'pending', 'Update the README'],
      ]
    )
    assert.equal(view.data!.source, 'claude-agent-sdk')
    assert.equal(view.data!.ended?.outcome, 'completed')
  })

  it('Should go on when the service is down', async () => {
    const run = await runDriver({ AGENT_TODOS_URL: 'http://127.0.0.1:9', AGENT_TODOS_KEY: KEY })
    assert.equal(run.code, 0, run.stdout + run.stderr)
    assert.equal(
      run.stdout.trim().split('\n').join(' '),
      'SystemMessage AssistantMessage UserMessage ResultMessage'
    )
  })
})
