/**
 * End to end: a person signs in to the dashboard through a real OpenID Provider (oidc-provider on
 * loopback, its own login and consent pages, test/oidc-provider.ts) in headless Chromium against
 * the real server; lands on "Mine" with their two sessions (a colleague's only under
 * "Everyone"), mints a token; a Claude Code hook sent with it creates a session whose user is the
 * person, verified, whatever X-Agent-User claims. A cross-site cookie write is refused; the audit
 * trail lists the sign-in, the token and an edit. `request` sends cookies and foreign Origins,
 * which the typed client does not.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { fixtureJson } from '../ingest-support.js'
import { startTestProvider, type TestProvider } from '../oidc-provider.js'
import { freePort, request, startServer, type ServerProcess } from './server-process.js'

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const ADMIN_KEY = 'admin-key-people-0001'
const skip =
  !existsSync(CHROMIUM) && process.env.CI !== 'true' ? `chromium not found at ${CHROMIUM}` : false

const rowSelector = (id: string) => `#rows tr[data-session-id="${id}"]`

describe('People in the dashboard', { skip }, () => {
  let op: TestProvider
  let server: ServerProcess
  let context: BrowserContext
  let page: Page
  let userDataDir: string
  let token = ''

  before(async () => {
    const port = await freePort()
    const publicUrl = `http://127.0.0.1:${port}`
    op = await startTestProvider({
      redirectUri: `${publicUrl}/auth/callback`,
      accounts: {
        ada: { email: 'ada@acme.test', groups: ['devs'], tenant: 'acme' },
      },
    })
    const { chromium } = await import('playwright-core')
    userDataDir = mkdtempSync(join(tmpdir(), 'agent-todos-people-chromium-'))
    ;[context, server] = await Promise.all([
      chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
        viewport: { width: 1440, height: 900 },
      }),
      startServer({
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        AUTH_KEYS: `acme:admin:${ADMIN_KEY}`,
        OIDC_ISSUER: op.issuer,
        OIDC_CLIENT_ID: op.clientId,
        OIDC_CLIENT_SECRET: op.clientSecret,
        OIDC_TENANT_CLAIM: 'tenant',
        OIDC_ROLES: 'devs=agent',
        AUTH_SESSION_SECRET: 'e2e-session-secret-of-32-characters-at-least',
      }),
    ])
    // two sessions of ada's, one of a colleague's (named by headers, as a forwarder would)
    for (const [id, user] of [
      ['ada-api', 'ada@acme.test'],
      ['ada-web', 'ada@acme.test'],
      ['bob-ci', 'bob@acme.test'],
    ]) {
      const res = await request(
        server.url,
        'PUT',
        `/v1/sessions/${id}/todos`,
        { items: [{ id: '1', content: `work of ${id}`, status: 'in_progress' }] },
        { authorization: `Bearer ${ADMIN_KEY}`, 'x-agent-user': user }
      )
      assert.equal(res.status, 200, res.text)
    }
    page = await context.newPage()
  })

  after(async () => {
    await context?.close()
    await server?.stop()
    await op?.close()
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true })
  })

  it('Should sign a person in through the provider and open on Mine, Everyone one click away', async () => {
    await page.goto(server.url)
    await page.click('#signin-link')
    // the provider's own login and consent pages
    await page.fill('input[name="login"]', 'ada')
    await page.fill('input[name="password"]', 'any')
    await page.click('button[type="submit"]')
    await page.click('button[type="submit"]')
    await page.waitForURL(`${server.url}/`)
    await page.waitForSelector('#person-user:has-text("ada@acme.test")')
    await page.waitForSelector(rowSelector('ada-api'), { state: 'visible' })
    await page.waitForSelector(rowSelector('ada-web'), { state: 'visible' })
    assert.equal(await page.isVisible(rowSelector('bob-ci')), false, "a colleague's is not Mine")
    await page.click('button.view[data-view="everyone"]')
    await page.waitForSelector(rowSelector('bob-ci'), { state: 'visible' })
    await page.click('button.view[data-view="mine"]')
    await page.waitForSelector(rowSelector('bob-ci'), { state: 'hidden' })
  })

  it('Should mint a token shown once with the lines to paste', async () => {
    await page.click('#token-button')
    await page.click('#token-create')
    await page.waitForSelector('#token-made', { state: 'visible' })
    token = (await page.textContent('#token-value')) ?? ''
    assert.match(token, /^atk_[A-Za-z0-9_-]{43}$/)
    const snippets = (await page.textContent('#token-snippets')) ?? ''
    assert.match(snippets, new RegExp(`OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer ${token}`))
    assert.match(snippets, /agent-todos acp/)
    await page.click('#token-close')
  })

  it('Should make the token’s person the verified user of the sessions its hooks create', async () => {
    const hooks = fixtureJson('claude-code/real-todowrite.json')
    for (const hook of hooks) {
      const res = await request(server.url, 'POST', '/v1/ingest/claude-code', hook, {
        authorization: `Bearer ${token}`,
        'x-agent-user': 'mallory@evil.test',
      })
      assert.equal(res.status, 200, res.text)
    }
    const id = `claude:${hooks[0].session_id}`
    const { data } = await server.api(ADMIN_KEY).GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: id } },
    })
    assert.equal(data!.origin.user, 'ada@acme.test')
    assert.equal(data!.origin.user_verified, true)
    await page.waitForSelector(rowSelector(id), { state: 'visible' })
  })

  it('Should refuse a cross-site write with the cookie, and take the page’s own', async () => {
    const cookies = await context.cookies(server.url)
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ')
    const cross = await request(
      server.url,
      'PUT',
      '/v1/sessions/ada-api/todos',
      { items: [] },
      { cookie, origin: 'https://evil.test' }
    )
    assert.equal(cross.status, 403)
    const noToken = await request(
      server.url,
      'PUT',
      '/v1/sessions/ada-api/todos',
      { items: [] },
      { cookie, origin: server.url }
    )
    assert.equal(noToken.status, 403)
    const who = await request(server.url, 'GET', '/v1/whoami', undefined, { cookie })
    assert.equal(who.body.via, 'oidc')
    const own = await request(
      server.url,
      'PUT',
      '/v1/sessions/ada-api/todos',
      { items: [{ id: '1', content: 'work of ada-api', status: 'completed' }] },
      { cookie, origin: server.url, 'x-csrf-token': who.body.csrf_token }
    )
    assert.equal(own.status, 200, own.text)
  })

  it('Should list the sign-in, the token and the edit in the audit trail, with who and when', async () => {
    const { data } = await server.api(ADMIN_KEY).GET('/v1/audit')
    const entries = data!.entries.filter((e) => e.user === 'ada@acme.test')
    const actions = entries.map((e) => `${e.action}:${e.via}`)
    for (const expected of ['auth.login:oidc', 'token.create:oidc', 'session.edit:oidc']) {
      assert.ok(actions.includes(expected), `${expected} in ${actions.join(', ')}`)
    }
    for (const entry of entries) assert.ok(Date.parse(entry.at) > Date.now() - 600_000)
  })

  it('Should refuse the token once revoked', async () => {
    const { data } = await server.api(token).GET('/v1/tokens')
    const id = data!.tokens[0].id
    const revoked = await server.api(ADMIN_KEY).DELETE('/v1/tokens/{id}', {
      params: { path: { id } },
    })
    assert.equal(revoked.response.status, 204)
    const refused = await request(server.url, 'GET', '/v1/whoami', undefined, {
      authorization: `Bearer ${token}`,
    })
    assert.equal(refused.status, 401)
  })
})
