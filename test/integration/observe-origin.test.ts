/**
 * The senders of docs/observe.md say who and where (X-Agent-User/Host/Repo/Branch) when they run:
 * examples/observe/forward-hook.sh (a shell and curl), `observe`'s git lookup of its directory
 * (`originHeaders`) and `observe` itself (it runs the agent as a child process). Processes, so
 * the integration tier's; what the senders are configured to say, and the Agent SDK forwarder run
 * in process, are test/unit/observe-forwarders.test.ts's.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { observe } from '../../src/cli/observe.js'
import { originHeaders } from '../../src/cli/origin.js'
import { makeTestApp, type TestApp } from '../helpers.js'
import { fixtureJson, fixtureLines, view } from '../ingest-support.js'

/** A listening server that hands every request to the test app (curl and `observe` need a port). */
async function bridge(t: TestApp) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value)
      }
      const reply = await t.app.request(req.url!, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      })
      res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? '' })
      res.end(Buffer.from(await reply.arrayBuffer()))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) }
}

/** A git repository whose remote carries credentials, on a branch. */
function gitRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'origin-repo-'))
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' })
  git('init', '-q')
  git('checkout', '-q', '-b', 'feature/health')
  git('remote', 'add', 'origin', 'https://bot:ghp_secret@github.com/acme/api.git')
  return dir
}

const runHook = (script: string, cwd: string, env: Record<string, string>, input: string) =>
  new Promise<number>((resolve, reject) => {
    const child = spawn('sh', [script, 'claude-code'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    child.on('error', reject)
    child.on('exit', (code) => resolve(code ?? -1))
    child.stdin.end(input)
  })

describe('The senders say who and where (X-Agent-User/Host/Repo/Branch), run', () => {
  const script = fileURLToPath(new URL('../../examples/observe/forward-hook.sh', import.meta.url))

  it('Should have forward-hook.sh send the user, host, credential-free remote and branch', async () => {
    const t = makeTestApp()
    const service = await bridge(t)
    try {
      const repo = gitRepo()
      const hook = fixtureJson('claude-code/real-todowrite.json')[0]
      const code = await runHook(
        script,
        repo,
        { AGENT_TODOS_URL: service.url, USER: 'ada', AGENT_TODOS_HOST: 'laptop-1' },
        JSON.stringify(hook)
      )
      assert.equal(code, 0)
      const session = await view(t, `claude:${hook.session_id}`)
      assert.equal(session.origin.user, 'ada')
      assert.equal(session.origin.host, 'laptop-1')
      assert.equal(session.origin.repo, 'https://github.com/acme/api.git')
      assert.equal(session.origin.branch, 'feature/health')
      assert.equal(session.origin.cwd, '/home/user/project')
    } finally {
      await service.close()
    }
  })

  it('Should have forward-hook.sh send what it knows outside a repository, and exit 0 when the service is down', async () => {
    const t = makeTestApp()
    const service = await bridge(t)
    try {
      const hook = fixtureJson('claude-code/real-todowrite.json')[0]
      const dir = mkdtempSync(join(tmpdir(), 'origin-plain-'))
      const code = await runHook(
        script,
        dir,
        { AGENT_TODOS_URL: service.url, USER: 'grace' },
        JSON.stringify(hook)
      )
      assert.equal(code, 0)
      const session = await view(t, `claude:${hook.session_id}`)
      assert.equal(session.origin.user, 'grace')
      assert.equal(session.origin.host, hostname())
      assert.equal(session.origin.repo, null)
      assert.equal(session.origin.branch, null)
    } finally {
      await service.close()
    }
    const down = await runHook(
      script,
      tmpdir(),
      { AGENT_TODOS_URL: 'http://127.0.0.1:9' },
      JSON.stringify({})
    )
    assert.equal(down, 0)
  })

  it('Should have forward-hook.sh codex --decide print the answer a person gave, and nothing without one', async () => {
    const t = makeTestApp({ decisions: { waitMs: 30_000, holdMs: 30_000, open: false } })
    const service = await bridge(t)
    try {
      const hook = fixtureJson('codex/real-decide-permission-request.json')
      const session = `codex:${hook.session_id}`
      const child = spawn('sh', [script, 'codex', '--decide'], {
        cwd: tmpdir(),
        env: { PATH: process.env.PATH ?? '', AGENT_TODOS_URL: service.url },
        stdio: ['pipe', 'pipe', 'ignore'],
      })
      let out = ''
      child.stdout.on('data', (chunk) => (out += chunk))
      const exited = new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? -1)))
      child.stdin.end(JSON.stringify(hook))
      let request: any
      for (const end = Date.now() + 10_000; !request && Date.now() < end;) {
        const res = await t.call('GET', `/v1/sessions/${session}`)
        request = res.status === 200 ? res.body.waiting?.request : undefined
        if (!request) await new Promise((r) => setImmediate(r))
      }
      assert.ok(request, 'the request shows')
      // open access answers only from loopback with DECISIONS_OPEN: the service's own store
      const { decide } = await import('../../src/service/decisions.js')
      await decide(
        { store: t.store, now: () => t.clock.now, open: true },
        {
          key: { tenant: 'default', sessionId: session },
          caller: { tenant: 'default', role: 'agent', via: 'open', loopback: true },
          input: { request_id: request.id, decision: 'deny', message: 'not now' },
          channel: 'api',
        }
      )
      assert.equal(await exited, 0)
      assert.deepEqual(JSON.parse(out), {
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message: 'not now' },
        },
      })
    } finally {
      await service.close()
    }
    const down = spawn('sh', [script, 'codex', '--decide'], {
      env: { PATH: process.env.PATH ?? '', AGENT_TODOS_URL: 'http://127.0.0.1:9' },
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    let quiet = ''
    down.stdout.on('data', (chunk) => (quiet += chunk))
    const downExit = new Promise<number>((resolve) => down.on('exit', (c) => resolve(c ?? -1)))
    down.stdin.end('{}')
    assert.equal(await downExit, 0)
    assert.equal(quiet, '')
  })

  it('Should have observe find the git remote (without credentials) and branch of its directory', () => {
    const repo = gitRepo()
    assert.deepEqual(originHeaders(repo, { AGENT_TODOS_USER: 'ada', AGENT_TODOS_HOST: 'ci-3' }), {
      'X-Agent-User': 'ada',
      'X-Agent-Host': 'ci-3',
      'X-Agent-Repo': 'https://github.com/acme/api.git',
      'X-Agent-Branch': 'feature/health',
    })
    const plain = originHeaders(mkdtempSync(join(tmpdir(), 'origin-plain-')), {})
    assert.equal(plain['X-Agent-Host'], hostname())
    assert.equal(plain['X-Agent-Repo'], undefined)
  })

  it('Should have observe send its origin headers with every delivery', async () => {
    const t = makeTestApp()
    const service = await bridge(t)
    try {
      const lines = fixtureLines('codex/real-plan.ndjson')
      const code = await observe({
        url: service.url,
        agent: 'codex',
        command: [
          process.execPath,
          '-e',
          `process.stdout.write(${JSON.stringify(lines.join('\n') + '\n')})`,
        ],
        out: new PassThrough().resume(),
        err: new PassThrough().resume(),
        flushTimeoutMs: 5000,
        originHeaders: {
          'X-Agent-User': 'ada',
          'X-Agent-Host': 'ci-3',
          'X-Agent-Repo': 'acme/api',
          'X-Agent-Branch': 'main',
        },
        tuning: { lingerMs: 5, retryBaseMs: 20, retryMaxMs: 100 },
      })
      assert.equal(code, 0)
      const thread = JSON.parse(lines[0]).thread_id
      const session = await view(t, `codex:${thread}`)
      assert.equal(session.origin.user, 'ada')
      assert.equal(session.origin.host, 'ci-3')
      assert.equal(session.origin.repo, 'acme/api')
      assert.equal(session.origin.branch, 'main')
      assert.equal(session.origin.agent, 'codex')
    } finally {
      await service.close()
    }
  })
})
