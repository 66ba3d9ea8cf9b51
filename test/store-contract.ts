/**
 * The contract every SessionStore passes: run it against each backend.
 */
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { makeItem } from '../src/core/items.js'
import { mergeOrigin } from '../src/core/origin.js'
import { newSession, type Session, type SessionKey } from '../src/core/session.js'
import {
  IdempotencyClaimLostError,
  QuotaExceededError,
  type SessionStore,
  type StoreOptions,
} from '../src/store/types.js'
import { newObserved } from '../src/ingest/apply.js'
import { briefOf } from '../src/store/brief.js'

export interface ContractClock {
  now: number
}

/** Creates a fresh, empty store on the given clock. */
export type StoreFactory = (options: StoreOptions) => SessionStore | Promise<SessionStore>

let counter = 0
const uniqueTenant = () => `t${process.pid}-${Date.now()}-${counter++}`

/** Writes the next version of a session, creating it when absent. */
function bump(
  store: SessionStore,
  key: SessionKey,
  now: number,
  change: (s: Session) => Partial<Session> = () => ({})
) {
  return store.update(key, (current, { versionFloor }) => {
    const base = current ?? newSession(key, 's03', {}, now, versionFloor)
    const next: Session = { ...base, ...change(base), version: base.version + 1, updated_at: now }
    return { value: next, write: { session: next, source: 'round' as const } }
  })
}

/**
 * Registers the contract suite for one backend.
 * @param name - the backend's name in test titles
 * @param factory - makes a store on the given options
 */
export function storeContract(name: string, factory: StoreFactory) {
  describe(`SessionStore contract: ${name}`, () => {
    const clock: ContractClock = { now: Date.parse('2026-11-30T12:00:00Z') }
    let store: SessionStore
    before(async () => {
      store = await factory({ ttlMs: 3_600_000, historyLimit: 5, now: () => clock.now })
    })
    after(async () => {
      await store.close()
    })

    it('Should return null for an absent session', async () => {
      assert.equal(await store.get({ tenant: uniqueTenant(), sessionId: 'none' }), null)
    })

    it('Should create, read back and advance a session', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 's1' }
      const first = await bump(store, key, clock.now, () => ({
        items: [makeItem({ id: '1', content: 'Write tests', status: 'in_progress' })],
      }))
      assert.equal(first.version, 1)
      const read = await store.get(key)
      assert.deepEqual(read, first)
      const second = await bump(store, key, clock.now + 1)
      assert.equal(second.version, 2)
      assert.equal((await store.get(key))?.version, 2)
    })

    it("Should keep each session's brief beside it, as listings and briefs read it", async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'briefed' }
      assert.equal(await store.brief(key), null)
      const items = [
        makeItem({ id: '1', content: 'Done', status: 'completed' }),
        makeItem({ id: '2', content: 'Doing', status: 'in_progress' }),
        makeItem({ id: '3', content: 'Later', status: 'pending' }),
      ]
      await bump(store, key, clock.now, () => ({ items, round: 3 }))
      const written = await bump(store, key, clock.now + 1, (s) => ({
        ended: { outcome: 'completed', detail: null, at: clock.now + 1, unfinished: ['2', '3'] },
        items: s.items,
      }))
      const expected = briefOf(written)
      assert.deepEqual(await store.brief(key), expected)
      const page = await store.list(key.tenant, { state: 'ended', staleBefore: 0, limit: 10 })
      assert.deepEqual(page.sessions, [expected])
      assert.equal(expected.progress.completed, 1)
      assert.equal(expected.current?.id, '2')
      assert.equal(await store.delete(key), true)
      assert.equal(await store.brief(key), null)
    })

    it('Should store nothing when the updater decides not to write', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 's1' }
      const value = await store.update(key, (current) => ({
        value: current === null ? 'absent' : 'present',
      }))
      assert.equal(value, 'absent')
      assert.equal(await store.get(key), null)
    })

    it('Should store nothing when the updater throws', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 's1' }
      await bump(store, key, clock.now)
      await assert.rejects(
        store.update(key, () => {
          throw new Error('rejected')
        }),
        /rejected/
      )
      assert.equal((await store.get(key))?.version, 1)
    })

    it('Should refuse a version that does not follow the current one', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 's1' }
      await bump(store, key, clock.now)
      await assert.rejects(
        store.update(key, (current) => {
          const next = { ...current!, version: current!.version + 2 }
          return { value: null, write: { session: next, source: 'round' as const } }
        })
      )
      assert.equal((await store.get(key))?.version, 1)
    })

    it('Should keep a quiet write under the same version, with no history entry, heard as quiet', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'quiet' }
      let heard: string[] = []
      const unsubscribe = store.subscribe((event) => {
        if (event.tenant === key.tenant)
          heard.push(`${event.version}:${event.source}${event.quiet ? ':quiet' : ''}`)
      })
      const hear = async (event: string) => {
        for (let waited = 0; !heard.includes(event) && waited < 2000; waited += 10) {
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
      }
      try {
        await bump(store, key, clock.now)
        await bump(store, key, clock.now, (s) => ({ round: s.round + 1 }))
        // the bumps' own events come first (Redis pub/sub: maybe after their writes returned)
        await hear('2:round')
        heard = []
        const later = clock.now + 60_000
        await store.update(key, (current) => {
          const next: Session = { ...current!, round: 7, updated_at: later }
          return { value: null, write: { session: next, source: 'ingest', quiet: true } }
        })
        const stored = await store.get(key)
        assert.equal(stored?.version, 2)
        assert.equal(stored?.round, 7)
        assert.equal(stored?.updated_at, later)
        assert.deepEqual(
          (await store.history(key, 10)).map((entry) => entry.version),
          [1, 2]
        )
        // the next version follows it, under compare-and-set as always
        await bump(store, key, later, (s) => ({ round: s.round + 1 }))
        assert.equal((await store.get(key))?.round, 8)
        assert.equal((await store.get(key))?.version, 3)
        await hear('3:round')
        await new Promise((resolve) => setTimeout(resolve, 50))
        // the quiet write is heard as such, under the version it kept
        assert.deepEqual(heard, ['2:ingest:quiet', '3:round'])
      } finally {
        unsubscribe()
      }
      // no quiet write creates a session, nor moves the version
      const absent = { tenant: key.tenant, sessionId: 'absent' }
      await assert.rejects(
        store.update(absent, (current) => {
          const next = newSession(absent, 's03', {}, clock.now)
          return { value: current, write: { session: next, source: 'ingest', quiet: true } }
        })
      )
      assert.equal(await store.get(absent), null)
      await assert.rejects(
        store.update(key, (current) => {
          const next = { ...current!, version: current!.version + 1 }
          return { value: null, write: { session: next, source: 'ingest', quiet: true } }
        })
      )
      assert.equal((await store.get(key))?.version, 3)
    })

    it('Should lose no update among 50 concurrent ones on one session', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'hot' }
      await Promise.all(
        Array.from({ length: 50 }, () =>
          bump(store, key, clock.now, (s) => ({ round: s.round + 1 }))
        )
      )
      const final = await store.get(key)
      assert.equal(final?.round, 50)
      assert.equal(final?.version, 50)
    })

    it('Should delete a session and its history', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 's1' }
      await bump(store, key, clock.now)
      assert.equal(await store.delete(key), true)
      assert.equal(await store.get(key), null)
      assert.deepEqual(await store.history(key, 10), [])
      assert.equal(await store.delete(key), false)
    })

    it('Should go on from the last version when a deleted session is re-created', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'again' }
      await bump(store, key, clock.now)
      await bump(store, key, clock.now)
      assert.equal(await store.delete(key), true)
      const again = await bump(store, key, clock.now)
      assert.equal(again.version, 3, 'a version never names two states of one session id')
      assert.deepEqual(
        (await store.history(key, 10)).map((e) => e.version),
        [3]
      )
      assert.equal(await store.delete(key), true)
      assert.equal((await bump(store, key, clock.now)).version, 4)
      assert.equal(await store.countSessions(key.tenant), 1, 'tombstones are not sessions')
      assert.equal(await store.delete(key), true)
      assert.equal(await store.countSessions(key.tenant), 0)
      assert.equal(
        (await store.list(key.tenant, { state: 'all', staleBefore: 0, limit: 10 })).sessions.length,
        0
      )
    })

    it('Should refuse a re-created session that starts below its tombstone', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'floor' }
      await bump(store, key, clock.now)
      await store.delete(key)
      await assert.rejects(
        store.update(key, () => {
          const next = { ...newSession(key, 's03', {}, clock.now), version: 1 }
          return { value: null, write: { session: next, source: 'round' as const } }
        })
      )
      assert.equal(await store.get(key), null)
    })

    it('Should create no session beyond maxSessionsPerTenant, even concurrently', async () => {
      const tenant = uniqueTenant()
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          store.update(
            { tenant, sessionId: `q${i}` },
            (current, { versionFloor }) => {
              const base =
                current ?? newSession({ tenant, sessionId: `q${i}` }, 's03', {}, 0, versionFloor)
              const next = { ...base, version: base.version + 1, updated_at: clock.now }
              return { value: next, write: { session: next, source: 'round' as const } }
            },
            { maxSessionsPerTenant: 5 }
          )
        )
      )
      const refused = results.filter((r) => r.status === 'rejected')
      assert.equal(results.length - refused.length, 5)
      for (const r of refused) assert.ok(r.reason instanceof QuotaExceededError, String(r.reason))
      assert.equal(await store.countSessions(tenant), 5)
      // an existing session still updates at the cap; a deleted one frees a place
      const first = results.findIndex((r) => r.status === 'fulfilled')
      const existing = { tenant, sessionId: `q${first}` }
      const write = () =>
        store.update(
          existing,
          (current, { versionFloor }) => {
            const base = current ?? newSession(existing, 's03', {}, 0, versionFloor)
            const next = { ...base, version: base.version + 1, updated_at: clock.now }
            return { value: next, write: { session: next, source: 'round' as const } }
          },
          { maxSessionsPerTenant: 5 }
        )
      assert.equal((await write()).version, 2)
      await store.delete(existing)
      assert.equal(await store.countSessions(tenant), 4)
      assert.equal((await write()).version, 3)
      assert.equal(await store.countSessions(tenant), 5)
    })

    it('Should page history by version', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'pages' }
      for (let i = 0; i < 5; i++) await bump(store, key, clock.now + i)
      assert.deepEqual(
        (await store.history(key, 2, 4)).map((e) => e.version),
        [2, 3]
      )
      assert.deepEqual(
        (await store.history(key, 10, 2)).map((e) => e.version),
        [1]
      )
      assert.deepEqual(await store.history(key, 10, 1), [])
    })

    it('Should end a history page once its lists pass a byte budget, the newest always in', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'budget' }
      for (let i = 0; i < 5; i++) {
        await bump(store, key, clock.now + i, () => ({
          items: [
            makeItem({ id: '1', content: `v${i + 1} `.padEnd(1000, 'x'), status: 'pending' }),
          ],
        }))
      }
      const versions = async (maxBytes: number, before?: number) =>
        (await store.history(key, 5, before, maxBytes)).map((e) => e.version)
      assert.deepEqual(await versions(0), [5])
      assert.deepEqual(await versions(-1, 4), [3])
      // each list is a little over 1,000 bytes: the second passes 1,500, the third 2,500
      assert.deepEqual(await versions(1500), [4, 5])
      assert.deepEqual(await versions(2500, 5), [2, 3, 4])
      assert.deepEqual(await versions(Infinity), [1, 2, 3, 4, 5])
      // the same page with each list as its stored JSON text
      const texts = await store.historyText(key, 5, 5, 1500)
      assert.deepEqual(
        texts.map((e) => ({ ...e, items: JSON.parse(e.items) as unknown })),
        await store.history(key, 5, 5, 1500)
      )
    })

    it('Should keep tenants apart', async () => {
      const a = { tenant: uniqueTenant(), sessionId: 'same' }
      const b = { tenant: uniqueTenant(), sessionId: 'same' }
      await bump(store, a, clock.now, () => ({ round: 7 }))
      assert.equal(await store.get(b), null)
      assert.equal(
        (await store.list(b.tenant, { state: 'all', staleBefore: 0, limit: 10 })).sessions.length,
        0
      )
      assert.equal(await store.delete(b), false)
      assert.equal((await store.get(a))?.round, 7)
    })

    it('Should keep the last historyLimit versions, oldest first', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'h' }
      for (let i = 0; i < 8; i++) {
        await bump(store, key, clock.now + i, () => ({
          items: [makeItem({ id: '1', content: `v${i + 1}`, status: 'pending' })],
        }))
      }
      const entries = await store.history(key, 100)
      assert.deepEqual(
        entries.map((e) => e.version),
        [4, 5, 6, 7, 8]
      )
      assert.equal(entries[4].items[0].content, 'v8')
      assert.equal(entries[4].source, 'round')
      assert.equal(entries[4].at, clock.now + 7)
      assert.deepEqual(
        (await store.history(key, 2)).map((e) => e.version),
        [7, 8]
      )
    })

    it('Should list newest first with a cursor and state filters', async () => {
      const tenant = uniqueTenant()
      const t0 = clock.now
      const pending = [makeItem({ id: '1', content: 'x', status: 'pending' })]
      const done = [makeItem({ id: '1', content: 'x', status: 'completed' })]
      await bump(store, { tenant, sessionId: 'empty' }, t0 + 1)
      await bump(store, { tenant, sessionId: 'working' }, t0 + 2, () => ({ items: pending }))
      await bump(store, { tenant, sessionId: 'finished' }, t0 + 3, () => ({ items: done }))
      await bump(store, { tenant, sessionId: 'old' }, t0 - 10_000, () => ({ items: pending }))
      await bump(store, { tenant, sessionId: 'ended' }, t0 + 4, () => ({
        items: pending,
        ended: { outcome: 'max_turns' as const, detail: null, at: t0 + 4, unfinished: ['1'] },
      }))
      const ids = async (state: 'all' | 'active' | 'done' | 'stale' | 'ended') =>
        (await store.list(tenant, { state, staleBefore: t0 - 5000, limit: 50 })).sessions.map(
          (s) => s.session_id
        )
      assert.deepEqual(await ids('all'), ['ended', 'finished', 'working', 'empty', 'old'])
      assert.deepEqual(await ids('active'), ['working', 'empty', 'old'])
      assert.deepEqual(await ids('done'), ['finished'])
      assert.deepEqual(await ids('stale'), ['old'])
      assert.deepEqual(await ids('ended'), ['ended'])

      const seen: string[] = []
      let cursor = undefined
      for (let page = 0; page < 10; page++) {
        const result: Awaited<ReturnType<SessionStore['list']>> = await store.list(tenant, {
          state: 'all',
          staleBefore: 0,
          limit: 2,
          cursor,
        })
        seen.push(...result.sessions.map((s) => s.session_id))
        if (!result.next) break
        cursor = result.next
      }
      assert.deepEqual(seen, ['ended', 'finished', 'working', 'empty', 'old'])
    })

    it('Should filter listings by dialect and by last change, and count live sessions', async () => {
      const tenant = uniqueTenant()
      const t0 = clock.now
      const write = (sessionId: string, dialect: string, at: number) =>
        store.update({ tenant, sessionId }, (current) => {
          const base = current ?? newSession({ tenant, sessionId }, dialect, {}, at)
          const next: Session = { ...base, version: base.version + 1, updated_at: at }
          return { value: next, write: { session: next, source: 'round' as const } }
        })
      await write('a', 's03', t0 - 3000)
      await write('b', 'gemini-todos', t0 - 2000)
      await write('c', 's03', t0 - 1000)
      const ids = async (extra: Partial<Parameters<SessionStore['list']>[1]>) =>
        (
          await store.list(tenant, { state: 'all', staleBefore: 0, limit: 50, ...extra })
        ).sessions.map((s) => s.session_id)
      assert.deepEqual(await ids({ dialect: 's03' }), ['c', 'a'])
      assert.deepEqual(await ids({ dialect: 'gemini-todos' }), ['b'])
      assert.deepEqual(await ids({ updatedSince: t0 - 2000 }), ['c', 'b'])
      assert.deepEqual(await ids({ updatedSince: t0 - 2000, dialect: 's03' }), ['c'])
      assert.deepEqual(
        await ids({ dialect: 's03', limit: 1, cursor: { updatedAt: t0 - 1000, sessionId: 'c' } }),
        ['a']
      )
      assert.equal(await store.countSessions(tenant), 3)
      assert.equal(await store.countSessions(uniqueTenant()), 0)
    })

    it('Should filter listings by source, and list an observed agent waiting for a person as waiting, not stale', async () => {
      const tenant = uniqueTenant()
      const t0 = clock.now
      const pending = [makeItem({ id: '1', content: 'x', status: 'pending' })]
      const observed = (source: 'claude-code' | 'codex', waiting: boolean) => ({
        items: pending,
        observed: {
          ...newObserved(source, null),
          waiting: waiting ? { reason: 'permission_prompt', message: null, at: t0 - 9000 } : null,
        },
      })
      await bump(store, { tenant, sessionId: 'loop' }, t0 - 9000, () => ({ items: pending }))
      await bump(store, { tenant, sessionId: 'claude' }, t0 - 8000, () =>
        observed('claude-code', true)
      )
      await bump(store, { tenant, sessionId: 'codex' }, t0 - 7000, () => observed('codex', false))
      const ids = async (extra: Partial<Parameters<SessionStore['list']>[1]>) =>
        (
          await store.list(tenant, { state: 'all', staleBefore: t0 - 5000, limit: 50, ...extra })
        ).sessions.map((s) => s.session_id)
      assert.deepEqual(await ids({ source: 'rounds' }), ['loop'])
      assert.deepEqual(await ids({ source: 'claude-code' }), ['claude'])
      assert.deepEqual(await ids({ source: 'codex', state: 'stale' }), ['codex'])
      assert.deepEqual(await ids({ state: 'stale' }), ['codex', 'loop'])
      assert.deepEqual(await ids({ source: 'gemini-cli' }), [])
      // waiting for a person is a state of its own, listed among the active ones
      assert.deepEqual(await ids({ state: 'waiting' }), ['claude'])
      assert.deepEqual(await ids({ state: 'active' }), ['codex', 'claude', 'loop'])
      assert.deepEqual(await ids({ state: 'done' }), [])
    })

    it('Should filter listings by origin and labels, exactly, combined with state and source', async () => {
      const tenant = uniqueTenant()
      const t0 = clock.now
      const pending = [makeItem({ id: '1', content: 'x', status: 'pending' })]
      const origin = (user: string, host: string, repo: string | null, agent: string | null) => ({
        ...mergeOrigin(null, { user, host, repo, agent }),
      })
      await bump(store, { tenant, sessionId: 'a' }, t0 - 9000, () => ({
        items: pending,
        origin: origin('ada', 'laptop', 'https://github.com/acme/api.git', null),
        labels: { team: 'payments', 'ci.job': '7' },
      }))
      await bump(store, { tenant, sessionId: 'b' }, t0 - 8000, () => ({
        items: pending,
        observed: newObserved('claude-code', null),
        origin: origin('grace', 'laptop', 'acme/web', 'claude-code'),
        labels: { team: 'core' },
      }))
      // stored before origins were kept: no origin, no labels
      await bump(store, { tenant, sessionId: 'c' }, t0 - 7000, () => ({ items: pending }))
      const ids = async (extra: Partial<Parameters<SessionStore['list']>[1]>) =>
        (
          await store.list(tenant, { state: 'all', staleBefore: t0 - 5000, limit: 50, ...extra })
        ).sessions
          .map((s) => s.session_id)
          .sort()
      assert.deepEqual(await ids({ user: 'ada' }), ['a'])
      assert.deepEqual(await ids({ host: 'laptop' }), ['a', 'b'])
      assert.deepEqual(await ids({ host: 'lap' }), [])
      assert.deepEqual(await ids({ repo: 'acme/web' }), ['b'])
      assert.deepEqual(await ids({ agent: 'claude-code' }), ['b'])
      assert.deepEqual(await ids({ labels: { team: 'payments' } }), ['a'])
      assert.deepEqual(await ids({ labels: { team: 'payments', 'ci.job': '7' } }), ['a'])
      assert.deepEqual(await ids({ labels: { team: 'payments', 'ci.job': '8' } }), [])
      assert.deepEqual(await ids({ labels: { constructor: 'x' } }), [])
      assert.deepEqual(await ids({ host: 'laptop', source: 'rounds' }), ['a'])
      assert.deepEqual(await ids({ host: 'laptop', state: 'stale' }), ['a', 'b'])
      assert.deepEqual(await ids({ user: 'grace', state: 'done' }), [])
      const brief = await store.brief({ tenant, sessionId: 'b' })
      assert.equal(brief?.origin?.user, 'grace')
      assert.deepEqual(brief?.labels, { team: 'core' })
    })

    it('Should expire idle sessions after the TTL', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'idle' }
      await bump(store, key, clock.now)
      const saved = clock.now
      clock.now += 3_600_001
      try {
        assert.equal(await store.get(key), null)
        assert.equal(
          (await store.list(key.tenant, { state: 'all', staleBefore: 0, limit: 10 })).sessions
            .length,
          0
        )
        const fresh = await bump(store, key, clock.now)
        assert.equal(fresh.version, 1, 'an expired session is gone: the next write starts anew')
      } finally {
        clock.now = saved
      }
    })

    it('Should claim, replay and release idempotency keys', async () => {
      const scope = `${uniqueTenant()}\u0000s\u0000key-1`
      const claim = await store.claimIdempotency(scope, 'fp', 60_000)
      assert.ok(claim.claimed && typeof claim.token === 'string' && claim.token.length > 0)
      assert.deepEqual(await store.claimIdempotency(scope, 'fp', 60_000), {
        claimed: false,
        record: { fingerprint: 'fp', reply: null },
      })
      await store.releaseIdempotency(scope, 'not-the-token')
      assert.equal((await store.claimIdempotency(scope, 'fp', 60_000)).claimed, false)
      await store.releaseIdempotency(scope, claim.token)
      const again = await store.claimIdempotency(scope, 'fp2', 60_000)
      assert.equal(again.claimed, true)
      const saved = clock.now
      clock.now += 60_001
      try {
        assert.equal((await store.claimIdempotency(scope, 'fp3', 60_000)).claimed, true)
      } finally {
        clock.now = saved
      }
    })

    it('Should store an idempotent reply in the same step as the change', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'idem' }
      const scope = `${key.tenant}\u0000idem\u0000k`
      const claim = await store.claimIdempotency(scope, 'fp', 30_000)
      assert.ok(claim.claimed)
      const written = await store.update(
        key,
        (current, { versionFloor }) => {
          const base = current ?? newSession(key, 's03', {}, clock.now, versionFloor)
          const next = { ...base, version: base.version + 1, updated_at: clock.now }
          return { value: next, write: { session: next, source: 'round' as const } }
        },
        {
          idempotency: {
            scope,
            token: claim.token,
            ttlMs: 86_400_000,
            reply: (value) => JSON.stringify({ version: value.version }),
          },
        }
      )
      assert.equal(written.version, 1)
      assert.deepEqual(await store.claimIdempotency(scope, 'fp', 30_000), {
        claimed: false,
        record: { fingerprint: 'fp', reply: '{"version":1}' },
      })
      // kept for the reply's TTL, not the claim's
      const saved = clock.now
      clock.now += 60_000
      try {
        assert.deepEqual(await store.claimIdempotency(scope, 'fp', 30_000), {
          claimed: false,
          record: { fingerprint: 'fp', reply: '{"version":1}' },
        })
      } finally {
        clock.now = saved
      }
      // a release after the commit changes nothing
      await store.releaseIdempotency(scope, claim.token)
      assert.equal((await store.claimIdempotency(scope, 'fp', 30_000)).claimed, false)
    })

    it('Should write nothing when the idempotency claim no longer holds', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'lost' }
      const scope = `${key.tenant}\u0000lost\u0000k`
      const claim = await store.claimIdempotency(scope, 'fp', 30_000)
      assert.ok(claim.claimed)
      await store.releaseIdempotency(scope, claim.token)
      await assert.rejects(
        store.update(
          key,
          (current, { versionFloor }) => {
            const base = current ?? newSession(key, 's03', {}, clock.now, versionFloor)
            const next = { ...base, version: base.version + 1, updated_at: clock.now }
            return { value: next, write: { session: next, source: 'round' as const } }
          },
          { idempotency: { scope, token: claim.token, ttlMs: 60_000, reply: () => '{}' } }
        ),
        IdempotencyClaimLostError
      )
      assert.equal(await store.get(key), null)
      assert.equal((await store.claimIdempotency(scope, 'fp', 30_000)).claimed, true)
    })

    it('Should prove it can write', async () => {
      await store.checkWritable()
    })

    it('Should tell subscribers about every write and deletion', async () => {
      const key = { tenant: uniqueTenant(), sessionId: 'watched' }
      const heard: string[] = []
      const unsubscribe = store.subscribe((event) => {
        if (event.tenant === key.tenant)
          heard.push(`${event.session_id}:${event.version}:${event.source}`)
      })
      try {
        await bump(store, key, clock.now)
        await bump(store, key, clock.now)
        await store.delete(key)
        const expected = ['watched:1:round', 'watched:2:round', 'watched:0:delete']
        for (let waited = 0; heard.length < expected.length && waited < 2000; waited += 10) {
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        assert.deepEqual(heard, expected)
      } finally {
        unsubscribe()
      }
    })

    it('Should answer ping', async () => {
      await store.ping()
    })
  })
}
