/**
 * Sign-in with OpenID Connect against a real OpenID Provider (oidc-provider, in process on
 * loopback: test/oidc-provider.ts): the code flow with PKCE, state and nonce; the sealed cookie;
 * who the person is (user, tenant, role from the claims and OIDC_*); CSRF on cookie writes; each
 * refusal a 401 that sets nothing; sign-out; the audit trail. The callback and the cookie
 * requests go through `app.request` (the browser routes are outside the OpenAPI document).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { SignInSettings } from '../../src/http/people/index.js'
import { makeTestApp } from '../helpers.js'
import {
  signInThrough,
  startTestProvider,
  type Forgery,
  type TestProvider,
} from '../oidc-provider.js'

const PUBLIC_URL = 'http://agent-todos.test'
const REDIRECT = `${PUBLIC_URL}/auth/callback`
const SECRET = 'a-session-secret-of-at-least-32-characters'

let op: TestProvider
before(async () => {
  op = await startTestProvider({
    redirectUri: REDIRECT,
    accounts: {
      ada: { email: 'ada@acme.test', groups: ['everyone', 'platform'], tenant: 'acme' },
      bob: { email: 'bob@acme.test', groups: ['devs'], tenant: 'acme' },
      eve: { email: 'eve@nowhere.test', groups: [] },
    },
  })
})
after(() => op.close())

function settings(over: Partial<SignInSettings['oidc']> = {}): SignInSettings {
  return {
    oidc: {
      issuer: op.issuer,
      clientId: op.clientId,
      clientSecret: op.clientSecret,
      scopes: 'openid email',
      redirectUri: REDIRECT,
      userClaim: 'email',
      tenantClaim: 'tenant',
      groupsClaim: 'groups',
      roles: [
        ['platform', 'admin'],
        ['devs', 'agent'],
      ],
      defaultRole: 'viewer',
      ...over,
    },
    cookies: { secret: SECRET, hours: 12, publicUrl: PUBLIC_URL },
  }
}

function app(over: Partial<SignInSettings['oidc']> = {}) {
  const clock = { now: Date.now() }
  const t = makeTestApp({
    signIn: settings(over),
    now: () => clock.now,
    // as the server passes PUBLIC_URL's host
    allowedHosts: ['agent-todos.test'],
  })
  return { ...t, clock }
}

const json = (response: Response): Promise<any> => response.json()

const cookiesOf = (response: Response) =>
  Object.fromEntries(
    response.headers.getSetCookie().map((line) => {
      const [pair] = line.split(';')
      const at = pair.indexOf('=')
      return [pair.slice(0, at), { value: pair.slice(at + 1), line }]
    })
  )

/** Signs `login` in: the service's /auth/login, the provider's pages, the callback. */
async function signIn(t: ReturnType<typeof app>, login: string, tamper?: (url: URL) => void) {
  const start = await t.app.request('/auth/login?return_to=/%3Fview%3Dmine')
  assert.equal(start.status, 302)
  const pending = cookiesOf(start)['agent-todos-login']
  assert.ok(pending, 'a pending sign-in cookie')
  const authorize = new URL(start.headers.get('location')!)
  for (const param of ['state', 'nonce', 'code_challenge'])
    assert.ok(authorize.searchParams.get(param), param)
  assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256')
  const callback = await signInThrough(authorize.href, login, REDIRECT)
  tamper?.(callback)
  return t.app.request(`/auth/callback${callback.search}`, {
    headers: { cookie: `agent-todos-login=${pending.value}` },
  })
}

describe('Sign-in with OpenID Connect', () => {
  it('Should sign a person in with a sealed cookie, and name their user, tenant and role', async () => {
    const t = app()
    const done = await signIn(t, 'ada')
    assert.equal(done.status, 302, await done.clone().text())
    assert.equal(done.headers.get('location'), '/?view=mine')
    const session = cookiesOf(done)['agent-todos-session']
    assert.ok(session)
    assert.match(session.line, /HttpOnly/)
    assert.match(session.line, /SameSite=Lax/)
    assert.match(session.line, /Max-Age=43200/)
    assert.doesNotMatch(session.line, /Secure/, 'PUBLIC_URL is http')
    assert.doesNotMatch(
      Buffer.from(session.value, 'base64url').toString('latin1'),
      /ada@acme/,
      'the claims are sealed, not readable'
    )
    const who = await t.app.request(PUBLIC_URL + '/v1/whoami', {
      headers: { cookie: `agent-todos-session=${session.value}` },
    })
    const body = (await who.json()) as Record<string, string>
    assert.equal(body.user, 'ada@acme.test')
    assert.equal(body.tenant, 'acme')
    assert.equal(body.role, 'admin', 'the first OIDC_ROLES group ada is in')
    assert.equal(body.via, 'oidc')
    assert.match(body.csrf_token, /^[A-Za-z0-9_-]{43}$/)

    const bob = cookiesOf(await signIn(t, 'bob'))['agent-todos-session']
    const bobs = (await (
      await t.app.request(PUBLIC_URL + '/v1/whoami', {
        headers: { cookie: `agent-todos-session=${bob.value}` },
      })
    ).json()) as Record<string, string>
    assert.equal(bobs.role, 'agent')
    assert.notEqual(bobs.csrf_token, body.csrf_token)
  })

  it('Should refuse a cookie write without the CSRF token or from another Origin, and take one with both', async () => {
    const t = app()
    const session = cookiesOf(await signIn(t, 'bob'))['agent-todos-session']
    const cookie = `agent-todos-session=${session.value}`
    const { csrf_token } = await json(
      await t.app.request(PUBLIC_URL + '/v1/whoami', { headers: { cookie } })
    )
    const put = (headers: Record<string, string>) =>
      t.app.request(PUBLIC_URL + '/v1/sessions/s1/todos', {
        method: 'PUT',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ items: [] }),
      })
    const none = await put({ origin: PUBLIC_URL })
    assert.equal(none.status, 403)
    assert.match((await json(none)).type, /csrf-refused$/)
    const foreign = await put({ origin: 'https://evil.test', 'x-csrf-token': csrf_token })
    assert.equal(foreign.status, 403)
    const wrong = await put({ origin: PUBLIC_URL, 'x-csrf-token': 'A'.repeat(43) })
    assert.equal(wrong.status, 403)
    const ok = await put({ origin: PUBLIC_URL, 'x-csrf-token': csrf_token })
    assert.equal(ok.status, 200, await ok.clone().text())
    const view = await json(ok)
    assert.equal(view.origin.user, 'bob@acme.test')
    assert.equal(view.origin.user_verified, true)
    // a token minted signed in is the person's
    const minted = await t.app.request(PUBLIC_URL + '/v1/tokens', {
      method: 'POST',
      headers: {
        cookie,
        origin: PUBLIC_URL,
        'x-csrf-token': csrf_token,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'laptop', role: 'agent' }),
    })
    assert.equal(minted.status, 201)
    assert.equal((await json(minted)).user, 'bob@acme.test')
  })

  const refusals: [string, Forgery][] = [
    ['an ID token from another issuer', 'issuer'],
    ['an ID token for another audience', 'audience'],
    ['an expired ID token', 'expired'],
    ['an ID token signed by a key the provider never published', 'foreign-key'],
    ['an ID token with the wrong nonce', 'nonce'],
  ]
  for (const [what, forgery] of refusals) {
    it(`Should sign no one in with ${what}: 401, nothing set`, async () => {
      const t = app()
      op.forge = forgery
      try {
        const done = await signIn(t, 'ada')
        assert.equal(done.status, 401)
        assert.match((await json(done)).type, /sign-in-refused$/)
        assert.equal(cookiesOf(done)['agent-todos-session'], undefined)
      } finally {
        op.forge = null
      }
    })
  }

  it('Should sign no one in with the wrong state or no pending sign-in', async () => {
    const t = app()
    const done = await signIn(t, 'ada', (url) => url.searchParams.set('state', 'forged-state'))
    assert.equal(done.status, 401)
    assert.equal(cookiesOf(done)['agent-todos-session'], undefined)
    const bare = await t.app.request('/auth/callback?code=x&state=y')
    assert.equal(bare.status, 401)
  })

  it('Should refuse a person without a tenant with 403', async () => {
    const t = app()
    const done = await signIn(t, 'eve')
    assert.equal(done.status, 403)
    assert.match((await json(done)).type, /sign-in-no-tenant$/)
    assert.equal(cookiesOf(done)['agent-todos-session'], undefined)
  })

  it('Should give everyone OIDC_TENANT when set, and the default role without a matching group', async () => {
    const t = app({ tenant: 'corp', tenantClaim: undefined })
    const session = cookiesOf(await signIn(t, 'eve'))['agent-todos-session']
    const who = await json(
      await t.app.request(PUBLIC_URL + '/v1/whoami', {
        headers: { cookie: `agent-todos-session=${session.value}` },
      })
    )
    assert.deepEqual([who.tenant, who.role, who.user], ['corp', 'viewer', 'eve@nowhere.test'])
  })

  it('Should end a sign-in at its lifetime, at sign-out, and record sign-ins in the audit trail', async () => {
    const t = app()
    const session = cookiesOf(await signIn(t, 'ada'))['agent-todos-session']
    const cookie = `agent-todos-session=${session.value}`
    const audit = await json(await t.app.request(PUBLIC_URL + '/v1/audit', { headers: { cookie } }))
    assert.deepEqual(
      audit.entries.map((e: { action: string; user: string; via: string }) => [
        e.action,
        e.user,
        e.via,
      ]),
      [['auth.login', 'ada@acme.test', 'oidc']]
    )
    const out = await t.app.request(PUBLIC_URL + '/auth/logout', {
      method: 'POST',
      headers: { cookie, origin: PUBLIC_URL },
    })
    assert.equal(out.status, 204)
    assert.match(cookiesOf(out)['agent-todos-session'].line, /Max-Age=0/)
    t.clock.now += 12 * 3600 * 1000
    const expired = await t.app.request(PUBLIC_URL + '/v1/whoami', { headers: { cookie } })
    assert.equal(expired.status, 401)
    const forged = await t.app.request(PUBLIC_URL + '/v1/whoami', {
      headers: { cookie: `agent-todos-session=${session.value.slice(0, -2)}AA` },
    })
    assert.equal(forged.status, 401)
  })

  it('Should answer the sign-in routes with 404 when sign-in is not configured', async () => {
    const t = makeTestApp()
    assert.equal((await t.app.request('/auth/login')).status, 404)
  })
})
