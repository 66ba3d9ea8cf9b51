/**
 * Slack (docs/decisions.md "Slack"): a click on an alert's Allow / Deny button, posted to
 * `/v1/integrations/slack/interactions` and verified by Slack's signature; the Slack user becomes
 * a person by their email (`users.info` on a local stand-in for Slack's Web API) and answers
 * under the API's rules; the message is updated through its `response_url` (a local stand-in).
 * The attacker's view: a forged signature or an old timestamp is a 401; a Slack user whose email
 * is not the session's person answers nothing.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { slackBody } from '../../src/alerts/formats.js'
import { eventually } from '../eventually.js'
import type { TestApp } from '../helpers.js'
import {
  claudeSession,
  heldHook,
  makeDecisionApp,
  pendingOf,
  permissionInput,
} from '../decision-support.js'

const SECRET = 'slack-signing-secret-1'
const EMAILS: Record<string, string> = { U0ALICE: 'alice@acme.dev', U0BOB: 'bob@acme.dev' }

/** A local http server on 127.0.0.1 recording each POST body; `answer` replies. */
async function standIn(answer: (path: string, body: string) => unknown) {
  const posts: { path: string; body: string }[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      posts.push({ path: req.url ?? '', body })
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(answer(req.url ?? '', body)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    posts,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const slackApi = await standIn((path, body) => {
  if (!path.startsWith('/users.info')) return { ok: false, error: 'unknown_method' }
  const user = new URLSearchParams(body).get('user') ?? ''
  return EMAILS[user]
    ? { ok: true, user: { id: user, profile: { email: EMAILS[user] } } }
    : { ok: false, error: 'user_not_found' }
})
const responses = await standIn(() => ({ ok: true }))

after(async () => {
  await slackApi.close()
  await responses.close()
})

const app = () =>
  makeDecisionApp({
    decisions: {
      waitMs: 30_000,
      holdMs: 30_000,
      open: false,
      slack: { signingSecret: SECRET, botToken: 'xoxb-test-token', apiUrl: slackApi.url },
    },
  })

/** A click's form body, signed as Slack signs it (or with another secret, or at another time). */
function click(
  t: TestApp,
  options: { user: string; action: 'decide_allow' | 'decide_deny'; request: string },
  signing: { secret?: string; ageSeconds?: number } = {}
) {
  const value = JSON.stringify({ t: 'acme', s: claudeSession, r: options.request })
  const payload = {
    type: 'block_actions',
    user: { id: options.user, username: options.user },
    actions: [{ type: 'button', action_id: options.action, value }],
    response_url: `${responses.url}/actions/${options.user}`,
  }
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`
  const ts = Math.floor(t.clock.now / 1000) - (signing.ageSeconds ?? 0)
  const signature =
    'v0=' +
    createHmac('sha256', signing.secret ?? SECRET)
      .update(`v0:${ts}:${body}`)
      .digest('hex')
  return t.app.request('/v1/integrations/slack/interactions', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-signature': signature,
      'x-slack-request-timestamp': String(ts),
    },
    body,
  })
}

const responseTo = (user: string) =>
  responses.posts.filter((p) => p.path === `/actions/${user}`).map((p) => JSON.parse(p.body))

describe('Slack interactions', () => {
  it('Should answer the session’s own person’s click and update the message', async () => {
    const t = app()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const res = await click(t, { user: 'U0ALICE', action: 'decide_allow', request: request.id })
    assert.equal(res.status, 200)
    assert.equal((await reply).body.hookSpecificOutput.decision.behavior, 'allow')
    assert.ok(await eventually(() => responseTo('U0ALICE').length === 1))
    const update = responseTo('U0ALICE')[0]
    assert.equal(update.replace_original, true)
    assert.match(update.text, /^Allowed by alice@acme\.dev/)
    const state = await t.call('GET', `/v1/sessions/${claudeSession}/decisions`, undefined, {
      Authorization: 'Bearer alice-key-0001',
    })
    assert.equal(state.body.last_decision.channel, 'slack')
    assert.equal(state.body.last_decision.by, 'alice@acme.dev')
    const lookups = slackApi.posts.filter((p) => p.path.startsWith('/users.info'))
    assert.ok(lookups.length >= 1)
  })

  it('Should refuse a forged signature and an old timestamp (401), answering nothing', async () => {
    const t = app()
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const forged = await click(
      t,
      { user: 'U0ALICE', action: 'decide_allow', request: request.id },
      { secret: 'not-the-secret' }
    )
    assert.equal(forged.status, 401)
    assert.match(((await forged.json()) as { type: string }).type, /\/slack-signature$/)
    const old = await click(
      t,
      { user: 'U0ALICE', action: 'decide_allow', request: request.id },
      { ageSeconds: 6 * 60 }
    )
    assert.equal(old.status, 401)
    assert.equal((await pendingOf(t, claudeSession)).id, request.id)
    // the person answers: the hold ends
    await click(t, { user: 'U0ALICE', action: 'decide_deny', request: request.id })
    assert.equal((await reply).body.hookSpecificOutput.decision.behavior, 'deny')
  })

  it('Should refuse a Slack user whose email is not the session’s person', async () => {
    const t = app()
    const before = responseTo('U0BOB').length
    const { reply, request } = await heldHook(t, 'claude-code', permissionInput, claudeSession)
    const res = await click(t, { user: 'U0BOB', action: 'decide_allow', request: request.id })
    assert.equal(res.status, 200)
    assert.ok(await eventually(() => responseTo('U0BOB').length === before + 1))
    const told = responseTo('U0BOB').at(-1)
    assert.equal(told.response_type, 'ephemeral')
    assert.equal(told.replace_original, false)
    assert.equal((await pendingOf(t, claudeSession)).id, request.id)
    // an unknown Slack user is refused too
    await click(t, { user: 'U0EVE', action: 'decide_allow', request: request.id })
    assert.ok(await eventually(() => responseTo('U0EVE').length === 1))
    assert.equal((await pendingOf(t, claudeSession)).id, request.id)
    await click(t, { user: 'U0ALICE', action: 'decide_deny', request: request.id })
    assert.equal((await reply).body.hookSpecificOutput.decision.behavior, 'deny')
  })

  it('Should be off (404) without SLACK_SIGNING_SECRET', async () => {
    const t = makeDecisionApp()
    const res = await click(t, { user: 'U0ALICE', action: 'decide_allow', request: 'dr_x' })
    assert.equal(res.status, 404)
  })
})

describe('Slack waiting alerts with buttons', () => {
  it('Should carry Allow once / Deny buttons naming the request, every value escaped', () => {
    const body = JSON.parse(
      slackBody({
        type: 'session.waiting',
        at: 0,
        session: { session_id: 'claude:<!channel>', origin: { agent: 'claude-code' } },
        waiting: { reason: 'permission_prompt' },
        url: null,
        slackDecision: {
          tenant: 'acme',
          session_id: 'claude:<!channel>',
          request_id: 'dr_1',
          tool: '<@U0ALL> & Bash',
        },
      })
    )
    assert.ok(!body.text.includes('<!channel>'))
    const [section, context, actions] = body.blocks
    assert.equal(section.text.text, body.text)
    assert.equal(context.elements[0].text, 'Asks to use *&lt;@U0ALL&gt; &amp; Bash*')
    assert.deepEqual(
      actions.elements.map((b: any) => [b.action_id, b.style, JSON.parse(b.value)]),
      [
        ['decide_allow', 'primary', { t: 'acme', s: 'claude:<!channel>', r: 'dr_1' }],
        ['decide_deny', 'danger', { t: 'acme', s: 'claude:<!channel>', r: 'dr_1' }],
      ]
    )
  })
})
