/**
 * @module store/types
 * The storage seam: one interface, one atomic read-modify-write, three backends.
 */
import type { OriginFilter } from '../core/origin.js'
import type { SessionBrief } from './brief.js'
import type { AlertStore } from './alerts/types.js'
import type { PeopleStore } from './people/types.js'
import type { ChangeSource, HistoryEntry, ListState, Session, SessionKey } from '../core/session.js'

/** What an updater decides: a value for the caller and, optionally, a new version to store. */
export interface UpdateDecision<T> {
  value: T
  /**
   * The next state; its `version` must be the current version + 1 (1 for a new session), or,
   * when `quiet`, the current version.
   */
  write?: {
    session: Session
    source: ChangeSource
    /**
     * Keep the record without a new version: no history entry, and its change event says
     * `quiet` (streams send the view again under the same id). For what
     * a session records but does not show as a change (SPEC: an observed session's version
     * grows only when its list or lifecycle does): an agent's staged call, a keep-alive that
     * moves `updated_at`. Only for an existing session.
     */
    quiet?: boolean
  }
}

/** What a store tells an updater besides the current state. */
export interface UpdateContext {
  /**
   * The version a new session must follow: the last version of a deleted session of the same id
   * whose tombstone has not expired (0 when none), so that a version never names two states.
   */
  versionFloor: number
}

/**
 * A pure function of the current state (null when absent or expired). A store may call it more
 * than once when a concurrent writer wins the compare-and-set; it must not have side effects.
 */
export type Updater<T> = (current: Session | null, context: UpdateContext) => UpdateDecision<T>

/** An Idempotency-Key's reply, stored in the same atomic step as the change it answers. */
export interface IdempotentReply<T> {
  /** The key's scope (tenant, session, key). */
  scope: string
  /** The token `claimIdempotency` returned: the write happens only while this claim holds. */
  token: string
  /** How long the reply is kept. */
  ttlMs: number
  /** The reply body for the update's value. */
  reply: (value: T) => string
}

export interface UpdateOptions<T> {
  /**
   * Refuse to create a session when the tenant already holds this many live ones (tombstones of
   * deleted sessions do not count); the count and the creation are one atomic step. 0 or absent:
   * no cap.
   */
  maxSessionsPerTenant?: number
  /** Store this reply with the change, atomically (see `claimIdempotency`). */
  idempotency?: IdempotentReply<T>
}

export interface ListCursor {
  updatedAt: number
  sessionId: string
}

export interface ListQuery extends OriginFilter {
  state: ListState
  /** Epoch ms: unfinished sessions not changed since are stale. */
  staleBefore: number
  limit: number
  cursor?: ListCursor
  /** Only sessions of this dialect. */
  dialect?: string
  /** Only sessions fed first by this source (`rounds` or an observed agent). */
  source?: string
  /** Only sessions changed at or after this epoch ms. */
  updatedSince?: number
}

export interface ListPage {
  /** The sessions' briefs (what a listing line shows), read without the sessions themselves. */
  sessions: SessionBrief[]
  next: ListCursor | null
}

/** A stored idempotent reply, or a claim on one while the first request runs. */
export interface IdempotencyRecord {
  fingerprint: string
  /** The stored reply body; null while the first request is in flight. */
  reply: string | null
}

export type IdempotencyClaim =
  { claimed: true; token: string } | { claimed: false; record: IdempotencyRecord }

export interface StoreOptions {
  /** Idle sessions expire this long after their last change. */
  ttlMs: number
  /** How many versions of history a session keeps. */
  historyLimit: number
  /** The clock, epoch ms (tests move it). */
  now: () => number
  /** Called on each compare-and-set conflict (another writer won; the update is retried). */
  onConflict?: () => void
  /**
   * `STALE_AFTER_SECONDS` in ms. When set, each write also stores the alert transitions it made
   * (`core/transitions`) in the outbox, in the same atomic step (`SessionStore.alerts`).
   */
  staleAfterMs?: number
}

/** Where the store reports connection trouble; pino's logger fits. */
export interface StoreLogger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

/** A new version of a session (or its deletion), as every instance hears it. */
export interface ChangeEvent {
  tenant: string
  session_id: string
  version: number
  source: ChangeSource
  /** A quiet write: the record changed under the same version (its view is sent again). */
  quiet?: true
}

export type ChangeListener = (event: ChangeEvent) => void

/**
 * Fixed-window counters that every instance sharing the store sees (the per-tenant rate limit of
 * a fleet).
 */
export interface SharedCounters {
  /** Counts one hit in the key's window, which its first hit opens for `windowMs`. */
  increment(key: string, windowMs: number): Promise<{ hits: number; resetInMs: number }>
  /** Takes one hit back (a request the limiter decided not to count). */
  decrement(key: string): Promise<void>
  /** Forgets the key's window. */
  reset(key: string): Promise<void>
}

export interface SessionStore {
  readonly kind: 'memory' | 'sqlite' | 'redis' | 'postgres'
  /** Present when the store is shared by a fleet (Redis); in-process counters serve otherwise. */
  readonly counters?: SharedCounters
  /** Webhooks, the outbox of alert transitions and their deliveries (docs/alerts.md). */
  readonly alerts?: AlertStore
  /**
   * Personal tokens and the audit trail (docs/people.md): `createToken`, `findToken`, …,
   * `appendAudit`, `listAudit`. Every store of this release has them; optional so that a store
   * without them still serves sessions (tokens and the audit are then off).
   */
  readonly people?: PeopleStore
  /** The session, or null when absent or expired. */
  get(key: SessionKey): Promise<Session | null>
  /**
   * The session's brief (what a listing line and a tenant stream's update show), read without
   * the session; null when absent or expired.
   */
  brief(key: SessionKey): Promise<SessionBrief | null>
  /**
   * Atomic read-modify-write with compare-and-set on `version`: concurrent updates of one
   * session from any number of clients and instances lose nothing.
   * @throws QuotaExceededError when `options.maxSessionsPerTenant` refuses a creation
   * @throws IdempotencyClaimLostError when `options.idempotency`'s claim no longer holds
   */
  update<T>(key: SessionKey, fn: Updater<T>, options?: UpdateOptions<T>): Promise<T>
  /**
   * Removes a session and its history; false when there was none. A tombstone keeps its last
   * version for the session TTL, so a re-created session goes on from there.
   */
  delete(key: SessionKey): Promise<boolean>
  /** A tenant's sessions, newest change first. */
  list(tenant: string, query: ListQuery): Promise<ListPage>
  /** How many live sessions a tenant has (Redis: may count a few expired ones until listed). */
  countSessions(tenant: string): Promise<number>
  /**
   * The newest `limit` stored versions older than `beforeVersion` (all when absent), oldest
   * first. With `maxBytes` the page may end sooner: entries are taken newest first until the
   * JSON of their lists (`historyBytes`) adds up to more than `maxBytes`, the entry that passes
   * it included, so a page of large lists reads and parses about its budget, not `limit` lists.
   */
  history(
    key: SessionKey,
    limit: number,
    beforeVersion?: number,
    maxBytes?: number
  ): Promise<HistoryEntry[]>
  /**
   * `history`, each entry's list as its stored JSON text, not parsed: for a reply that sends the
   * lists as they are (a page of large lists then costs copying them, not parsing them).
   */
  historyText(
    key: SessionKey,
    limit: number,
    beforeVersion?: number,
    maxBytes?: number
  ): Promise<HistoryText[]>
  /**
   * Claims an idempotency key for `ttlMs` (the in-flight window), or returns what is stored
   * under it. The claim's token goes into `update`'s `idempotency` option, which stores the
   * reply with the change in one atomic step: a retry always finds out whether it committed.
   */
  claimIdempotency(scope: string, fingerprint: string, ttlMs: number): Promise<IdempotencyClaim>
  /**
   * Drops a claim whose request did not commit, so a retry runs again; a no-op when the claim is
   * no longer this token's or its reply is stored.
   */
  releaseIdempotency(scope: string, token: string): Promise<void>
  /**
   * Hears every change of every session after it is stored, from this instance and (on Redis)
   * every other one. Returns the unsubscribe function.
   */
  subscribe(listener: ChangeListener): () => void
  /** Throws when the backend is unreachable. */
  ping(): Promise<void>
  /**
   * Writes and removes a probe record: throws StoreUnavailableError while the backend cannot
   * write (disk full, read-only, out of memory). Readiness uses it after a failed write.
   */
  checkWritable(): Promise<void>
  close(): Promise<void>
}

/** A history entry whose list is its JSON text (`SessionStore.historyText`). */
export interface HistoryText extends Omit<HistoryEntry, 'items'> {
  items: string
}

/**
 * What a history entry counts against a page's `maxBytes`: the length of its list's JSON, which
 * is at most that JSON's UTF-8 bytes (so a caller that counts the bytes of the entries it sends
 * passes its own budget whenever a store stopped at it).
 * @param itemsJson - the list's JSON text
 */
export const historyBytes = (itemsJson: string): number => itemsJson.length

/** The update of a session raced a concurrent writer too many times. */
export class ConflictRetryError extends Error {
  constructor() {
    super('the session changed concurrently too often; try again')
    this.name = 'ConflictRetryError'
  }
}

/**
 * The storage backend cannot be reached, or cannot write (disk full, read-only or corrupt file,
 * out of memory): the request may be retried later.
 */
export class StoreUnavailableError extends Error {
  constructor(
    cause?: unknown,
    /** True when reads may still work and only writes fail. */
    readonly writeOnly = false
  ) {
    super(writeOnly ? 'the session store cannot write' : 'the session store is unavailable', {
      cause,
    })
    this.name = 'StoreUnavailableError'
  }
}

/** A creation refused by `UpdateOptions.maxSessionsPerTenant`. */
export class QuotaExceededError extends Error {
  constructor(readonly cap: number) {
    super(`the tenant holds ${cap} live sessions already`)
    this.name = 'QuotaExceededError'
  }
}

/**
 * The idempotency claim an update was made under expired, was released or was taken over:
 * nothing was written.
 */
export class IdempotencyClaimLostError extends Error {
  constructor() {
    super('the Idempotency-Key claim no longer holds')
    this.name = 'IdempotencyClaimLostError'
  }
}

/**
 * Checks that an updater's new state follows the current one, so no store writes a version
 * twice or skips one (a quiet write keeps the current version of an existing session).
 * @param current - the stored session, or null
 * @param next - what the updater returned
 * @param versionFloor - for a new session, the version its deleted predecessor reached
 * @param quiet - the write keeps the version (`UpdateDecision.write.quiet`)
 */
export function assertNextVersion(
  current: Session | null,
  next: Session,
  versionFloor = 0,
  quiet = false
): void {
  if (quiet && current === null) throw new Error('a quiet write needs an existing session')
  const expected = (current?.version ?? versionFloor) + (quiet ? 0 : 1)
  if (next.version !== expected) {
    throw new Error(`updater returned version ${next.version}, expected ${expected}`)
  }
}
