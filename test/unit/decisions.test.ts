/**
 * Decisions (SPEC "Decisions"): a `?decide=1` hook holds its request open, a person answers it
 * through `POST /v1/sessions/{id}/decisions`, and the hook replies the agent's own output. The
 * attacker's view: another person's key, a viewer, another tenant, a second answer, an expired
 * request, open access without DECISIONS_OPEN.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, ingest } from '../ingest-support.js'
import {
  answer,
  bearer,
  claudeSession,
  heldHook,
  makeDecisionApp,
  pendingOf,
  permissionInput,
} from '../decision-support.js'

const ALLOW = {
  hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
}

describe('Decisions: a held Claude Code PermissionRequest', () => {
  it('Should show the pending request in the view and the listing, and reply allow', async () => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    assert.equal(request.kind, 'permission')
    assert.equal(request.tool, 'Bash')
    assert.deepEqual(request.input, permissionInput.tool_input)
    assert.equal(request.channel, 'claude-code')
    assert.deepEqual(
      request.options.map((o: any) => [o.id, o.kind]),
      [
        ['allow_once', 'allow_once'],
        ['deny', 'deny'],
      ]
    )
    assert.equal(request.match, undefined)
    const listed = await t.call('GET', '/v1/sessions?state=waiting', undefined, bearer('alice'))
    assert.equal(listed.body.sessions[0].waiting.request.id, request.id)
    const res = await answer(t, claudeSession, { request_id: request.id, option_id: 'allow_once' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(
      { ...res.body, at: undefined },
      { request_id: request.id, outcome: 'allowed', by: 'alice@acme.dev', at: undefined }
    )
    const held = await reply
    assert.equal(held.status, 200)
    assert.deepEqual(held.body, ALLOW)
    const view = (await t.call('GET', `/v1/sessions/${claudeSession}`, undefined, bearer('alice')))
      .body
    assert.equal(view.waiting, null)
    assert.equal(view.observed.last_decision.outcome, 'allowed')
    assert.equal(view.observed.last_decision.channel, 'api')
    const history = await t.call(
      'GET',
      `/v1/sessions/${claudeSession}/history`,
      undefined,
      bearer('alice')
    )
    assert.equal(history.body.entries.at(-1).source, 'decision')
  })

  it('Should hand a deny message to the model verbatim', async () => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const message = 'Denied from the agent-todos dashboard by alice: not on main'
    const res = await answer(t, claudeSession, {
      request_id: request.id,
      decision: 'deny',
      message,
    })
    assert.equal(res.body.outcome, 'denied')
    assert.deepEqual((await reply).body, {
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message },
      },
    })
  })

  it('Should answer AskUserQuestion through updatedInput.answers', async () => {
    const t = makeDecisionApp()
    const capture = fixtureJson('claude-code/real-ask-user-question.json')
    const session = `claude:${capture.hook_input.session_id}`
    const { reply, request } = await heldHook(t, 'claude-code', capture.hook_input, session)
    assert.equal(request.kind, 'question')
    const json = request.options.find((o: any) => o.label === 'JSON')
    await answer(t, session, { request_id: request.id, option_id: json.id })
    assert.deepEqual((await reply).body, capture.hook_output)
  })

  it('Should answer an Elicitation with action and content', async () => {
    const t = makeDecisionApp()
    const capture = fixtureJson('claude-code/real-elicitation.json')
    const session = `claude:${capture.elicitation_hook_input.session_id}`
    const { reply, request } = await heldHook(
      t,
      'claude-code',
      capture.elicitation_hook_input,
      session
    )
    assert.equal(request.kind, 'elicitation')
    assert.equal(request.tool, 'deployer')
    await answer(t, session, { request_id: request.id, answers: { env: 'staging' } })
    assert.deepEqual((await reply).body, capture.elicitation_hook_output)
  })

  it('Should end the request answered_elsewhere when the call ran (answered at the terminal)', async () => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const post = {
      ...permissionInput,
      hook_event_name: 'PostToolUse',
      tool_use_id: 'toolu_1',
      tool_response: { stdout: '' },
    }
    delete (post as Record<string, unknown>).permission_suggestions
    const res = await ingest(t, 'claude-code', post, '', bearer('alice'))
    assert.equal(res.status, 200)
    assert.deepEqual((await reply).body, {})
    const late = await answer(t, claudeSession, { request_id: request.id, decision: 'allow' })
    assert.equal(late.status, 409)
    assert.equal(late.body.type.endsWith('/decision-already-made'), true)
    const view = (await t.call('GET', `/v1/sessions/${claudeSession}`, undefined, bearer('alice')))
      .body
    assert.equal(view.waiting, null)
    assert.equal(view.observed.last_decision.outcome, 'answered_elsewhere')
  })

  it('Should keep the request through a PreToolUse that arrives after it (parallel hooks)', async () => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const pre = { ...permissionInput, hook_event_name: 'PreToolUse', tool_use_id: 'toolu_1' }
    await ingest(t, 'claude-code', pre, '', bearer('alice'))
    const still = await pendingOf(t, claudeSession)
    assert.equal(still.id, request.id)
    await answer(t, claudeSession, { request_id: request.id, decision: 'allow' })
    assert.deepEqual((await reply).body, ALLOW)
  })

  it('Should end the request answered_elsewhere on Interrupt (denied at the terminal)', async () => {
    const t = makeDecisionApp()
    const { reply } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const interrupt = {
      ...fixtureJson('claude-code/real-2.1.337-interrupt-esc.json')[0],
      session_id: permissionInput.session_id,
    }
    await ingest(t, 'claude-code', interrupt, '', bearer('alice'))
    assert.deepEqual((await reply).body, {})
    const view = (await t.call('GET', `/v1/sessions/${claudeSession}`, undefined, bearer('alice')))
      .body
    assert.equal(view.waiting.reason, 'interrupted')
    assert.equal(view.observed.last_decision.outcome, 'answered_elsewhere')
  })
})

describe('Decisions: who may answer', () => {
  const refused = async (
    key: 'bob' | 'viewer' | 'other' | 'shared',
    status: number,
    code: string
  ) => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const res = await answer(t, claudeSession, { request_id: request.id, decision: 'allow' }, key)
    assert.equal(res.status, status, res.text)
    assert.ok(res.body.type.endsWith(`/${code}`), res.body.type)
    // the request is still pending: the session's own person answers it
    assert.equal((await pendingOf(t, claudeSession)).id, request.id)
    await answer(t, claudeSession, { request_id: request.id, decision: 'deny' })
    assert.equal((await reply).body.hookSpecificOutput.decision.behavior, 'deny')
  }

  it("Should refuse another person's key (403)", () => refused('bob', 403, 'decision-not-allowed'))
  it('Should refuse a viewer, even of the same person (403)', () =>
    refused('viewer', 403, 'forbidden'))
  it('Should refuse a key without a person (403)', () =>
    refused('shared', 403, 'decision-not-allowed'))
  it("Should not show another tenant's session (404)", () =>
    refused('other', 404, 'session-not-found'))

  it('Should let an admin answer', async () => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const res = await answer(
      t,
      claudeSession,
      { request_id: request.id, decision: 'allow' },
      'admin'
    )
    assert.equal(res.status, 200)
    assert.equal(res.body.by, 'root@acme.dev')
    assert.deepEqual((await reply).body, ALLOW)
  })

  it('Should record the answer in the tenant audit trail (GET /v1/audit)', async () => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    await answer(t, claudeSession, { request_id: request.id, decision: 'deny' })
    await reply
    const audit = await t.call('GET', '/v1/audit?action=session.decide', undefined, bearer('admin'))
    assert.equal(audit.status, 200, audit.text)
    const [entry] = audit.body.entries
    assert.equal(entry.user, 'alice@acme.dev')
    assert.equal(entry.via, 'key')
    assert.equal(entry.target, claudeSession)
    assert.equal(entry.detail.request_id, request.id)
    assert.equal(entry.detail.outcome, 'denied')
  })

  it('Should refuse everyone but an admin when the session’s person came from a header only', async () => {
    const t = makeDecisionApp()
    const reply = ingest(t, 'claude-code', permissionInput, '?decide=1', {
      ...bearer('shared'),
      'X-Agent-User': 'alice@acme.dev',
    })
    const request = await pendingOf(t, claudeSession)
    const res = await answer(t, claudeSession, { request_id: request.id, decision: 'allow' })
    assert.equal(res.status, 403)
    const state = await t.call(
      'GET',
      `/v1/sessions/${claudeSession}/decisions`,
      undefined,
      bearer('alice')
    )
    assert.equal(state.body.can_answer, false)
    await answer(t, claudeSession, { request_id: request.id, decision: 'allow' }, 'admin')
    assert.deepEqual((await reply).body, ALLOW)
  })

  it('Should say who may answer (GET …/decisions can_answer)', async () => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const state = async (key: 'alice' | 'bob' | 'viewer' | 'admin') =>
      (await t.call('GET', `/v1/sessions/${claudeSession}/decisions`, undefined, bearer(key))).body
    assert.equal((await state('alice')).request.id, request.id)
    assert.equal((await state('alice')).can_answer, true)
    assert.equal((await state('admin')).can_answer, true)
    assert.equal((await state('bob')).can_answer, false)
    assert.equal((await state('viewer')).can_answer, false)
    await answer(t, claudeSession, { request_id: request.id, decision: 'allow' })
    await reply
    const after = await state('alice')
    assert.equal(after.request, null)
    assert.equal(after.last_decision.outcome, 'allowed')
  })

  it('Should take the first answer only (a second is 409)', async () => {
    const t = makeDecisionApp()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const [a, b] = await Promise.all([
      answer(t, claudeSession, { request_id: request.id, decision: 'allow' }),
      answer(t, claudeSession, { request_id: request.id, decision: 'deny' }, 'admin'),
    ])
    assert.deepEqual([a.status, b.status].sort(), [200, 409])
    const winner = a.status === 200 ? 'allow' : 'deny'
    assert.equal((await reply).body.hookSpecificOutput.decision.behavior, winner)
  })

  it('Should answer 404 for an unknown request and 410 for an expired one', async () => {
    const t = makeDecisionApp({ decisions: { waitMs: 40, holdMs: 40, open: false } })
    const reply = ingest(t, 'claude-code', permissionInput, '?decide=1', bearer('alice'))
    assert.deepEqual((await reply).body, {})
    const state = await t.call(
      'GET',
      `/v1/sessions/${claudeSession}/decisions`,
      undefined,
      bearer('alice')
    )
    assert.equal(state.body.request, null)
    assert.equal(state.body.last_decision.outcome, 'expired')
    const gone = await answer(t, claudeSession, {
      request_id: state.body.last_decision.request_id,
      decision: 'allow',
    })
    assert.equal(gone.status, 410)
    assert.ok(gone.body.type.endsWith('/decision-expired'))
    const view = (await t.call('GET', `/v1/sessions/${claudeSession}`, undefined, bearer('alice')))
      .body
    // the agent asks at its own prompt now: still a wait, without the request
    assert.equal(view.waiting.reason, 'permission_prompt')
    assert.equal(view.waiting.request, undefined)
    const unknown = await answer(t, claudeSession, { request_id: 'dr_nope', decision: 'allow' })
    assert.equal(unknown.status, 404)
    assert.ok(unknown.body.type.endsWith('/decision-not-found'))
  })

  it('Should refuse open access without DECISIONS_OPEN, and from elsewhere than loopback', async () => {
    for (const [open, loopback, status] of [
      [false, true, 403],
      [true, false, 403],
      [true, true, 200],
    ] as const) {
      const t = makeTestApp({ decisions: { waitMs: 30_000, holdMs: 30_000, open } })
      const reply = ingest(t, 'claude-code', permissionInput, '?decide=1')
      const request = await pendingOf(t, claudeSession)
      const env = { incoming: { socket: { remoteAddress: loopback ? '127.0.0.1' : '10.1.2.3' } } }
      const res = await t.app.request(
        `/v1/sessions/${claudeSession}/decisions`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ request_id: request.id, decision: 'deny' }),
        },
        env
      )
      assert.equal(res.status, status, `open ${open}, loopback ${loopback}`)
      if (status !== 200) {
        // let the hold end: an admin does not exist here, so expire it through the terminal
        await ingest(t, 'claude-code', { ...permissionInput, hook_event_name: 'Stop' })
      }
      await reply
    }
  })
})

describe('Decisions: the other agents’ decision points (a short hold)', () => {
  const cases = [
    {
      route: 'copilot',
      file: 'copilot/real-decide-permission-request.json',
      session: (hook: any) => `copilot:${hook.sessionId}`,
      allow: { behavior: 'allow' },
      deny: (message: string) => ({ behavior: 'deny', message }),
    },
    {
      route: 'qwen-code',
      file: 'qwen-code/real-decide-permission-request.json',
      session: (hook: any) => `qwen:${hook.session_id}`,
      allow: ALLOW,
      deny: (message: string) => ({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message },
        },
      }),
    },
    {
      route: 'codex',
      file: 'codex/real-decide-permission-request.json',
      session: (hook: any) => `codex:${hook.session_id}`,
      allow: ALLOW,
      deny: (message: string) => ({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message },
        },
      }),
    },
  ]
  for (const c of cases) {
    it(`Should reply ${c.route}'s allow and deny`, async () => {
      const hook = fixtureJson(c.file)
      const session = c.session(hook)
      for (const verdict of ['allow', 'deny'] as const) {
        const t = makeDecisionApp()
        const { reply, request } = await heldHook(t, c.route, hook, session)
        assert.equal(request.channel, c.route)
        const res = await answer(t, session, {
          request_id: request.id,
          decision: verdict,
          message: 'no',
        })
        assert.equal(res.status, 200, res.text)
        assert.deepEqual((await reply).body, verdict === 'allow' ? c.allow : c.deny('no'))
      }
    })

    it(`Should hold ${c.route} only DECISION_HOLD_SECONDS, then reply {}`, async () => {
      const t = makeDecisionApp({ decisions: { waitMs: 60_000, holdMs: 30, open: false } })
      const res = await ingest(t, c.route, fixtureJson(c.file), '?decide=1', bearer('alice'))
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, {})
    })
  }

  it('Should not hold a hook posted without ?decide=1', async () => {
    const t = makeDecisionApp()
    const res = await ingest(t, 'claude-code', permissionInput, '', bearer('alice'))
    assert.deepEqual(res.body, {})
    const view = (await t.call('GET', `/v1/sessions/${claudeSession}`, undefined, bearer('alice')))
      .body
    assert.equal(view.waiting.reason, 'permission_prompt')
    assert.equal(view.waiting.request, undefined)
  })
})
