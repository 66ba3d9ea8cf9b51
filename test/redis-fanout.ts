/**
 * Change fan-out between instances: two stores on one Redis (one key prefix) each hear the other's
 * writes and deletions, in version order per session.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newSession, type Session, type SessionKey } from '../src/core/session.js'
import type { ChangeEvent, SessionStore, StoreOptions } from '../src/store/types.js'
import { eventually } from './eventually.js'

const quietLogger = { info: () => undefined, warn: () => undefined }

const waitFor = (check: () => boolean) => eventually(check)

function bump(store: SessionStore, key: SessionKey) {
  return store.update(key, (current) => {
    const base = current ?? newSession(key, 's03', {}, Date.now())
    const next: Session = {
      ...base,
      round: base.round + 1,
      version: base.version + 1,
      updated_at: Date.now(),
    }
    return { value: next, write: { session: next, source: 'round' as const } }
  })
}

/**
 * Registers the fan-out tests.
 * @param name - backend name for titles
 * @param factory - opens one instance of the store (each call a separate connection)
 */
export function fanOutSuite(
  name: string,
  factory: (options: StoreOptions & { logger: typeof quietLogger }) => Promise<SessionStore>
) {
  describe(`Change fan-out between instances: ${name}`, () => {
    let a: SessionStore
    let b: SessionStore
    const heardByA: ChangeEvent[] = []
    const heardByB: ChangeEvent[] = []
    const tenant = `fan-${process.pid}-${Date.now()}`
    before(async () => {
      const options = { ttlMs: 3_600_000, historyLimit: 5, now: Date.now, logger: quietLogger }
      a = await factory(options)
      b = await factory(options)
      a.subscribe((event) => event.tenant === tenant && heardByA.push(event))
      b.subscribe((event) => event.tenant === tenant && heardByB.push(event))
    })
    after(async () => {
      await Promise.all([a?.close(), b?.close()])
    })

    it('Should let every instance hear writes and deletions made on another one', async () => {
      const key = { tenant, sessionId: 'shared' }
      await bump(a, key)
      await bump(b, key)
      await a.delete(key)
      const expected = [
        { tenant, session_id: 'shared', version: 1, source: 'round' },
        { tenant, session_id: 'shared', version: 2, source: 'round' },
        { tenant, session_id: 'shared', version: 0, source: 'delete' },
      ]
      await waitFor(() => heardByA.length >= 3 && heardByB.length >= 3)
      assert.deepEqual(heardByA, expected)
      assert.deepEqual(heardByB, expected)
    })

    it('Should deliver concurrent writes from two instances once each, in version order', async () => {
      heardByA.length = 0
      heardByB.length = 0
      const key = { tenant, sessionId: 'hot' }
      await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 ? a : b, key)))
      await waitFor(() => heardByA.length >= 40 && heardByB.length >= 40)
      const versions = Array.from({ length: 40 }, (_, i) => i + 1)
      assert.deepEqual(
        heardByA.map((event) => event.version),
        versions
      )
      assert.deepEqual(
        heardByB.map((event) => event.version),
        versions
      )
    })
  })
}
