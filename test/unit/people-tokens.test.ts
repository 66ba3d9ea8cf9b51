/**
 * Personal tokens (SPEC §3 People): minted by a person (a key with a user here; a sign-in in
 * people-oidc), usable as a bearer wherever a key of their role is, their user verified on the
 * sessions they feed, listed, revoked at once; `?user=me`; the audit trail of it all.
 * `t.call` sends headers the typed client does not (X-Agent-User) and a hook body as it is.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { hashKey, type ApiKey } from '../../src/http/auth.js'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, ingest } from '../ingest-support.js'

const ADA_KEY = 'ada-key-0123456789'
const BOB_KEY = 'bob-key-0123456789'
const ADMIN_KEY = 'admin-key-0123456789'
const SHARED_KEY = 'shared-key-0123456789'
const VIEWER_KEY = 'viewer-key-0123456789'

const keys = new Map<string, ApiKey>([
  [hashKey(ADA_KEY), { tenant: 'acme', role: 'agent', user: 'ada@acme.test' }],
  [hashKey(BOB_KEY), { tenant: 'acme', role: 'agent', user: 'bob@acme.test' }],
  [hashKey(ADMIN_KEY), { tenant: 'acme', role: 'admin', user: 'root@acme.test' }],
  [hashKey(SHARED_KEY), { tenant: 'acme', role: 'agent' }],
  [hashKey(VIEWER_KEY), { tenant: 'acme', role: 'viewer', user: 'val@acme.test' }],
])

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` })

async function mint(
  t: ReturnType<typeof makeTestApp>,
  key: string,
  role: 'agent' | 'viewer',
  expires_days?: number
) {
  const { data, error, response } = await t.apiAs(key).POST('/v1/tokens', {
    body: { name: 'laptop hooks', role, ...(expires_days ? { expires_days } : {}) },
  })
  assert.equal(response.status, 201, JSON.stringify(error))
  return data!
}

describe('Personal tokens', () => {
  it('Should mint a token shown once, usable as a bearer, its person verified over X-Agent-User', async () => {
    const t = makeTestApp({ keys })
    const created = await mint(t, ADA_KEY, 'agent', 30)
    assert.match(created.token, /^atk_[A-Za-z0-9_-]{43}$/)
    assert.match(created.id, /^tok_/)
    assert.equal(created.user, 'ada@acme.test')
    assert.equal(created.role, 'agent')
    assert.equal(Date.parse(created.expires_at!) - Date.parse(created.created_at), 30 * 86_400_000)

    const who = await t.apiAs(created.token).GET('/v1/whoami')
    assert.deepEqual(who.data, {
      tenant: 'acme',
      role: 'agent',
      user: 'ada@acme.test',
      via: 'token',
    })

    const hooks = fixtureJson('claude-code/real-todowrite.json')
    for (const hook of hooks) {
      const res = await ingest(t, 'claude-code', hook, '', {
        ...bearer(created.token),
        'X-Agent-User': 'mallory@evil.test',
      })
      assert.equal(res.status, 200, res.text)
    }
    const session = await t.apiAs(ADMIN_KEY).GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: `claude:${hooks[0].session_id}` } },
    })
    assert.equal(session.data!.origin.user, 'ada@acme.test')
    assert.equal(session.data!.origin.user_verified, true)
    const listed = await t.apiAs(ADMIN_KEY).GET('/v1/sessions')
    assert.equal(listed.data!.sessions[0].origin.user_verified, true)

    // the secret is never shown again
    const list = await t.apiAs(ADA_KEY).GET('/v1/tokens')
    assert.deepEqual(Object.keys(list.data!.tokens[0]).sort(), [
      'created_at',
      'expires_at',
      'id',
      'name',
      'role',
      'user',
    ])
  })

  it('Should leave a user named by a header alone unverified', async () => {
    const t = makeTestApp({ keys })
    const hooks = fixtureJson('claude-code/real-todowrite.json')
    const res = await ingest(t, 'claude-code', hooks[0], '', {
      ...bearer(SHARED_KEY),
      'X-Agent-User': 'ada@acme.test',
    })
    assert.equal(res.status, 200)
    const session = await t.apiAs(SHARED_KEY).GET('/v1/sessions/{session_id}', {
      params: { path: { session_id: `claude:${hooks[0].session_id}` } },
    })
    assert.equal(session.data!.origin.user, 'ada@acme.test')
    assert.equal(session.data!.origin.user_verified, false)
  })

  it('Should refuse a revoked, expired, unknown or forged token with 401, and a revoke by another person', async () => {
    const t = makeTestApp({ keys })
    const a = await mint(t, ADA_KEY, 'agent')
    const b = await mint(t, ADA_KEY, 'agent', 1)
    assert.equal((await t.apiAs(a.token).GET('/v1/whoami')).response.status, 200)

    // bob is not ada: her token is not his to see or revoke
    const bobs = await t
      .apiAs(BOB_KEY)
      .DELETE('/v1/tokens/{id}', { params: { path: { id: a.id } } })
    assert.equal(bobs.response.status, 404)
    assert.equal((await t.apiAs(a.token).GET('/v1/whoami')).response.status, 200)

    const revoked = await t
      .apiAs(ADA_KEY)
      .DELETE('/v1/tokens/{id}', { params: { path: { id: a.id } } })
    assert.equal(revoked.response.status, 204)
    const refused = await t.apiAs(a.token).GET('/v1/whoami')
    assert.equal(refused.response.status, 401)
    assert.match(refused.error!.detail, /revoked/)

    t.clock.now += 86_400_000
    assert.equal((await t.apiAs(b.token).GET('/v1/whoami')).response.status, 401, 'expired')
    assert.equal((await t.apiAs(`atk_${'A'.repeat(43)}`).GET('/v1/whoami')).response.status, 401)
    // the hash of a token, sent as a key, is no key
    assert.equal((await t.apiAs(hashKey(b.token)).GET('/v1/whoami')).response.status, 401)
  })

  it('Should list the caller’s own tokens, and an admin the tenant’s, by ?user= too', async () => {
    const t = makeTestApp({ keys })
    await mint(t, ADA_KEY, 'agent')
    await mint(t, BOB_KEY, 'viewer')
    const ada = await t.apiAs(ADA_KEY).GET('/v1/tokens')
    assert.deepEqual(
      ada.data!.tokens.map((x) => x.user),
      ['ada@acme.test']
    )
    const all = await t.apiAs(ADMIN_KEY).GET('/v1/tokens')
    assert.equal(all.data!.tokens.length, 2)
    const bobs = await t
      .apiAs(ADMIN_KEY)
      .GET('/v1/tokens', { params: { query: { user: 'bob@acme.test' } } })
    assert.deepEqual(
      bobs.data!.tokens.map((x) => x.role),
      ['viewer']
    )
    // an admin revokes anyone's
    const id = bobs.data!.tokens[0].id
    const res = await t.apiAs(ADMIN_KEY).DELETE('/v1/tokens/{id}', { params: { path: { id } } })
    assert.equal(res.response.status, 204)
  })

  it('Should refuse a token to a caller who is no person, and a role above the caller’s', async () => {
    const t = makeTestApp({ keys })
    const shared = await t
      .apiAs(SHARED_KEY)
      .POST('/v1/tokens', { body: { name: 'x', role: 'agent' } })
    assert.equal(shared.response.status, 400)
    assert.match(shared.error!.type, /no-user$/)
    // a viewer may mint a viewer token (its own route decides), not an agent one
    const up = await t.apiAs(VIEWER_KEY).POST('/v1/tokens', { body: { name: 'x', role: 'agent' } })
    assert.equal(up.response.status, 403)
    const viewer = await mint(t, VIEWER_KEY, 'viewer')
    const write = await t.apiAs(viewer.token).PUT('/v1/sessions/{session_id}/todos', {
      params: { path: { session_id: 's1' } },
      body: { items: [] },
    })
    assert.equal(write.response.status, 403, 'a viewer token reads only')
    // a token does not mint tokens: only its person does (signed in, or their key)
    const agent = await mint(t, ADA_KEY, 'agent')
    const again = await t
      .apiAs(agent.token)
      .POST('/v1/tokens', { body: { name: 'y', role: 'agent' } })
    assert.equal(again.response.status, 403)
  })

  it('Should filter a listing by ?user=me, and refuse it to a caller who is no person', async () => {
    const t = makeTestApp({ keys })
    for (const [key, id] of [
      [ADA_KEY, 'a1'],
      [BOB_KEY, 'b1'],
    ]) {
      const res = await t.apiAs(key).PUT('/v1/sessions/{session_id}/todos', {
        params: { path: { session_id: id } },
        body: { items: [] },
      })
      assert.equal(res.response.status, 200)
    }
    const mine = await t.apiAs(ADA_KEY).GET('/v1/sessions', { params: { query: { user: 'me' } } })
    assert.deepEqual(
      mine.data!.sessions.map((s) => s.session_id),
      ['a1']
    )
    assert.equal(mine.data!.sessions[0].origin.user_verified, true)
    const nobody = await t
      .apiAs(SHARED_KEY)
      .GET('/v1/sessions', { params: { query: { user: 'me' } } })
    assert.equal(nobody.response.status, 400)
    assert.match(nobody.error!.type, /no-user$/)
  })
})

describe('The audit trail', () => {
  it('Should record edits, ends, deletes and token changes with who and how, newest first, for admins only', async () => {
    const t = makeTestApp({ keys })
    const token = await mint(t, ADA_KEY, 'agent')
    t.clock.now += 1000
    await t.apiAs(token.token).PUT('/v1/sessions/{session_id}/todos', {
      params: { path: { session_id: 's1' } },
      body: { items: [{ id: '1', content: 'x', status: 'pending' }] },
    })
    t.clock.now += 1000
    await t.apiAs(BOB_KEY).POST('/v1/sessions/{session_id}/end', {
      params: { path: { session_id: 's1' } },
      body: { outcome: 'completed' },
    })
    t.clock.now += 1000
    await t.apiAs(SHARED_KEY).DELETE('/v1/sessions/{session_id}', {
      params: { path: { session_id: 's1' } },
    })
    t.clock.now += 1000
    await t.apiAs(ADA_KEY).DELETE('/v1/tokens/{id}', { params: { path: { id: token.id } } })

    const { data, response } = await t.apiAs(ADMIN_KEY).GET('/v1/audit')
    assert.equal(response.status, 200)
    assert.deepEqual(
      data!.entries.map((e) => [e.action, e.user, e.via, e.target]),
      [
        ['token.revoke', 'ada@acme.test', 'key', token.id],
        ['session.delete', null, 'key', 's1'],
        ['session.end', 'bob@acme.test', 'key', 's1'],
        ['session.edit', 'ada@acme.test', 'token', 's1'],
        ['token.create', 'ada@acme.test', 'key', token.id],
      ]
    )
    assert.equal(data!.entries[0].at, new Date(t.clock.now).toISOString())
    const page = await t.apiAs(ADMIN_KEY).GET('/v1/audit', { params: { query: { limit: 2 } } })
    const next = await t.apiAs(ADMIN_KEY).GET('/v1/audit', {
      params: { query: { limit: 2, cursor: page.data!.next_cursor! } },
    })
    assert.deepEqual(
      next.data!.entries.map((e) => e.action),
      ['session.end', 'session.edit']
    )
    const edits = await t.apiAs(ADMIN_KEY).GET('/v1/audit', {
      params: { query: { action: 'session.edit', user: 'ada@acme.test' } },
    })
    assert.equal(edits.data!.entries.length, 1)
    assert.equal((await t.apiAs(ADA_KEY).GET('/v1/audit')).response.status, 403)
    const bad = await t.apiAs(ADMIN_KEY).GET('/v1/audit', { params: { query: { cursor: 'nope' } } })
    assert.equal(bad.response.status, 400)
  })
})
