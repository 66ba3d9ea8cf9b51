/**
 * The senders of docs/observe.md: the TypeScript Agent SDK forwarder of docs/observe.md (examples/observe/claude-agent-sdk/forward.ts)
 * fed the messages a `query()` yields (the stream-json lines of a real run are those objects), and
 * what the Claude Code settings send. The senders that run processes (forward-hook.sh, git,
 * `observe`) are test/integration/observe-origin.test.ts's.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { forward } from '../../examples/observe/claude-agent-sdk/forward.js'
import { makeTestApp } from '../helpers.js'
import { fixtureLines, fixtureText, ingest, view } from '../ingest-support.js'

async function* messagesOf(path: string) {
  for (const line of fixtureLines(path)) {
    // the SDK yields as the agent runs: let the forwarder's posts interleave
    await new Promise((resolve) => setImmediate(resolve))
    yield JSON.parse(line)
  }
}

describe('examples/observe/claude-agent-sdk/forward.ts', () => {
  it('Should yield every message unchanged and build the same session as the whole stream', async () => {
    const t = makeTestApp()
    const posted: string[] = []
    const send = (async (url: string, init: RequestInit) => {
      posted.push(url)
      return t.app.request(url, init)
    }) as typeof fetch
    const yielded: unknown[] = []
    for await (const message of forward(messagesOf('claude-agent-sdk/todowrite.ndjson'), send)) {
      yielded.push(message)
    }
    const lines = fixtureLines('claude-agent-sdk/todowrite.ndjson').map((line) => JSON.parse(line))
    assert.deepEqual(yielded, lines)
    assert.equal(posted.length, lines.length)
    assert.ok(posted.every((url) => url === 'http://127.0.0.1:8080/v1/ingest/claude-agent-sdk'))
    const sessionId = 'claude:c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8'
    const forwarded = await view(t, sessionId)
    // who and where: this machine's user and host
    assert.equal(forwarded.origin.host, hostname())
    assert.ok(forwarded.origin.user, 'the login name')

    const whole = makeTestApp()
    await ingest(whole, 'claude-agent-sdk', fixtureText('claude-agent-sdk/todowrite.ndjson'))
    const expected = await view(whole, sessionId)
    assert.deepEqual(forwarded.items, expected.items)
    assert.deepEqual(forwarded.ended, expected.ended)
  })

  it('Should send the key, and go on when the service is down', async () => {
    const t = makeTestApp()
    const headers: (string | null)[] = []
    process.env.AGENT_TODOS_KEY = 'k-123456789'
    try {
      const send = ((_url: string, init: RequestInit) => {
        headers.push(new Headers(init.headers).get('authorization'))
        return Promise.reject(new TypeError('fetch failed'))
      }) as typeof fetch
      let count = 0
      for await (const _ of forward(messagesOf('claude-agent-sdk/max-turns.ndjson'), send)) count++
      assert.equal(count, 6)
      assert.deepEqual(new Set(headers), new Set(['Bearer k-123456789']))
      assert.equal((await t.call('GET', '/v1/sessions')).body.sessions.length, 0)
    } finally {
      delete process.env.AGENT_TODOS_KEY
    }
  })
})

describe('The senders say who and where (X-Agent-User/Host/Repo/Branch)', () => {
  it('Should have the Claude Code settings send X-Agent-User and X-Agent-Host on every HTTP hook', () => {
    const settings = JSON.parse(
      readFileSync(
        new URL('../../examples/observe/claude-code/settings.json', import.meta.url),
        'utf8'
      )
    )
    const http = Object.values(settings.hooks as Record<string, { hooks: Record<string, any>[] }[]>)
      .flat()
      .flatMap((group) => group.hooks)
      .filter((hook) => hook.type === 'http')
    assert.ok(http.length > 0)
    for (const hook of http) {
      assert.equal(hook.headers['X-Agent-User'], '$USER')
      assert.equal(hook.headers['X-Agent-Host'], '$HOSTNAME')
      assert.ok(hook.allowedEnvVars.includes('USER') && hook.allowedEnvVars.includes('HOSTNAME'))
    }
  })
})
