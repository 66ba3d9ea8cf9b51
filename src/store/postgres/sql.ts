/**
 * @module store/postgres/sql
 * The statements of the PostgreSQL store. A write is one statement: its data-modifying CTEs (the
 * session's compare-and-set, its history entry and trim, the idempotent reply, the outbox rows,
 * the change notification) run atomically in one round trip, and the session's CAS gates every
 * other part of it.
 */
import { FILTERED_ORIGIN_FIELDS } from '../../core/origin.js'
import type { ListQuery } from '../types.js'

/** The channel every instance LISTENs on for changes (a `ChangeEvent` with the writer's id). */
export const CHANGE_CHANNEL = 'agent_todos_changes'

/** The session row with its tombstone's version, in one read. */
export const SELECT_FOR_UPDATE = `
  SELECT s.version, s.writes, s.data, s.expires_at, t.version AS floor, t.expires_at AS floor_expires
  FROM (SELECT $1::text AS tenant, $2::text AS session_id) k
  LEFT JOIN sessions s ON s.tenant = k.tenant AND s.session_id = k.session_id
  LEFT JOIN tombstones t ON t.tenant = k.tenant AND t.session_id = k.session_id`

/** What a write statement needs to know of its shape, which names its prepared statement. */
export interface WriteShape {
  /** A new session (an insert guarded by the tombstone's version) or an update (CAS). */
  create: boolean
  /** No history entry (the version stays). */
  quiet: boolean
  /** An idempotent reply is stored with it (and gates it). */
  idempotent: boolean
  /** The write decided nothing to store: only the reply goes in. */
  replyOnly: boolean
}

/** The named values of a write; a statement binds the ones its shape uses. */
export interface WriteValues {
  tenant: string
  sessionId: string
  now: number
  version: number
  data: string
  brief: string
  total: number
  unfinished: number
  ended: boolean
  waiting: boolean
  updatedAt: number
  expiresAt: number
  /** Update: the version read (CAS); create: the tombstone's version read. */
  expected: number
  /** Update: the write count read (CAS of a quiet write, which keeps the version). */
  writes: number
  source: string
  items: string
  historyLimit: number
  notification: string
  /** The outbox rows, a JSON array of transitions. */
  outbox: string
  scope: string
  token: string
  reply: string
  replyExpiresAt: number
}

/** A statement's text and the names of its parameters, in order ($1 first). */
export interface BoundStatement {
  name: string
  text: string
  params: (keyof WriteValues)[]
}

/**
 * The write statement of a shape. It binds only what the shape uses: PostgreSQL cannot type a
 * parameter that the statement never reads.
 */
export function writeStatement(shape: WriteShape): BoundStatement {
  const params: (keyof WriteValues)[] = []
  const $ = (name: keyof WriteValues) => {
    let index = params.indexOf(name)
    if (index < 0) index = params.push(name) - 1
    return `$${index + 1}`
  }
  const key = `tenant = ${$('tenant')} AND session_id = ${$('sessionId')}`
  const ctes: string[] = []
  const gate = shape.idempotent ? ' AND EXISTS (SELECT 1 FROM idem)' : ''
  if (shape.idempotent) {
    ctes.push(`idem AS (UPDATE idempotency SET reply = ${$('reply')}, expires_at = ${$('replyExpiresAt')}
      WHERE scope = ${$('scope')} AND token = ${$('token')} AND reply IS NULL AND expires_at > ${$('now')} RETURNING 1)`)
  }
  const name = `w${shape.create ? 'c' : 'u'}${shape.quiet ? 'q' : ''}${shape.idempotent ? 'i' : ''}${shape.replyOnly ? 'r' : ''}`
  if (shape.replyOnly) {
    return {
      name,
      text: `WITH ${ctes.join(',\n')} SELECT 0 AS written, (SELECT count(*) FROM idem)::int AS claimed`,
      params,
    }
  }
  const row = `${$('version')}::integer, ${$('data')}::text, ${$('brief')}::text, ${$('total')}::integer, ${$('unfinished')}::integer, ${$('ended')}::boolean, ${$('waiting')}::boolean, ${$('updatedAt')}::bigint, ${$('expiresAt')}::bigint`
  if (shape.create) {
    ctes.push(`w AS (INSERT INTO sessions (tenant, session_id, writes, version, data, brief, total,
        unfinished, ended, waiting, updated_at, expires_at)
      SELECT ${$('tenant')}, ${$('sessionId')}, 0, ${row}
      WHERE COALESCE((SELECT version FROM tombstones WHERE ${key}
        AND expires_at > ${$('now')}), 0) = ${$('expected')}${gate}
      ON CONFLICT (tenant, session_id) DO NOTHING RETURNING 1)`)
    ctes.push(`tomb AS (DELETE FROM tombstones WHERE ${key} AND EXISTS (SELECT 1 FROM w))`)
  } else {
    ctes.push(`w AS (UPDATE sessions SET writes = writes + 1, (version, data, brief, total,
        unfinished, ended, waiting, updated_at, expires_at) = (${row})
      WHERE ${key} AND version = ${$('expected')} AND writes = ${$('writes')}
        AND expires_at > ${$('now')}${gate} RETURNING 1)`)
  }
  if (!shape.quiet) {
    ctes.push(`h AS (INSERT INTO history (tenant, session_id, version, at, source, items)
      SELECT ${$('tenant')}, ${$('sessionId')}, ${$('version')}, ${$('updatedAt')}, ${$('source')}, ${$('items')} FROM w
      ON CONFLICT (tenant, session_id, version) DO UPDATE SET at = excluded.at,
        source = excluded.source, items = excluded.items)`)
    ctes.push(`trim AS (DELETE FROM history WHERE ${key}
      AND version <= ${$('version')} - ${$('historyLimit')}::integer AND EXISTS (SELECT 1 FROM w))`)
  }
  ctes.push(`o AS (INSERT INTO alert_outbox (tenant, session_id, transition, created_at)
    SELECT ${$('tenant')}, ${$('sessionId')}, x, ${$('now')} FROM w, jsonb_array_elements(${$('outbox')}::jsonb) x)`)
  ctes.push(`n AS (SELECT pg_notify('${CHANGE_CHANNEL}', ${$('notification')}) FROM w)`)
  return {
    name,
    text: `WITH ${ctes.join(',\n')}
    SELECT (SELECT count(*) FROM w)::int AS written, (SELECT count(*) FROM n)::int AS notified${
      shape.idempotent ? ', (SELECT count(*) FROM idem)::int AS claimed' : ''
    }`,
    params,
  }
}

/** Deletes a session and its history, leaving a tombstone with its version when it was live. */
export const DELETE_SESSION = `
  WITH d AS (DELETE FROM sessions WHERE tenant = $1 AND session_id = $2 RETURNING version, expires_at),
  h AS (DELETE FROM history WHERE tenant = $1 AND session_id = $2),
  t AS (INSERT INTO tombstones (tenant, session_id, version, expires_at)
    SELECT $1, $2, version, $4 FROM d WHERE expires_at > $3
    ON CONFLICT (tenant, session_id) DO UPDATE SET version = excluded.version,
      expires_at = excluded.expires_at),
  n AS (SELECT pg_notify('${CHANGE_CHANNEL}', $5) FROM d WHERE expires_at > $3)
  SELECT (SELECT count(*) FROM d WHERE expires_at > $3)::int AS live, (SELECT count(*) FROM n)::int AS notified`

/** Removes an expired session (the version it was read at) and its history. */
export const DROP_EXPIRED = `
  WITH d AS (DELETE FROM sessions WHERE tenant = $1 AND session_id = $2 AND version = $3
    AND expires_at <= $4 RETURNING 1)
  DELETE FROM history WHERE tenant = $1 AND session_id = $2 AND EXISTS (SELECT 1 FROM d)`

/**
 * A page of history, newest first: entries whose lists add up to at most the budget, the entry
 * that passes it included ($5), of the versions the ring keeps ($4: above current − limit).
 */
export const HISTORY_PAGE = `
  SELECT version, at, source, items FROM (
    SELECT version, at, source, items,
      sum(octet_length(items)) OVER (ORDER BY version DESC) - octet_length(items) AS before
    FROM history
    WHERE tenant = $1 AND session_id = $2 AND version < $3 AND version > $4
    ORDER BY version DESC LIMIT $6
  ) page WHERE before = 0 OR before <= $5 ORDER BY version DESC`

/** Claims an idempotency key, or returns what is stored under it. */
export const CLAIM_IDEMPOTENCY = `
  WITH ins AS (INSERT INTO idempotency (scope, fingerprint, token, reply, expires_at)
    VALUES ($1, $2, $3, NULL, $4)
    ON CONFLICT (scope) DO UPDATE SET fingerprint = excluded.fingerprint, token = excluded.token,
      reply = NULL, expires_at = excluded.expires_at
    WHERE idempotency.expires_at <= $5 RETURNING token)
  SELECT true AS claimed, NULL AS fingerprint, NULL AS reply FROM ins
  UNION ALL
  SELECT false, fingerprint, reply FROM idempotency
  WHERE scope = $1 AND expires_at > $5 AND NOT EXISTS (SELECT 1 FROM ins)`

/** One fixed-window counter hit ($3 now, $4 window end for a new window). */
export const COUNTER_HIT = `
  INSERT INTO counters (key, hits, reset_at) VALUES ($1, 1, $2)
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN counters.reset_at <= $3 THEN 1 ELSE counters.hits + 1 END,
    reset_at = CASE WHEN counters.reset_at <= $3 THEN $2 ELSE counters.reset_at END
  RETURNING hits, reset_at`

const STATE_SQL: Record<ListQuery['state'], string> = {
  all: 'true',
  ended: 'ended',
  active: 'NOT ended AND (unfinished > 0 OR total = 0)',
  done: 'NOT ended AND total > 0 AND unfinished = 0',
  waiting: 'NOT ended AND (unfinished > 0 OR total = 0) AND waiting',
  stale: 'NOT ended AND unfinished > 0 AND updated_at < $STALE AND NOT waiting',
}

/**
 * A listing page's statement and parameters: the tenant's sessions newest change first (then
 * the id), filtered in the database; `limit + 1` rows, so the caller knows whether more follow.
 */
export function listStatement(
  tenant: string,
  now: number,
  query: ListQuery
): { text: string; values: unknown[] } {
  const values: unknown[] = [tenant, now]
  const bind = (value: unknown) => `$${values.push(value)}`
  const state = STATE_SQL[query.state]
  const where = [
    'tenant = $1',
    'expires_at > $2',
    state.includes('$STALE') ? state.replace('$STALE', bind(query.staleBefore)) : state,
  ]
  if (query.cursor) {
    const at = bind(query.cursor.updatedAt)
    const id = bind(query.cursor.sessionId)
    where.push(`(updated_at < ${at} OR (updated_at = ${at} AND session_id < ${id}))`)
  }
  if (query.updatedSince !== undefined) where.push(`updated_at >= ${bind(query.updatedSince)}`)
  if (query.dialect !== undefined) where.push(`brief::jsonb->>'dialect' = ${bind(query.dialect)}`)
  if (query.source !== undefined) where.push(`brief::jsonb->>'source' = ${bind(query.source)}`)
  for (const field of FILTERED_ORIGIN_FIELDS) {
    const value = query[field]
    if (value !== undefined) where.push(`brief::jsonb->'origin'->>'${field}' = ${bind(value)}`)
  }
  for (const [name, value] of Object.entries(query.labels ?? {})) {
    where.push(`brief::jsonb->'labels'->>${bind(name)} = ${bind(value)}`)
  }
  const limit = bind(query.limit + 1)
  return {
    text: `SELECT session_id, brief FROM sessions WHERE ${where.join(' AND ')}
      ORDER BY updated_at DESC, session_id DESC LIMIT ${limit}`,
    values,
  }
}
