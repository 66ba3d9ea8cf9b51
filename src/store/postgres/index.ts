/**
 * @module store/postgres
 * `STORE=postgres`: the company's own PostgreSQL (15 or newer) as the store of record, through
 * `pg` (node-postgres). Chosen over `postgres` (porsager) because its LISTEN client, pool and
 * error codes are plain and long-lived, its prepared statements are named per shape (one parse
 * per connection), and it is what most platform teams' tooling already runs.
 *
 * A write is one statement (`sql.ts`): read the row (one round trip), decide in process, then the
 * compare-and-set with history, outbox, idempotent reply and NOTIFY in one atomic statement (one
 * round trip). A creation under a session cap takes the tenant's advisory lock in a transaction.
 * Every instance LISTENs, so streams anywhere hear every write (`listen.ts`).
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import {
  stateColumns,
  type HistoryEntry,
  type Session,
  type SessionKey,
} from '../../core/session.js'
import { alertTransitions } from '../../core/transitions.js'
import { briefOf, parseBrief } from '../brief.js'
import { changeEvent, createChangeFeed } from '../changes.js'
import { cursorAfter } from '../cursor.js'
import {
  assertNextVersion,
  ConflictRetryError,
  IdempotencyClaimLostError,
  QuotaExceededError,
  type ChangeEvent,
  type HistoryText,
  type IdempotencyClaim,
  type SessionStore,
  type StoreLogger,
  type StoreOptions,
  type UpdateDecision,
  type UpdateOptions,
  type Updater,
} from '../types.js'
import { pgGuarded } from './faults.js'
import { listenForChanges } from './listen.js'
import { migratePostgres } from './migrations.js'
import { createPgCounters } from './counters.js'
import { createPostgresAlerts } from './alerts.js'
import { createPostgresPeople } from './people.js'
import {
  CLAIM_IDEMPOTENCY,
  DELETE_SESSION,
  DROP_EXPIRED,
  HISTORY_PAGE,
  listStatement,
  SELECT_FOR_UPDATE,
  writeStatement,
  type WriteShape,
  type WriteValues,
} from './sql.js'

export interface PostgresOptions extends StoreOptions {
  /** `postgres://…` (`DATABASE_URL`). */
  url: string
  /** Connections in the pool (`PG_POOL_SIZE`, default 10). */
  poolSize?: number
  logger?: StoreLogger
}

/** How often one update is tried again after losing its compare-and-set. */
const MAX_ATTEMPTS = 50
/** How long a request waits for a connection before the store answers 503. */
const CONNECT_TIMEOUT_MS = 2_000
/** How long one statement may run before the store answers 503 (a stuck server, a lock). */
const QUERY_TIMEOUT_MS = 10_000

/** Sessions whose last written row an instance keeps as the start of its next update. */
const KNOWN_ROWS = 10_000

/** A session row as the write path reads it. */
interface ReadRow {
  version: number | null
  writes: number | null
  data: string | null
  expires_at: string | null
  floor: number | null
  floor_expires: string | null
}

/** A known row's fields besides version and write count (the write path reads no others). */
const EMPTY_ROW: ReadRow = {
  version: null,
  writes: null,
  data: null,
  expires_at: null,
  floor: null,
  floor_expires: null,
}

/**
 * Opens the PostgreSQL store: connects, migrates under an advisory lock, starts LISTENing.
 * @throws Error naming DATABASE_URL's host when PostgreSQL cannot be reached or migrated
 */
export async function createPostgresStore(options: PostgresOptions): Promise<SessionStore> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    application_name: 'agent-todos',
  })
  // an idle client's connection that breaks (a server restart) is dropped from the pool; the
  // next request connects again
  pool.on('error', (error) => options.logger?.warn({ err: error }, 'PostgreSQL connection lost'))
  try {
    const ran = await migratePostgres(pool)
    if (ran.length > 0) {
      options.logger?.info(
        { steps: ran.map((m) => `${m.version}: ${m.name}`) },
        'PostgreSQL schema migrated'
      )
    }
  } catch (error) {
    await pool.end().catch(() => undefined)
    throw new Error(
      `cannot open the PostgreSQL store (DATABASE_URL): ${(error as Error).message}`,
      {
        cause: error,
      }
    )
  }
  return buildStore(pool, options)
}

/**
 * An idempotency scope as a PostgreSQL text: the service joins its parts with NUL, which text
 * cannot hold; its JSON form is as unique and has none.
 */
const scopeText = (scope: string) => JSON.stringify(scope)

/** Reads the PostgreSQL `bigint` columns (strings from `pg`) as numbers. */
const num = (value: string | number | null): number => (value === null ? 0 : Number(value))

function buildStore(pool: pg.Pool, options: PostgresOptions): SessionStore {
  const instance = randomUUID()
  const feed = createChangeFeed()
  const listener = listenForChanges({
    url: options.url,
    instance,
    emit: feed.emit,
    logger: options.logger,
  })
  const alerts = createPostgresAlerts(pool, options.now)
  const query = <R extends pg.QueryResultRow>(
    text: string | pg.QueryConfig,
    values?: unknown[]
  ): Promise<pg.QueryResult<R>> =>
    pgGuarded(() =>
      typeof text === 'string' ? pool.query<R>(text, values) : pool.query<R>({ ...text, values })
    )
  const payload = (event: ChangeEvent) => JSON.stringify({ ...event, instance })

  /** The write of a decision as one statement; false when another writer won. */
  const writeDecision = async <T>(
    key: SessionKey,
    row: ReadRow | null,
    floor: number,
    current: Session | null,
    decision: UpdateDecision<T>,
    updateOptions: UpdateOptions<T> | undefined,
    client?: pg.PoolClient
  ): Promise<{ written: boolean; event?: ChangeEvent }> => {
    const now = options.now()
    const claim = updateOptions?.idempotency
    const write = decision.write
    const shape: WriteShape = {
      create: !current,
      quiet: write?.quiet ?? false,
      idempotent: claim !== undefined,
      replyOnly: write === undefined,
    }
    const values: Partial<WriteValues> = { tenant: key.tenant, sessionId: key.sessionId, now }
    if (claim) {
      values.scope = scopeText(claim.scope)
      values.token = claim.token
      values.reply = claim.reply(decision.value)
      values.replyExpiresAt = now + claim.ttlMs
    }
    let event: ChangeEvent | undefined
    if (write) {
      const { session, source, quiet = false } = write
      const { items, ...rest } = session
      const itemsJson = JSON.stringify(items)
      const restJson = JSON.stringify(rest)
      const columns = stateColumns(session)
      const brief = briefOf(session)
      event = changeEvent(key, session.version, source, quiet)
      const transitions =
        options.staleAfterMs === undefined
          ? []
          : alertTransitions(current, session, options.staleAfterMs)
      Object.assign(values, {
        version: session.version,
        data: `{"items":${itemsJson}${restJson === '{}' ? '}' : `,${restJson.slice(1)}`}`,
        brief: JSON.stringify(brief),
        total: columns.total,
        unfinished: columns.unfinished,
        ended: columns.ended,
        waiting: brief.waiting !== null,
        updatedAt: session.updated_at,
        expiresAt: now + options.ttlMs,
        expected: current ? row!.version! : floor,
        writes: current ? row!.writes! : 0,
        source,
        items: itemsJson,
        historyLimit: options.historyLimit,
        notification: payload(event),
        outbox: JSON.stringify(transitions),
      } satisfies Partial<WriteValues>)
    }
    const statement = writeStatement(shape)
    const config = {
      name: statement.name,
      text: statement.text,
      values: statement.params.map((param) => values[param]),
    }
    const result = await pgGuarded(() =>
      client
        ? client.query<{ written: number; claimed?: number }>(config)
        : pool.query<{ written: number; claimed?: number }>(config)
    )
    const out = result.rows[0]
    if (claim && out.claimed === 0) throw new IdempotencyClaimLostError()
    if (shape.replyOnly) return { written: true }
    return { written: out.written > 0, event }
  }

  /** Creates a session under the tenant's cap: the count and the insert under one lock. */
  const createUnderCap = async <T>(
    key: SessionKey,
    floor: number,
    decision: UpdateDecision<T>,
    updateOptions: UpdateOptions<T>,
    cap: number
  ): Promise<{ written: boolean; event?: ChangeEvent }> => {
    const client = await pgGuarded(() => pool.connect())
    try {
      await pgGuarded(() => client.query('BEGIN'))
      await pgGuarded(() =>
        client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `quota:${key.tenant}`,
        ])
      )
      const { rows } = await pgGuarded(() =>
        client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM sessions WHERE tenant = $1 AND expires_at > $2',
          [key.tenant, options.now()]
        )
      )
      if (rows[0].n >= cap) throw new QuotaExceededError(cap)
      const outcome = await writeDecision(key, null, floor, null, decision, updateOptions, client)
      await pgGuarded(() => client.query('COMMIT'))
      return outcome
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release()
    }
  }

  /**
   * The last row this instance wrote, per session: the next update of that session starts from
   * it instead of reading (one round trip instead of two), a guess the write's compare-and-set on
   * version and write count verifies. Never what a read returns.
   */
  const known = new Map<string, { session: Session; row: ReadRow }>()
  const knownKey = (key: SessionKey) => `${key.tenant}\u0000${key.sessionId}`
  const remember = (key: SessionKey, session: Session, row: ReadRow) => {
    const k = knownKey(key)
    known.delete(k)
    known.set(k, { session, row })
    if (known.size > KNOWN_ROWS) known.delete(known.keys().next().value!)
  }

  /** The session row as stored, read (and an expired one dropped: null then, to try again). */
  const readRow = async (key: SessionKey, now: number) => {
    const { rows } = await query<ReadRow>({ name: 'read', text: SELECT_FOR_UPDATE }, [
      key.tenant,
      key.sessionId,
    ])
    const row: ReadRow | null = rows[0]?.version === null ? null : rows[0]
    if (row && num(row.expires_at) <= now) {
      await query({ name: 'drop-expired', text: DROP_EXPIRED }, [
        key.tenant,
        key.sessionId,
        row.version,
        now,
      ])
      return null
    }
    const tomb = rows[0]
    const floor = !row && tomb?.floor !== null && num(tomb.floor_expires) > now ? tomb.floor : 0
    return { row, floor, current: row ? (JSON.parse(row.data!) as Session) : null }
  }

  /**
   * One try of an update: from the row this instance knows (`guess`) or one read, decide, write;
   * null when the write lost its compare-and-set or the guess could not decide.
   */
  const tryUpdate = async <T>(
    key: SessionKey,
    fn: Updater<T>,
    updateOptions: UpdateOptions<T> | undefined,
    guess: boolean
  ): Promise<{ value: T } | null> => {
    const now = options.now()
    const cached = guess ? known.get(knownKey(key)) : undefined
    const base = cached
      ? { row: cached.row, floor: 0, current: cached.session }
      : await readRow(key, now)
    if (!base) return null
    const { row, floor, current } = base
    let decision: UpdateDecision<T>
    try {
      decision = fn(current, { versionFloor: floor })
    } catch (error) {
      // a refusal decided on a guess holds only if the stored row says the same
      if (cached) return null
      throw error
    }
    const write = decision.write
    // a decision without a write is checked by no compare-and-set: only a read row may make it
    if (cached && !write) return null
    if (write) assertNextVersion(current, write.session, floor, write.quiet)
    if (!write && !updateOptions?.idempotency) return { value: decision.value }
    const cap = updateOptions?.maxSessionsPerTenant
    const outcome =
      write && !current && cap
        ? await createUnderCap(key, floor, decision, updateOptions, cap)
        : await writeDecision(key, row, floor, current, decision, updateOptions)
    if (!outcome.written) {
      known.delete(knownKey(key))
      return null
    }
    if (write) {
      const writes = current ? row!.writes! + 1 : 0
      remember(key, write.session, { ...EMPTY_ROW, version: write.session.version, writes })
    }
    if (outcome.event) feed.emit(outcome.event)
    return { value: decision.value }
  }

  const historyPage = async (
    key: SessionKey,
    limit: number,
    beforeVersion: number | undefined,
    maxBytes: number | undefined
  ): Promise<HistoryText[]> => {
    const now = options.now()
    const live = await query<{ version: number; expires_at: string }>(
      {
        name: 'liveness',
        text: 'SELECT version, expires_at FROM sessions WHERE tenant = $1 AND session_id = $2',
      },
      [key.tenant, key.sessionId]
    )
    const row = live.rows[0]
    if (!row || num(row.expires_at) <= now) return []
    const { rows } = await query<{ version: number; at: string; source: string; items: string }>(
      { name: 'history', text: HISTORY_PAGE },
      [
        key.tenant,
        key.sessionId,
        beforeVersion ?? 2_147_483_647,
        row.version - options.historyLimit,
        maxBytes !== undefined && Number.isFinite(maxBytes) ? maxBytes : Number.MAX_SAFE_INTEGER,
        limit,
      ]
    )
    return rows
      .map((entry) => ({
        version: entry.version,
        at: num(entry.at),
        source: entry.source as HistoryEntry['source'],
        items: entry.items,
      }))
      .reverse()
  }

  const sweep = setInterval(() => {
    const now = options.now()
    void pool
      .query(
        `WITH d AS (DELETE FROM sessions WHERE ctid IN (SELECT ctid FROM sessions WHERE expires_at <= $1 LIMIT 500) RETURNING tenant, session_id)
         DELETE FROM history h USING d WHERE h.tenant = d.tenant AND h.session_id = d.session_id`,
        [now]
      )
      .then(() => pool.query('DELETE FROM idempotency WHERE expires_at <= $1', [now]))
      .then(() => pool.query('DELETE FROM tombstones WHERE expires_at <= $1', [now]))
      .then(() => pool.query('DELETE FROM people_audit WHERE expires_at <= $1', [now]))
      .catch(() => undefined) // an unreachable server skips one sweep; the next catches up
  }, 60_000)
  sweep.unref()

  let closed = false
  return {
    kind: 'postgres',
    counters: createPgCounters(query, options.now),
    alerts: alerts.store,
    people: createPostgresPeople(pool, options.now),
    async get(key) {
      const { rows } = await query<{ data: string; expires_at: string }>(
        {
          name: 'get',
          text: 'SELECT data, expires_at FROM sessions WHERE tenant = $1 AND session_id = $2',
        },
        [key.tenant, key.sessionId]
      )
      const row = rows[0]
      return row && num(row.expires_at) > options.now() ? (JSON.parse(row.data) as Session) : null
    },
    async brief(key) {
      const { rows } = await query<{ brief: string; expires_at: string }>(
        {
          name: 'brief',
          text: 'SELECT brief, expires_at FROM sessions WHERE tenant = $1 AND session_id = $2',
        },
        [key.tenant, key.sessionId]
      )
      const row = rows[0]
      return row && num(row.expires_at) > options.now() ? parseBrief(row.brief) : null
    },
    async update<T>(key: SessionKey, fn: Updater<T>, updateOptions?: UpdateOptions<T>) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const guess = attempt === 0 && known.has(knownKey(key))
        const done = await tryUpdate(key, fn, updateOptions, guess)
        if (done) return done.value
        if (!guess) options.onConflict?.()
      }
      throw new ConflictRetryError()
    },
    async delete(key) {
      known.delete(knownKey(key))
      const now = options.now()
      const event = changeEvent(key, 0, 'delete')
      const { rows } = await query<{ live: number }>({ name: 'delete', text: DELETE_SESSION }, [
        key.tenant,
        key.sessionId,
        now,
        now + options.ttlMs,
        payload(event),
      ])
      if (rows[0].live === 0) return false
      feed.emit(event)
      return true
    },
    subscribe: feed.subscribe,
    async countSessions(tenant) {
      const { rows } = await query<{ n: number }>(
        {
          name: 'count',
          text: 'SELECT count(*)::int AS n FROM sessions WHERE tenant = $1 AND expires_at > $2',
        },
        [tenant, options.now()]
      )
      return rows[0].n
    },
    async list(tenant, listQuery) {
      const { text, values } = listStatement(tenant, options.now(), listQuery)
      const { rows } = await query<{ session_id: string; brief: string }>(text, values)
      const sessions = rows.slice(0, listQuery.limit).flatMap((row) => {
        const brief = parseBrief(row.brief)
        return brief ? [brief] : []
      })
      const last = sessions[sessions.length - 1]
      const next = rows.length > listQuery.limit && last ? cursorAfter(last) : null
      return { sessions, next }
    },
    historyText: historyPage,
    async history(key, limit, beforeVersion, maxBytes) {
      const texts = await historyPage(key, limit, beforeVersion, maxBytes)
      return texts.map((text) => ({
        ...text,
        items: JSON.parse(text.items) as HistoryEntry['items'],
      }))
    },
    async claimIdempotency(scope, fingerprint, ttlMs): Promise<IdempotencyClaim> {
      for (;;) {
        const now = options.now()
        const token = randomUUID()
        const { rows } = await query<{
          claimed: boolean
          fingerprint: string
          reply: string | null
        }>({ name: 'claim', text: CLAIM_IDEMPOTENCY }, [
          scopeText(scope),
          fingerprint,
          token,
          now + ttlMs,
          now,
        ])
        const row = rows[0]
        // empty: a concurrent claim committed after this statement's snapshot; read it again
        if (!row) continue
        if (row.claimed) return { claimed: true, token }
        return { claimed: false, record: { fingerprint: row.fingerprint, reply: row.reply } }
      }
    },
    async releaseIdempotency(scope, token) {
      await query(
        {
          name: 'release',
          text: 'DELETE FROM idempotency WHERE scope = $1 AND token = $2 AND reply IS NULL',
        },
        [scopeText(scope), token]
      )
    },
    async ping() {
      await query('SELECT 1')
    },
    async checkWritable() {
      await query(
        `INSERT INTO counters (key, hits, reset_at) VALUES ('agent-todos:write-probe', 0, $1)
         ON CONFLICT (key) DO UPDATE SET reset_at = excluded.reset_at`,
        [options.now()]
      )
    },
    async close() {
      if (closed) return
      closed = true
      clearInterval(sweep)
      alerts.close()
      await listener.close()
      await pool.end()
    },
  }
}
