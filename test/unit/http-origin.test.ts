/**
 * Who and where (SPEC §3): a session's origin and labels from the agents' own events, the
 * delivery's X-Agent-* headers and a round's or PUT's body; filled once, never rewritten; shown
 * in every view and listing entry, and filtered on.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseAuthKeys } from '../../src/http/auth.js'
import { makeTestApp, round } from '../helpers.js'
import { fixtureJson, fixtureLines, ingest, postHooks, view } from '../ingest-support.js'
import { todo, five } from './http-fixtures.js'

const HEADERS = {
  'X-Agent-User': 'ada',
  'X-Agent-Host': 'laptop-1',
  'X-Agent-Repo': 'https://ada:ghp_secret@github.com/acme/api.git',
  'X-Agent-Branch': 'feature/health',
}

const EMPTY = {
  user: null,
  host: null,
  cwd: null,
  repo: null,
  branch: null,
  agent: null,
  agent_version: null,
  model: null,
  // a header alone never verifies the user (SPEC People)
  user_verified: false,
}

describe('Origin of observed sessions', () => {
  it('Should fill a Claude Code session from its hooks (cwd) and the headers, without credentials', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('claude-code/real-todowrite.json')
    const res = await ingest(t, 'claude-code', hooks[0], '', HEADERS)
    assert.equal(res.status, 200)
    for (const hook of hooks.slice(1)) await ingest(t, 'claude-code', hook)
    const session = await view(t, `claude:${hooks[0].session_id}`)
    assert.deepEqual(session.origin, {
      ...EMPTY,
      user: 'ada',
      host: 'laptop-1',
      cwd: '/home/user/project',
      repo: 'https://github.com/acme/api.git',
      branch: 'feature/health',
      agent: 'claude-code',
    })
    assert.deepEqual(session.labels, {})
  })

  it('Should take cwd, model and version from an Agent SDK system/init', async () => {
    const t = makeTestApp()
    const lines = fixtureLines('claude-agent-sdk/real-todowrite.ndjson')
    const init = JSON.parse(lines[0])
    const res = await ingest(t, 'claude-agent-sdk', lines.join('\n'))
    assert.equal(res.status, 200)
    const session = await view(t, `claude:${init.session_id}`)
    assert.equal(session.origin.cwd, init.cwd)
    assert.equal(session.origin.model, init.model)
    assert.equal(session.origin.agent_version, init.claude_code_version)
    assert.equal(session.origin.agent, 'claude-agent-sdk')
  })

  it('Should take Codex hooks’ cwd and model, and Gemini hooks’ cwd and stream model', async () => {
    const t = makeTestApp()
    const codex = fixtureJson('codex/real-plan.json')
    await postHooks(t, 'codex', codex)
    const c = await view(t, `codex:${codex[0].session_id}`)
    assert.equal(c.origin.cwd, '/home/user/project')
    assert.equal(c.origin.model, 'gpt-5.5')
    assert.equal(c.origin.agent, 'codex')
    const gemini = fixtureJson('gemini-cli/real-todos.json')
    await postHooks(t, 'gemini-cli', gemini)
    const g = await view(t, `gemini:${gemini[0].session_id}`)
    assert.equal(g.origin.cwd, '/home/user/project')
    assert.equal(g.origin.agent, 'gemini-cli')
    const stream = fixtureLines('gemini-cli/real-todos.ndjson')
    await ingest(t, 'gemini-cli', stream.join('\n'))
    const s = await view(t, `gemini:${JSON.parse(stream[0]).session_id}`)
    assert.equal(s.origin.model, JSON.parse(stream[0]).model)
  })

  it('Should never rewrite a set field: a later delivery fills only what is still null', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('claude-code/real-todowrite.json')
    await ingest(t, 'claude-code', hooks[0], '', { 'X-Agent-User': 'ada' })
    const before = await view(t, `claude:${hooks[0].session_id}`)
    await ingest(t, 'claude-code', hooks[1], '', {
      'X-Agent-User': 'mallory',
      'X-Agent-Host': 'laptop-2',
    })
    await ingest(t, 'claude-code', { ...hooks[2], cwd: '/elsewhere' }, '', {
      'X-Agent-Host': 'laptop-3',
    })
    const after = await view(t, `claude:${hooks[0].session_id}`)
    assert.equal(after.origin.user, 'ada')
    assert.equal(after.origin.host, 'laptop-2')
    assert.equal(after.origin.cwd, '/home/user/project')
    assert.equal(before.origin.host, null)
  })

  it('Should fill the origin of an existing session without a new version', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('claude-code/real-todowrite.json')
    await postHooks(t, 'claude-code', hooks.slice(0, 2))
    const id = `claude:${hooks[0].session_id}`
    const before = await view(t, id)
    // an activity-only hook that names the host for the first time
    await ingest(
      t,
      'claude-code',
      { ...hooks[0], hook_event_name: 'UserPromptSubmit', prompt: 'go on' },
      '',
      { 'X-Agent-Host': 'laptop-9' }
    )
    const after = await view(t, id)
    assert.equal(after.origin.host, 'laptop-9')
    assert.equal(after.version, before.version)
  })

  it('Should take X-Agent-User with a key that carries no user of its own', async () => {
    const keys = parseAuthKeys('acme:agent:agent-key-0123456789')
    const t = makeTestApp({ keys })
    const hooks = fixtureJson('claude-code/real-todowrite.json')
    // AUTH_KEYS entries carry no user: the header names it
    const res = await ingest(t, 'claude-code', hooks[0], '', {
      ...HEADERS,
      Authorization: 'Bearer agent-key-0123456789',
    })
    assert.equal(res.status, 200)
    const session = await t.call('GET', `/v1/sessions/claude:${hooks[0].session_id}`, undefined, {
      Authorization: 'Bearer agent-key-0123456789',
    })
    assert.equal(session.body.origin.user, 'ada')
  })
})

describe('Origin and labels of rounds sessions', () => {
  it('Should take headers and the body’s origin and labels, and keep set values', async () => {
    const t = makeTestApp()
    const first = await t.call(
      'POST',
      '/v1/sessions/r1/rounds',
      {
        tool_calls: [todo(five)],
        origin: { user: 'body-user', cwd: '/srv/app', agent: 'langchain', model: 'gpt-x' },
        labels: { team: 'payments', 'ci.job': '42' },
      },
      { 'X-Agent-User': 'grace', 'X-Agent-Host': 'ci-3' }
    )
    assert.equal(first.status, 200)
    await round(t, 'r1', [{ name: 'other' }], {
      origin: { user: 'someone', branch: 'main' },
      labels: { team: 'other', env: 'prod' },
    })
    const session = await view(t, 'r1')
    assert.deepEqual(session.origin, {
      ...EMPTY,
      user: 'grace',
      host: 'ci-3',
      cwd: '/srv/app',
      branch: 'main',
      agent: 'langchain',
      model: 'gpt-x',
    })
    assert.deepEqual(session.labels, { team: 'payments', 'ci.job': '42', env: 'prod' })
    const listed = (await t.call('GET', '/v1/sessions')).body.sessions[0]
    assert.deepEqual(listed.origin, session.origin)
    assert.deepEqual(listed.labels, session.labels)
  })

  it('Should take origin and labels from a PUT body', async () => {
    const t = makeTestApp()
    const res = await t.call(
      'PUT',
      '/v1/sessions/p1/todos',
      {
        items: [{ id: '1', content: 'a', status: 'pending' }],
        origin: { repo: 'https://x:y@example.com/r.git' },
        labels: { team: 'core' },
      },
      { 'X-Agent-Host': 'desk' }
    )
    assert.equal(res.status, 200)
    assert.equal(res.body.origin.repo, 'https://example.com/r.git')
    assert.equal(res.body.origin.host, 'desk')
    assert.deepEqual(res.body.labels, { team: 'core' })
  })

  it('Should refuse labels beyond the limits with a 400 naming the field', async () => {
    const t = makeTestApp()
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`l${i}`, 'v']))
    const cases: Record<string, unknown>[] = [
      { Bad: 'x' },
      { ok: 'x'.repeat(257) },
      many,
      { ok: 7 },
      // control and bidi characters: a value that displays other than it reads
      { team: 'pay\u202emnets' },
      { team: 'core\u2066x\u2069' },
      { team: 'core\u0007' },
      { team: 'core\u0085' },
    ]
    for (const labels of cases) {
      const res = await round(t, 'bad', [todo(five)], { labels })
      assert.equal(res.status, 400, JSON.stringify(labels))
      assert.equal(res.headers.get('content-type'), 'application/problem+json')
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer.startsWith('/labels')),
        JSON.stringify(res.body.errors)
      )
    }
    const put = await t.call('PUT', '/v1/sessions/bad/todos', { items: [], labels: { Bad: '1' } })
    assert.equal(put.status, 400)
    assert.equal((await t.call('GET', '/v1/sessions')).body.sessions.length, 0)
  })
})

describe('Origin cleaned best-effort', () => {
  it('Should strip control and bidi characters from a body’s origin, and credentials from its repo', async () => {
    const t = makeTestApp()
    const res = await round(t, 'clean', [todo(five)], {
      origin: {
        user: 'ad\u202ea',
        branch: 'main\u2067\u0085',
        repo: 'https://github.com/acme/api.git?access_token=ghp_x',
      },
    })
    assert.equal(res.status, 200, res.text)
    const { origin } = await view(t, 'clean')
    assert.equal(origin.user, 'ada')
    assert.equal(origin.branch, 'main')
    assert.equal(origin.repo, 'https://github.com/acme/api.git')
  })

  it('Should drop the token user of an scp-like X-Agent-Repo', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('claude-code/real-todowrite.json')
    await ingest(t, 'claude-code', hooks[0], '', {
      'X-Agent-Repo': 'ghp_secret123@github.com:acme/api.git',
    })
    const session = await view(t, `claude:${hooks[0].session_id}`)
    assert.equal(session.origin.repo, 'github.com:acme/api.git')
  })
})

describe('Origin of sessions fed through MCP', () => {
  it('Should take the X-Agent-* headers of a tools/call', async () => {
    const t = makeTestApp()
    const res = await t.call(
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'todo', arguments: { items: five } },
      },
      {
        Accept: 'application/json, text/event-stream',
        'X-Session-Id': 'm1',
        'X-Agent-User': 'ada',
        'X-Agent-Host': 'laptop-1',
      }
    )
    assert.equal(res.status, 200, res.text)
    const session = await view(t, 'm1')
    assert.equal(session.origin.user, 'ada')
    assert.equal(session.origin.host, 'laptop-1')
  })
})

describe('Listing filters by origin and labels', () => {
  it('Should filter by user, host, repo, agent and label, combined with state and source', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('claude-code/real-todowrite.json')
    await ingest(t, 'claude-code', hooks[0], '', HEADERS)
    await ingest(t, 'claude-code', hooks[1])
    await t.call(
      'POST',
      '/v1/sessions/r1/rounds',
      { tool_calls: [todo(five)], labels: { team: 'payments' } },
      { 'X-Agent-User': 'grace', 'X-Agent-Host': 'laptop-1', 'X-Agent-Repo': 'acme/web' }
    )
    await round(t, 'r2', [todo(five)], { labels: { team: 'core' } })
    const ids = async (query: string) => {
      const res = await t.call('GET', `/v1/sessions${query}`)
      assert.equal(res.status, 200, `${query}: ${res.text}`)
      return res.body.sessions.map((s: { session_id: string }) => s.session_id).sort()
    }
    const claude = `claude:${hooks[0].session_id}`
    assert.deepEqual(await ids('?user=ada'), [claude])
    assert.deepEqual(await ids('?host=laptop-1'), [claude, 'r1'])
    assert.deepEqual(await ids('?repo=https://github.com/acme/api.git'), [claude])
    // a repo asked for with credentials finds the stored one without them
    assert.deepEqual(
      await ids(`?repo=${encodeURIComponent('https://u:p@github.com/acme/api.git')}`),
      [claude]
    )
    assert.deepEqual(await ids('?agent=claude-code'), [claude])
    assert.deepEqual(await ids('?label.team=payments'), ['r1'])
    assert.deepEqual(await ids('?label.team=payments&host=laptop-1&source=rounds'), ['r1'])
    assert.deepEqual(await ids('?label.team=payments&source=claude-code'), [])
    assert.deepEqual(await ids('?host=laptop-1&state=active'), [claude, 'r1'])
    assert.deepEqual(await ids('?host=laptop-1&state=done'), [])
    assert.deepEqual(await ids('?label.team=payments&label.team=core'), [])
    assert.deepEqual(await ids('?label.missing=x'), [])
    const bad = await t.call('GET', '/v1/sessions?label.Bad=x')
    assert.equal(bad.status, 400)
    assert.equal(bad.body.errors[0].pointer, '/query/label.Bad')
  })
})
