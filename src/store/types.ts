/**
 * @module store/types
 * The storage seam: one interface, one atomic read-modify-write, three backends.
 */
import type { ChangeSource, HistoryEntry, ListState, Session, SessionKey } from '../core/session.js'

/** What an updater decides: a value for the caller and, optionally, a new version to store. */
export interface UpdateDecision<T> {
  value: T
  /** The next state; its `version` must be the current version + 1 (1 for a new session). */
  write?: { session: Session; source: ChangeSource }
}

/**
 * A pure function of the current state (null when absent or expired). A store may call it more
 * than once when a concurrent writer wins the compare-and-set; it must not have side effects.
 */
export type Updater<T> = (current: Session | null) => UpdateDecision<T>

export interface ListCursor {
  updatedAt: number
  sessionId: string
}

export interface ListQuery {
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
  sessions: Session[]
  next: ListCursor | null
}

/** A stored idempotent reply, or a claim on one while the first request runs. */
export interface IdempotencyRecord {
  fingerprint: string
  /** The stored reply body; null while the first request is in flight. */
  reply: string | null
}

export type IdempotencyClaim = { claimed: true } | { claimed: false; record: IdempotencyRecord }

export interface StoreOptions {
  /** Idle sessions expire this long after their last change. */
  ttlMs: number
  /** How many versions of history a session keeps. */
  historyLimit: number
  /** The clock, epoch ms (tests move it). */
  now: () => number
  /** Called on each compare-and-set conflict (another writer won; the update is retried). */
  onConflict?: () => void
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
  readonly kind: 'memory' | 'sqlite' | 'redis'
  /** Present when the store is shared by a fleet (Redis); in-process counters serve otherwise. */
  readonly counters?: SharedCounters
  /** The session, or null when absent or expired. */
  get(key: SessionKey): Promise<Session | null>
  /**
   * Atomic read-modify-write with compare-and-set on `version`: concurrent updates of one
   * session from any number of clients and instances lose nothing.
   */
  update<T>(key: SessionKey, fn: Updater<T>): Promise<T>
  /** Removes a session and its history; false when there was none. */
  delete(key: SessionKey): Promise<boolean>
  /** A tenant's sessions, newest change first. */
  list(tenant: string, query: ListQuery): Promise<ListPage>
  /** How many live sessions a tenant has (Redis: may count a few expired ones until listed). */
  countSessions(tenant: string): Promise<number>
  /** The last `limit` versions, oldest first. */
  history(key: SessionKey, limit: number): Promise<HistoryEntry[]>
  /** Claims an idempotency key, or returns what is stored under it. */
  claimIdempotency(scope: string, fingerprint: string, ttlMs: number): Promise<IdempotencyClaim>
  /** Stores the reply of a claimed key. */
  completeIdempotency(
    scope: string,
    fingerprint: string,
    reply: string,
    ttlMs: number
  ): Promise<void>
  /** Drops a claim whose request did not succeed, so a retry runs again. */
  releaseIdempotency(scope: string): Promise<void>
  /**
   * Hears every change of every session after it is stored, from this instance and (on Redis)
   * every other one. Returns the unsubscribe function.
   */
  subscribe(listener: ChangeListener): () => void
  /** Throws when the backend is unreachable. */
  ping(): Promise<void>
  close(): Promise<void>
}

/** The update of a session raced a concurrent writer too many times. */
export class ConflictRetryError extends Error {
  constructor() {
    super('the session changed concurrently too often; try again')
    this.name = 'ConflictRetryError'
  }
}

/** The storage backend cannot be reached. */
export class StoreUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the session store is unavailable', { cause })
    this.name = 'StoreUnavailableError'
  }
}

/**
 * Checks that an updater's new state follows the current one, so no store writes a version
 * twice or skips one.
 */
export function assertNextVersion(current: Session | null, next: Session): void {
  const expected = (current?.version ?? 0) + 1
  if (next.version !== expected) {
    throw new Error(`updater returned version ${next.version}, expected ${expected}`)
  }
}
