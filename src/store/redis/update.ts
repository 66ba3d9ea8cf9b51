/**
 * @module store/redis/update
 * The update path: one EVALSHA in the steady state. The updater runs on a guess (the guess
 * cache), else on what the turn ahead stored, else on one read; the write script compares the
 * version and the write token, and a refusal carries the winner's record for the retry.
 */
import { randomBytes } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import { historyEntryOf, type Session, type SessionKey } from '../../core/session.js'
import { changeEvent } from '../changes.js'
import {
  assertNextVersion,
  ConflictRetryError,
  type StoreOptions,
  type UpdateDecision,
  type Updater,
} from '../types.js'
import { guarded } from './errors.js'
import type { Base, GuessCache } from './guess-cache.js'
import type { KeyLayout } from './keys.js'
import type { Listing } from './listing.js'
import type { Reads } from './reads.js'
import type { TurnOutcome, TurnQueue } from './turn-queue.js'

export interface UpdateOptions {
  client: Redis | Cluster
  hasCluster: boolean
  keys: KeyLayout
  cache: GuessCache
  queue: TurnQueue
  reads: Reads
  listing: Listing
  store: StoreOptions
  /** Attempts of one update under compare-and-set conflicts. */
  maxAttempts: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The update of a store.
 * @param options - connection, key layout, cache, queue, reads, listing, store options
 */
export function createUpdate(options: UpdateOptions) {
  const { client, hasCluster, keys, cache, queue, reads, listing, store, maxAttempts } = options

  const instanceId = randomBytes(8).toString('hex')
  let writes = 0
  /** Unique per write across the fleet: the compare-and-set matches it, not only the version. */
  const nextToken = () => `${instanceId}:${(++writes).toString(36)}`

  const writeWithRetries = async <T>(
    key: SessionKey,
    start: Base,
    guessed: boolean,
    fn: Updater<T>,
    outcome: TurnOutcome
  ): Promise<T> => {
    const sessionKey = keys.session(key)
    const historyKey = keys.history(key)
    let base = start
    for (let attempt = 1; ;) {
      let decision: UpdateDecision<T> | null = null
      let thrown: { error: unknown } | null = null
      try {
        decision = fn(base.session)
      } catch (error) {
        thrown = { error }
      }
      if (guessed && !decision?.write) {
        // the compare-and-set verifies a guess only when the updater writes: a decision without
        // a write, or a refusal thrown, on the cached guess holds only if one read confirms it
        guessed = false
        const fresh = await reads.readBase(key)
        if (fresh.token !== base.token || fresh.session?.version !== base.session?.version) {
          base = fresh
          continue
        }
      }
      if (!decision) throw thrown!.error
      if (!decision.write) return decision.value
      const { session, source } = decision.write
      assertNextVersion(base.session, session)
      const now = store.now()
      const token = nextToken()
      const write = JSON.stringify({
        expectedVersion: base.session?.version ?? 0,
        expectedToken: base.token ?? '',
        now,
        version: session.version,
        token,
        expiresAt: now + store.ttlMs,
        ttlMs: store.ttlMs,
        historyLimit: store.historyLimit,
        channel: keys.channel,
        score: session.updated_at,
        member: key.sessionId,
      })
      const record = JSON.stringify(session)
      const entry = JSON.stringify(historyEntryOf(session, source))
      const event = JSON.stringify(changeEvent(key, session.version, source))
      const reply = await guarded(() =>
        hasCluster
          ? client.atWrite(sessionKey, historyKey, write, record, entry, event)
          : client.atWriteIndexed(
              sessionKey,
              historyKey,
              keys.index(key.tenant),
              write,
              record,
              entry,
              event
            )
      )
      if (reply[0] === 1) {
        const stored: Base = { session, token }
        outcome.stored = stored
        cache.remember(sessionKey, stored)
        if (hasCluster) listing.indexAdd(key, session.updated_at)
        return decision.value
      }
      store.onConflict?.()
      // the refusal carries the winner's state (and its token); it is the next attempt's base
      base =
        typeof reply[1] === 'string'
          ? { session: JSON.parse(reply[1]) as Session, token: reply[2] ?? null }
          : { session: null, token: null }
      guessed = false
      cache.remember(sessionKey, base)
      if (attempt >= maxAttempts) throw new ConflictRetryError()
      // a little jitter spreads a herd of instances
      if (attempt > 2) await sleep(Math.random() * Math.min(attempt, 10))
      attempt++
    }
  }

  return <T>(key: SessionKey, fn: Updater<T>): Promise<T> => {
    const sessionKey = keys.session(key)
    return queue.run(sessionKey, async (handed, outcome) => {
      // the cached record (a read or refusal since is newer than what the turn ahead stored),
      // else what the turn ahead stored, else one read; only a cached record this instance did
      // not just store itself is a guess the updater's decision must be checked against
      const cached = cache.get(sessionKey)
      const start = cached ?? handed ?? (await reads.readBase(key))
      const guessed = cached !== undefined && cached.token !== handed?.token
      return writeWithRetries(key, start, guessed, fn, outcome)
    })
  }
}
