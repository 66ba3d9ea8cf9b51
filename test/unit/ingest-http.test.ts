import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseAuthKeys } from '../../src/http/auth.js'
import { generateOpenApi } from '../../src/http/openapi.js'
import { makeTestApp, round } from '../helpers.js'
import {
  fixtureJson,
  fixtureLines,
  fixtureText,
  historyRows,
  ingest,
  view,
} from '../ingest-support.js'
import { sseReader } from '../sse.js'

const AGENT = 'agent-key-0123456789'
const VIEWER = 'viewer-key-0123456789'
const OTHER = 'other-key-0123456789'
const keys = parseAuthKeys(`acme:agent:${AGENT},acme:viewer:${VIEWER},globex:agent:${OTHER}`)
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` })

const TODO_HOOK = fixtureJson('claude-code/todowrite.hooks.json')[3]
const HOOK_SESSION = `claude:${TODO_HOOK.session_id}`

const problemType = (slug: string) => `https://agent-todos.dev/problems/${slug}`

describe('Ingest: bodies that are not the agent’s format', () => {
  it('Should answer 400 and apply nothing of a body with one bad part', async () => {
    const t = makeTestApp()
    const cases: [string, unknown, string][] = [
      ['claude-code', [TODO_HOOK], 'invalid-ingest-body'],
      ['claude-code', { ...TODO_HOOK, session_id: undefined }, 'invalid-ingest-body'],
      ['claude-code', { ...TODO_HOOK, hook_event_name: 7 }, 'invalid-ingest-body'],
      ['claude-code', 'not json at all', 'invalid-ingest-body'],
      [
        'claude-agent-sdk',
        [{ type: 'system', subtype: 'init', session_id: 's' }, 'text'],
        'invalid-ingest-body',
      ],
      ['codex', '{"type":"thread.started","thread_id":"t1"}\n{"no":"type"}', 'invalid-ingest-body'],
      ['gemini-cli', '{"type":"init","session_id":"g1"}\n{"type":', 'invalid-ingest-body'],
      ['codex', '', 'invalid-ingest-body'],
    ]
    for (const [route, body, slug] of cases) {
      const res = await ingest(t, route, body)
      assert.equal(res.status, 400, `${route} ${JSON.stringify(body)}`)
      assert.equal(res.headers.get('content-type'), 'application/problem+json')
      assert.equal(res.body.type, problemType(slug))
    }
    const partial = await ingest(t, 'claude-agent-sdk', [
      ...fixtureLines('claude-agent-sdk/todowrite.ndjson').map((line) => JSON.parse(line)),
      42,
    ])
    assert.equal(partial.status, 400)
    assert.deepEqual(partial.body.errors, [
      { pointer: '/14', detail: 'Message 14 is not an Agent SDK message (an object with a type).' },
    ])
    const line = await ingest(t, 'gemini-cli', '{"type":"init","session_id":"g1"}\n{"type":')
    assert.equal(line.body.errors[0].pointer, '/lines/1')
    assert.equal((await t.call('GET', '/v1/sessions')).body.sessions.length, 0)
  })

  it('Should refuse a body nested deeper than 512 levels, and a session id the pattern does not allow', async () => {
    const t = makeTestApp()
    const deep = '['.repeat(600) + ']'.repeat(600)
    const res = await ingest(t, 'claude-agent-sdk', deep)
    assert.equal(res.status, 400)
    assert.match(res.body.detail, /more than 512 levels/)
    const longId = await ingest(t, 'claude-code', { ...TODO_HOOK, session_id: 'x'.repeat(200) })
    assert.equal(longId.status, 400)
    assert.equal(longId.body.type, problemType('invalid-session-id'))
    const slash = await ingest(t, 'claude-code', { ...TODO_HOOK, session_id: 'a/b' })
    assert.equal(slash.status, 400)
    const query = await ingest(t, 'claude-code', TODO_HOOK, '?session_id=bad%20id')
    assert.equal(query.status, 400)
    assert.equal(query.body.errors[0].pointer, '/query/session_id')
  })

  it('Should name the session with ?session_id=, subagent lists below it', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('claude-code/subagent.hooks.json')
    for (const hook of hooks) await ingest(t, 'claude-code', hook, '?session_id=ci-7')
    const main = await view(t, 'ci-7')
    assert.deepEqual(main.observed.subagents, ['ci-7:agent:a3ad0f60fd2fb066f'])
    assert.equal((await view(t, 'ci-7:agent:a3ad0f60fd2fb066f')).parent, 'ci-7')
  })
})

describe('Ingest: the /v1 rules', () => {
  it('Should need a key, refuse viewers, and keep tenants apart', async () => {
    const t = makeTestApp({ keys })
    assert.equal((await ingest(t, 'claude-code', TODO_HOOK)).status, 401)
    assert.equal((await ingest(t, 'claude-code', TODO_HOOK, '', bearer(VIEWER))).status, 403)
    const ok = await ingest(t, 'claude-code', TODO_HOOK, '', bearer(AGENT))
    assert.equal(ok.status, 200)
    assert.equal(
      (await t.call('GET', `/v1/sessions/${HOOK_SESSION}`, undefined, bearer(AGENT))).status,
      200
    )
    assert.equal(
      (await t.call('GET', `/v1/sessions/${HOOK_SESSION}`, undefined, bearer(OTHER))).status,
      404
    )
  })

  it('Should answer 413 past the body limit and 429 past the rate limit', async () => {
    const small = makeTestApp({ bodyLimitBytes: 2048 })
    const big = await ingest(
      small,
      'claude-agent-sdk',
      fixtureText('claude-agent-sdk/todowrite.ndjson')
    )
    assert.equal(big.status, 413)
    const limited = makeTestApp({ keys, rateLimitPerMinute: 2 })
    for (let i = 0; i < 2; i++) {
      assert.equal((await ingest(limited, 'claude-code', TODO_HOOK, '', bearer(AGENT))).status, 200)
    }
    const res = await ingest(limited, 'claude-code', TODO_HOOK, '', bearer(AGENT))
    assert.equal(res.status, 429)
  })

  it('Should count ingest_events_total by source and kind', async () => {
    const t = makeTestApp()
    await ingest(t, 'claude-code', TODO_HOOK)
    await ingest(t, 'codex', fixtureText('codex/exec.jsonl'))
    const metrics = (await t.call('GET', '/metrics')).text
    assert.match(
      metrics,
      /agent_todos_ingest_events_total\{source="claude-code",kind="tool_result"\} 1/
    )
    assert.match(metrics, /agent_todos_ingest_events_total\{source="codex",kind="tool_result"\} 4/)
    assert.match(metrics, /agent_todos_ingest_events_total\{source="codex",kind="session_end"\} 1/)
  })

  it('Should document every ingest route in the OpenAPI document', async () => {
    const doc = JSON.parse(await generateOpenApi())
    for (const path of [
      '/v1/ingest/claude-code',
      '/v1/ingest/claude-agent-sdk',
      '/v1/ingest/codex',
      '/v1/ingest/gemini-cli',
      '/v1/ingest/openhands/events/{conversation_id}',
      '/v1/ingest/openhands/conversations',
    ]) {
      assert.ok(doc.paths[path]?.post, path)
      assert.ok(doc.paths[path].post.requestBody.content['application/json'], path)
    }
    assert.ok(doc.paths['/v1/ingest/codex'].post.requestBody.content['application/x-ndjson'])
    assert.deepEqual(Object.keys(doc.components.schemas.IngestReply.properties), [
      'session_id',
      'version',
      'applied',
      'ignored',
    ])
    assert.ok(doc.components.schemas.SessionView.properties.source)
  })
})

describe('Ingest: observed sessions among the others', () => {
  it('Should list by source, and say the source in every view', async () => {
    const t = makeTestApp()
    await round(t, 'loop-1', [
      { name: 'todo', input: { items: [{ id: '1', text: 'a', status: 'pending' }] } },
    ])
    await ingest(t, 'claude-code', TODO_HOOK)
    await ingest(t, 'codex', fixtureText('codex/exec.jsonl'))
    const sources = async (query: string) =>
      (await t.call('GET', `/v1/sessions${query}`)).body.sessions.map((s: any) => [
        s.session_id,
        s.source,
      ])
    assert.deepEqual(await sources('?source=rounds'), [['loop-1', 'rounds']])
    assert.deepEqual(await sources('?source=claude-code'), [[HOOK_SESSION, 'claude-code']])
    assert.deepEqual((await sources('?source=codex')).length, 1)
    assert.equal((await sources('')).length, 3)
    assert.equal((await t.call('GET', '/v1/sessions?source=nope')).status, 400)
    const loop = await view(t, 'loop-1')
    assert.equal(loop.source, 'rounds')
    assert.equal(loop.observed, null)
    assert.equal(loop.waiting, null)
  })

  it('Should refuse to mix an agent’s events into a session fed by rounds', async () => {
    const t = makeTestApp()
    await round(t, 'loop-1', [
      { name: 'todo', input: { items: [{ id: '1', text: 'a', status: 'pending' }] } },
    ])
    const res = await ingest(t, 'claude-code', TODO_HOOK, '?session_id=loop-1')
    assert.equal(res.status, 409)
    assert.equal(res.body.type, problemType('not-observed'))
    assert.equal((await view(t, 'loop-1')).version, 1)
  })

  it('Should refuse PUT on an observed Gemini or OpenHands session with 409', async () => {
    const t = makeTestApp()
    const g = await ingest(t, 'gemini-cli', fixtureText('gemini-cli/stream.ndjson'))
    const o = await ingest(
      t,
      'openhands/events/3458dce407074113961b51ee95851d0c',
      fixtureJson('openhands/batch-1.json')
    )
    for (const id of [g.body.session_id, o.body.session_id]) {
      const res = await t.call('PUT', `/v1/sessions/${id}/todos`, {
        items: [{ id: '1', content: 'x', status: 'pending' }],
      })
      assert.equal(res.status, 409)
      assert.equal(res.body.type, problemType('agent-owns-list'))
      // the view says so before anyone tries
      assert.equal((await view(t, id)).editable, false)
    }
    await ingest(t, 'claude-code', TODO_HOOK)
    assert.equal((await view(t, HOOK_SESSION)).editable, true)
  })

  it('Should refuse PUT on a Claude session no hook feeds, and take it once a hook does', async () => {
    const t = makeTestApp()
    const stream = fixtureText('claude-agent-sdk/todowrite.ndjson')
    const fed = await ingest(t, 'claude-agent-sdk', stream)
    const id = fed.body.session_id
    const edit = { items: [{ id: '1', content: 'x', status: 'pending' }] }
    // only a PostToolUse hook reply can hand the edit to the model: it would wait forever
    assert.equal((await view(t, id)).editable, false)
    const refused = await t.call('PUT', `/v1/sessions/${id}/todos`, edit)
    assert.equal(refused.status, 409)
    assert.equal(refused.body.type, problemType('agent-owns-list'))
    assert.match(refused.body.detail, /no Claude Code hook feeds this session/)
    const before = await view(t, id)
    // a hook of the same session: edits can reach the model now, and the list is not versioned
    const hook = { ...TODO_HOOK, session_id: id.slice('claude:'.length), tool_use_id: 'toolu_h1' }
    await ingest(t, 'claude-code', hook)
    const after = await view(t, id)
    assert.equal(after.editable, true)
    assert.equal(after.source, 'claude-agent-sdk')
    const put = await t.call('PUT', `/v1/sessions/${id}/todos`, edit)
    assert.equal(put.status, 200)
    assert.deepEqual(
      put.body.observed.pending_edit.items.map((item: any) => [item.id, item.content, item.status]),
      [['1', 'x', 'pending']]
    )
    assert.ok(after.version >= before.version)
  })

  it('Should stream observed changes as updates with their source, once per version', async () => {
    const t = makeTestApp()
    const hooks = fixtureJson('claude-code/todowrite.hooks.json')
    await ingest(t, 'claude-code', hooks[0])
    const res = await t.app.request(`/v1/sessions/${HOOK_SESSION}/events`)
    const sse = sseReader(res.body!)
    const snapshot = await sse.nextEvent()
    assert.equal(snapshot?.event, 'snapshot')
    assert.equal(JSON.parse(snapshot.data!).source, 'claude-code')
    for (const hook of hooks.slice(1, 5)) await ingest(t, 'claude-code', hook)
    const update = await sse.nextEvent()
    assert.deepEqual([update?.event, update?.id], ['update', '2'])
    const data = JSON.parse(update!.data!)
    assert.equal(data.items.length, 3)
    assert.equal(data.source, 'claude-code')
    await sse.cancel()
  })

  it('Should keep reminders off for observed sessions', async () => {
    const t = makeTestApp()
    await ingest(t, 'codex', fixtureText('codex/exec.jsonl'))
    const session = await view(t, 'codex:0199a213-81c0-7800-8aa1-bbab2a035a53')
    assert.deepEqual(session.settings, { reminder: false })
    assert.equal(session.reminder_due, false)
    assert.equal(session.round, 0)
  })
})

describe('Ingest: a stream posted whole or line by line', () => {
  /** The lists of a history, oldest first, lifecycle-only versions (same list) folded. */
  const lists = async (t: ReturnType<typeof makeTestApp>, id: string) => {
    const out: unknown[][] = []
    for (const [, , list] of await historyRows(t, id)) {
      if (list.length && JSON.stringify(out.at(-1)) !== JSON.stringify(list)) out.push(list)
    }
    return out
  }
  const streams: [string, string, string?][] = [
    ['claude-agent-sdk', 'claude-agent-sdk/real-todowrite.ndjson'],
    ['claude-agent-sdk', 'claude-agent-sdk/real-tasks.ndjson'],
    ['codex', 'codex/real-plan.ndjson', '?session_id=codex-batch'],
    ['gemini-cli', 'gemini-cli/real-todos.ndjson', '?session_id=gemini-batch'],
  ]
  for (const [source, fixture, query = ''] of streams)
    it(`Should keep every list of ${fixture} in the history, however the lines are batched`, async () => {
      const lines = fixtureLines(fixture)
      const whole = makeTestApp()
      const one = await ingest(whole, source, lines.join('\n') + '\n', query)
      assert.equal(one.status, 200, one.text)
      const each = makeTestApp()
      for (const line of lines) {
        const res = await ingest(each, source, line + '\n', query)
        assert.equal(res.status, 200, res.text)
        assert.equal(res.body.session_id, one.body.session_id)
      }
      const id = one.body.session_id
      const byLine = await lists(each, id)
      assert.ok(byLine.length > 2, 'several lists')
      assert.deepEqual(await lists(whole, id), byLine)
      assert.deepEqual((await view(whole, id)).items, (await view(each, id)).items)
    })
})

describe('Ingest: an observed session is the agent’s', () => {
  it('Should refuse a round on an observed session with 409, changing nothing', async () => {
    const t = makeTestApp()
    const hook = {
      session_id: 'obs-1',
      hook_event_name: 'PostToolUse',
      tool_name: 'TodoWrite',
      tool_use_id: 'toolu_obs_1',
      tool_input: { todos: [{ content: 'a', status: 'pending', activeForm: 'Doing a' }] },
      tool_response: {
        oldTodos: [],
        newTodos: [{ content: 'a', status: 'pending', activeForm: 'Doing a' }],
      },
    }
    assert.equal((await t.call('POST', '/v1/ingest/claude-code', hook)).status, 200)
    const before = await t.call('GET', '/v1/sessions/claude:obs-1')
    assert.equal(before.status, 200)
    const refused = await t.call('POST', '/v1/sessions/claude:obs-1/rounds', {
      tool_calls: [{ name: 'bash' }],
    })
    assert.equal(refused.status, 409)
    assert.match(refused.body.detail, /observed/)
    const after = await t.call('GET', '/v1/sessions/claude:obs-1')
    assert.equal(after.body.version, before.body.version)
  })
})
