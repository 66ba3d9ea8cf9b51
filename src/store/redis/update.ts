/**
 * @module store/redis/update
 * The update path: one EVALSHA in the steady state. The updater runs on a guess (the guess
 * cache), else on what the turn ahead stored, else on one read; the write script compares the
 * version and the write token (for a new session: the tombstone's version floor), and a refusal
 * carries the winner's record for the retry. An Idempotency-Key's reply goes into the same
 * script; so does the session cap on standalone Redis, while on Cluster a creation first takes a
 * seat (seats.ts).
 */
import { randomBytes } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'
import { historyEntryOf, type Session, type SessionKey } from '../../core/session.js'
import { alertTransitions } from '../../core/transitions.js'
import { briefOf } from '../brief.js'
import { changeEvent } from '../changes.js'
import {
  assertNextVersion,
  ConflictRetryError,
  IdempotencyClaimLostError,
  QuotaExceededError,
  StoreUnavailableError,
  type StoreOptions,
  type UpdateDecision,
  type UpdateOptions,
  type Updater,
} from '../types.js'
import { guarded } from './errors.js'
import type { Base, GuessCache } from './guess-cache.js'
import type { Idempotency } from './idempotency.js'
import { hashTagOf, type KeyLayout } from './keys.js'
import type { Listing } from './listing.js'
import type { Reads } from './reads.js'
import { SEAT_MS, type Seat, type Seats } from './seats.js'
import type { TurnOutcome, TurnQueue } from './turn-queue.js'

export interface UpdateDeps {
  client: Redis | Cluster
  hasCluster: boolean
  keys: KeyLayout
  cache: GuessCache
  queue: TurnQueue
  reads: Reads
  listing: Listing
  idempotency: Idempotency
  /** Cluster only: the session cap's seats. */
  seats: Seats | null
  store: StoreOptions
  /** Attempts of one update under compare-and-set conflicts. */
  maxAttempts: number
}

/** What the write script answers besides a refusal with the winner's state (0). */
const WRITTEN = 1
const CLAIM_LOST = -1
const AT_CAP = -2
const SEAT_LAPSED = -3

/** When a write's outcome is unknown (no reply), the first look at what it did (Cluster). */
const SETTLE_AFTER_MS = 1000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The update of a store.
 * @param deps - connection, key layout, cache, queue, reads, listing, idempotency, seats, options
 */
export function createUpdate(deps: UpdateDeps) {
  const { client, hasCluster, keys, cache, queue, reads, listing, seats, store } = deps

  const instanceId = randomBytes(8).toString('hex')
  let writes = 0
  /** Unique per write across the fleet: the compare-and-set matches it, not only the version. */
  const nextToken = () => `${instanceId}:${(++writes).toString(36)}`

  /**
   * Cluster: a write without a reply may have committed while its index step did not run. Once
   * Redis answers, index the session when it is live (giving back its creation's seat); a
   * creation not seen yet is looked at again after its seat's deadline, when it can no longer
   * happen.
   */
  const settleLater = (key: SessionKey, seat: Seat | null, delayMs = SETTLE_AFTER_MS) => {
    const timer = setTimeout(() => {
      reads.readBase(key).then(
        (base) => {
          if (base.session) void listing.indexAdd(key, base.session.updated_at, seat)
          else if (seat && delayMs < SEAT_MS) settleLater(key, seat, SEAT_MS)
        },
        () => undefined
      )
    }, delayMs)
    timer.unref()
  }

  const writeWithRetries = async <T>(
    key: SessionKey,
    start: Base,
    guessed: boolean,
    fn: Updater<T>,
    outcome: TurnOutcome,
    options: UpdateOptions<T> | undefined
  ): Promise<T> => {
    const sessionKey = keys.session(key)
    const historyKey = keys.history(key)
    const claim = options?.idempotency
    const idempotencyKey = claim && keys.idempotency(claim.scope)
    if (idempotencyKey && hashTagOf(idempotencyKey) !== hashTagOf(sessionKey)) {
      throw new Error('the idempotency scope names another session than the update')
    }
    const cap = options?.maxSessionsPerTenant ?? 0
    /** Cluster: the creation's place in the tenant's count, until the index holds it. */
    let seat: Seat | null = null
    let base = start
    try {
      for (let attempt = 1; ;) {
        const versionFloor = base.session ? 0 : base.floor
        let decision: UpdateDecision<T> | null = null
        let thrown: { error: unknown } | null = null
        try {
          decision = fn(base.session, { versionFloor })
        } catch (error) {
          thrown = { error }
        }
        if (guessed && !decision?.write) {
          // the compare-and-set verifies a guess only when the updater writes: a decision
          // without a write, or a refusal thrown, on the cached guess holds only if one read
          // confirms it
          guessed = false
          const fresh = await reads.readBase(key)
          if (fresh.token !== base.token || fresh.session?.version !== base.session?.version) {
            base = fresh
            continue
          }
        }
        if (!decision) throw thrown!.error
        if (!decision.write) {
          if (claim) await deps.idempotency.storeReply(claim, decision.value)
          return decision.value
        }
        const { session, source, quiet } = decision.write
        assertNextVersion(base.session, session, versionFloor, quiet)
        const create = base.session === null
        if (create && cap > 0 && seats) seat ??= await seats.reserve(key, cap)
        const now = store.now()
        const token = nextToken()
        const events =
          store.staleAfterMs === undefined
            ? []
            : alertTransitions(base.session, session, store.staleAfterMs).map((t) =>
                JSON.stringify({ ...t, id: randomBytes(12).toString('hex') })
              )
        if (events.length > 0) {
          // the intention first: a crash after the write leaves the session listed as dirty,
          // so its outbox is drained; a crash before it leaves an empty outbox listed, which
          // the drain forgets (store/redis/alerts.ts)
          await guarded(() =>
            client.zadd(keys.alertsDirty, now, JSON.stringify([key.tenant, key.sessionId]))
          )
        }
        // positional, as write-session.lua reads them: no JSON for the script to decode
        const args = [
          create ? '1' : '0',
          String(base.session?.version ?? versionFloor),
          base.token ?? '',
          String(now),
          String(session.version),
          token,
          String(now + store.ttlMs),
          String(store.ttlMs),
          String(store.historyLimit),
          keys.channel,
          claim?.token ?? '',
          claim ? String(now + claim.ttlMs) : '',
          claim ? String(claim.ttlMs) : '',
          hasCluster ? '0' : '1',
          String(session.updated_at),
          key.sessionId,
          String(hasCluster ? 0 : cap),
          create && seat ? String(seat.deadline) : '',
          quiet === true ? '1' : '0',
          JSON.stringify(session),
          // a quiet write adds no history entry (write-session.lua): no list to serialise twice
          quiet ? '' : JSON.stringify(historyEntryOf(session, source)),
          JSON.stringify(changeEvent(key, session.version, source, quiet)),
          JSON.stringify(briefOf(session)),
          claim ? claim.reply(decision.value) : '',
          ...events,
        ]
        const scriptKeys = [sessionKey, historyKey]
        if (idempotencyKey) scriptKeys.push(idempotencyKey)
        if (!hasCluster) scriptKeys.push(keys.index(key.tenant))
        if (events.length > 0) scriptKeys.push(keys.outbox(key))
        let reply
        try {
          reply = await guarded(() => client.atWrite(scriptKeys.length, ...scriptKeys, ...args))
        } catch (error) {
          // no reply: it may have committed (a refusal, write-only, did not)
          if (hasCluster && error instanceof StoreUnavailableError && !error.writeOnly) {
            settleLater(key, create ? seat : null)
            seat = null
          }
          throw error
        }
        const [status] = reply
        if (status === WRITTEN) {
          if (events.length > 0) {
            // listed again after the write: a drain that raced it keeps the session listed
            void client
              .zadd(keys.alertsDirty, now, JSON.stringify([key.tenant, key.sessionId]))
              .catch(() => undefined)
          }
          const stored: Base = { session, token, floor: 0 }
          outcome.stored = stored
          cache.remember(sessionKey, stored)
          // the reply waits for the index: a listing or count right after it shows the session
          if (hasCluster) await listing.indexAdd(key, session.updated_at, create ? seat : null)
          if (create) seat = null
          return decision.value
        }
        if (status === CLAIM_LOST) throw new IdempotencyClaimLostError()
        if (status === AT_CAP) throw new QuotaExceededError(cap)
        if (status === SEAT_LAPSED) {
          seat = null
        } else {
          store.onConflict?.()
          // the refusal carries the winner's state (and its token), or the floor of an absent
          // session; it is the next attempt's base
          base =
            typeof reply[1] === 'string'
              ? { session: JSON.parse(reply[1]) as Session, token: reply[2] ?? null, floor: 0 }
              : { session: null, token: null, floor: Number(reply[3] ?? 0) }
          guessed = false
          cache.remember(sessionKey, base)
        }
        if (attempt >= deps.maxAttempts) throw new ConflictRetryError()
        // a little jitter spreads a herd of instances
        if (attempt > 2) await sleep(Math.random() * Math.min(attempt, 10))
        attempt++
      }
    } finally {
      // a creation that did not happen (refused, thrown, or it turned out to be an update)
      if (seat) seats?.release(key, seat)
    }
  }

  return <T>(key: SessionKey, fn: Updater<T>, options?: UpdateOptions<T>): Promise<T> => {
    const sessionKey = keys.session(key)
    return queue.run(sessionKey, async (handed, outcome) => {
      // the cached record (a read or refusal since is newer than what the turn ahead stored),
      // else what the turn ahead stored, else one read; only a cached record this instance did
      // not just store itself is a guess the updater's decision must be checked against
      const cached = cache.get(sessionKey)
      const start = cached ?? handed ?? (await reads.readBase(key))
      const guessed = cached !== undefined && cached.token !== handed?.token
      return writeWithRetries(key, start, guessed, fn, outcome, options)
    })
  }
}
