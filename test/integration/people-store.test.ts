/**
 * The people records of every store (SPEC §3 People): personal tokens by hash (found from any
 * tenant, listed per tenant and user, revoked at once, gone when expired) and the audit trail
 * (newest first, filtered, paged by cursor, expired after its lifetime).
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AuditEntry } from '../../src/core/people.js'
import { createMemoryStore } from '../../src/store/memory.js'
import { createSqliteStore } from '../../src/store/sqlite.js'
import type { TokenRecord } from '../../src/store/people/types.js'
import type { SessionStore, StoreOptions } from '../../src/store/types.js'
import { dropKeys, openTestRedisStore, TEST_REDIS_URL, uniquePrefix } from '../redis-support.js'
import { storeKinds, type StoreKind } from '../store-kinds.js'
import { openTestPostgresStore } from '../postgres-support.js'

const dir = mkdtempSync(join(tmpdir(), 'agent-todos-people-'))
after(() => rmSync(dir, { recursive: true, force: true }))
const prefixes: string[] = []
after(async () => {
  for (const prefix of prefixes) await dropKeys({ url: TEST_REDIS_URL }, prefix)
})

let opened = 0
async function open(kind: StoreKind, clock: { now: number }): Promise<SessionStore> {
  const options: StoreOptions = { ttlMs: 3_600_000, historyLimit: 10, now: () => clock.now }
  if (kind === 'memory') return createMemoryStore(options)
  if (kind === 'sqlite') {
    return createSqliteStore({
      ...options,
      path: join(dir, `p${++opened}.db`),
      synchronous: 'normal',
    })
  }
  if (kind === 'postgres') return openTestPostgresStore('people', options)
  const keyPrefix = uniquePrefix('people')
  prefixes.push(keyPrefix)
  return openTestRedisStore({ ...options, url: TEST_REDIS_URL, keyPrefix })
}

const token = (over: Partial<TokenRecord>): TokenRecord => ({
  id: 'tok_1',
  tenant: 'acme',
  user: 'ada@acme.test',
  name: 'laptop',
  role: 'agent',
  hash: 'a'.repeat(64),
  created_at: 1_000,
  expires_at: null,
  ...over,
})

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: 'aud_1',
  at: 1_000,
  tenant: 'acme',
  user: 'ada@acme.test',
  via: 'oidc',
  action: 'session.edit',
  target: 's1',
  detail: { version: 2 },
  ...over,
})

for (const kind of await storeKinds('people records')) {
  if (kind === 'redis-cluster') continue
  describe(`people records (${kind})`, () => {
    it('Should find a token by its hash, list it per tenant and user, and revoke it at once', async () => {
      const clock = { now: 2_000 }
      const store = await open(kind, clock)
      const people = store.people!
      try {
        await people.createToken(token({}))
        await people.createToken(
          token({ id: 'tok_2', hash: 'b'.repeat(64), user: 'bob@acme.test', created_at: 1_500 })
        )
        await people.createToken(token({ id: 'tok_3', hash: 'c'.repeat(64), tenant: 'other' }))
        assert.equal((await people.findToken('a'.repeat(64)))?.user, 'ada@acme.test')
        assert.equal(await people.findToken('d'.repeat(64)), null)
        assert.deepEqual(
          (await people.listTokens('acme')).map((t) => t.id),
          ['tok_2', 'tok_1'],
          'newest first, this tenant only'
        )
        assert.deepEqual(
          (await people.listTokens('acme', 'ada@acme.test')).map((t) => t.id),
          ['tok_1']
        )
        assert.equal(await people.revokeToken('other', 'tok_1'), null, "another tenant's id")
        assert.equal((await people.revokeToken('acme', 'tok_1'))?.id, 'tok_1')
        assert.equal(await people.findToken('a'.repeat(64)), null, 'refused from then on')
        assert.equal(await people.revokeToken('acme', 'tok_1'), null, 'once')
      } finally {
        await store.close()
      }
    })

    it('Should not find or list a token past its expiry', async () => {
      const clock = { now: 2_000 }
      const store = await open(kind, clock)
      const people = store.people!
      try {
        // Redis expires the lookup key by the wall clock: a time in the near future
        const expires = Date.now() + 60_000
        await people.createToken(token({ expires_at: expires }))
        clock.now = expires - 1
        assert.ok(await people.findToken('a'.repeat(64)))
        clock.now = expires
        assert.equal(await people.findToken('a'.repeat(64)), null)
        assert.deepEqual(await people.listTokens('acme'), [])
      } finally {
        await store.close()
      }
    })

    it('Should list the audit trail newest first, filtered and paged, without expired entries', async () => {
      const clock = { now: 10_000 }
      const store = await open(kind, clock)
      const people = store.people!
      const ttl = 100_000
      try {
        for (let i = 0; i < 7; i++) {
          const at = 1_000 + i * 10
          await people.appendAudit(
            entry({
              id: `aud_${i}`,
              at,
              user: i % 2 ? 'bob' : 'ada',
              action: i === 3 ? 'token.create' : 'session.edit',
            }),
            at + ttl
          )
        }
        await people.appendAudit(entry({ id: 'aud_x', at: 1_000, tenant: 'other' }), 1_000 + ttl)
        const first = await people.listAudit('acme', { limit: 3 })
        assert.deepEqual(
          first.entries.map((e) => e.id),
          ['aud_6', 'aud_5', 'aud_4']
        )
        assert.deepEqual(first.entries[0], entry({ id: 'aud_6', at: 1_060, user: 'ada' }))
        const second = await people.listAudit('acme', { limit: 3, cursor: first.next! })
        assert.deepEqual(
          second.entries.map((e) => e.id),
          ['aud_3', 'aud_2', 'aud_1']
        )
        const third = await people.listAudit('acme', { limit: 3, cursor: second.next! })
        assert.deepEqual(
          third.entries.map((e) => e.id),
          ['aud_0']
        )
        assert.equal(third.next, null)
        assert.deepEqual(
          (await people.listAudit('acme', { limit: 10, user: 'bob' })).entries.map((e) => e.id),
          ['aud_5', 'aud_3', 'aud_1']
        )
        assert.deepEqual(
          (await people.listAudit('acme', { limit: 10, action: 'token.create' })).entries.map(
            (e) => e.id
          ),
          ['aud_3']
        )
        // equal times: by id, and a cursor between them
        await people.appendAudit(entry({ id: 'aud_7a', at: 1_070 }), 1_070 + ttl)
        await people.appendAudit(entry({ id: 'aud_7b', at: 1_070 }), 1_070 + ttl)
        const tie = await people.listAudit('acme', { limit: 1 })
        assert.deepEqual(
          tie.entries.map((e) => e.id),
          ['aud_7b']
        )
        assert.deepEqual(
          (await people.listAudit('acme', { limit: 1, cursor: tie.next! })).entries.map(
            (e) => e.id
          ),
          ['aud_7a']
        )
        clock.now = 1_035 + ttl
        assert.deepEqual(
          (await people.listAudit('acme', { limit: 10 })).entries.map((e) => e.id),
          ['aud_7b', 'aud_7a', 'aud_6', 'aud_5', 'aud_4'],
          'kept for their lifetime only'
        )
      } finally {
        await store.close()
      }
    })
  })
}
