/**
 * @module service/decisions-hold
 * A `?decide=1` hook held open until its request is answered or expires. The answer is the
 * session's stored request state, and the hold hears it through the store's change
 * notification (`store.subscribe`: on Redis every instance's writes), so a decision posted to
 * any instance of a fleet reaches the hook another one holds. A held hook costs a timer and an
 * entry in one map per store (one subscription for all of them): no thread, no connection.
 */
import { recordOf } from '../core/decisions.js'
import type { DecisionRecord, SessionKey } from '../core/session.js'
import type { ChangeEvent, SessionStore } from '../store/types.js'
import { expireRequest } from './decisions.js'

/** A held hook: told when its session changes. */
type Waiter = () => void

/** The hooks held on one store, by tenant and session. */
interface Holds {
  waiters: Map<string, Set<Waiter>>
  unsubscribe: (() => void) | null
}

const HOLDS = new WeakMap<SessionStore, Holds>()

const slot = (tenant: string, sessionId: string) => `${tenant}\u0000${sessionId}`

/** The holds of a store; its one subscription is made by the first hold and dropped by the last. */
function holdsOf(store: SessionStore): Holds {
  let holds = HOLDS.get(store)
  if (!holds) {
    holds = { waiters: new Map(), unsubscribe: null }
    HOLDS.set(store, holds)
  }
  return holds
}

/** Adds a waiter for a session; returns its removal. */
function addWaiter(store: SessionStore, key: SessionKey, waiter: Waiter): () => void {
  const holds = holdsOf(store)
  const id = slot(key.tenant, key.sessionId)
  let set = holds.waiters.get(id)
  if (!set) holds.waiters.set(id, (set = new Set()))
  set.add(waiter)
  if (!holds.unsubscribe) {
    holds.unsubscribe = store.subscribe((event: ChangeEvent) => {
      const waiting = holds.waiters.get(slot(event.tenant, event.session_id))
      if (waiting) for (const wake of [...waiting]) wake()
    })
  }
  return () => {
    set.delete(waiter)
    if (set.size === 0) holds.waiters.delete(id)
    if (holds.waiters.size === 0 && holds.unsubscribe) {
      holds.unsubscribe()
      holds.unsubscribe = null
    }
  }
}

/** How many hooks are held on a store (metrics, tests). */
export const heldCount = (store: SessionStore): number => {
  let n = 0
  for (const set of HOLDS.get(store)?.waiters.values() ?? []) n += set.size
  return n
}

/**
 * Waits for a request's answer: resolves with its record once it has one (a person's answer,
 * `answered_elsewhere`), or at `deadline` with the record made `expired` (unless an answer won
 * the race), or null when the client went away or the request is gone. Never rejects for the
 * store's trouble while waiting: a read that fails is tried again at the next change or the
 * deadline.
 * @param deps - the store and clock
 * @param hold - the session, the request, the deadline (epoch ms), the client's signal
 */
export function awaitAnswer(
  deps: { store: SessionStore; now: () => number },
  hold: { key: SessionKey; requestId: string; deadline: number; signal?: AbortSignal }
): Promise<DecisionRecord | null> {
  const { store } = deps
  const { key, requestId, signal } = hold
  return new Promise((resolve) => {
    let done = false
    let reading = false
    let again = false
    const finish = (record: DecisionRecord | null) => {
      if (done) return
      done = true
      clearTimeout(timer)
      remove()
      signal?.removeEventListener('abort', onAbort)
      resolve(record)
    }
    const check = async () => {
      if (done) return
      if (reading) {
        again = true
        return
      }
      reading = true
      try {
        const record = recordOf(await store.get(key), requestId)
        if (!record) finish(null)
        else if (record.answer) finish(record)
      } catch {
        // read again at the next change, or settle at the deadline
      } finally {
        reading = false
        if (again && !done) {
          again = false
          void check()
        }
      }
    }
    const expire = async () => {
      try {
        finish(await expireRequest(deps, key, requestId))
      } catch {
        finish(null)
      }
    }
    // the agent closed the hook (its own timeout, an interrupt): nobody can take an answer now
    const onAbort = () => {
      if (!done) void expire()
    }
    const remove = addWaiter(store, key, () => void check())
    const timer = setTimeout(() => void expire(), Math.max(0, hold.deadline - deps.now()))
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    // an answer may have come between the delivery and the subscription
    void check()
  })
}

/**
 * Holds a `?decide=1` hook whose delivery opened (or found open) a request: the session's last
 * request of that match, until its answer or its expiry. Null when the delivery opened none (the
 * session ended, the hook asked nothing).
 * @param deps - the store and clock
 * @param hold - the session the delivery fed, the request's match, the client's signal
 */
export async function holdForAnswer(
  deps: { store: SessionStore; now: () => number },
  hold: { key: SessionKey; match: string; signal?: AbortSignal }
): Promise<DecisionRecord | null> {
  const session = await deps.store.get(hold.key)
  const records = session?.observed?.decisions ?? []
  const record = records.findLast((candidate) => candidate.request.match === hold.match)
  if (!record) return null
  if (record.answer) return record
  return awaitAnswer(deps, {
    key: hold.key,
    requestId: record.request.id,
    deadline: record.request.expires_at,
    signal: hold.signal,
  })
}
