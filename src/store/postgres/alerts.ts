/**
 * @module store/postgres/alerts
 * The PostgreSQL store's alert records: webhooks, the outbox (written by the session write's own
 * statement, `sql.ts`), deliveries, marks and the stale scan's marks. Claims are leases
 * (`lease_until`) taken by a conditional UPDATE, so two instances never lease one row at once,
 * and a row of an instance killed mid-delivery is claimed again once its lease runs out.
 */
import type pg from 'pg'
import { sessionState } from '../../core/session.js'
import type { Transition } from '../../core/transitions.js'
import { briefColumns, parseBrief } from '../brief.js'
import {
  DELIVERY_LOG_LIMIT,
  DELIVERY_PENDING_LIMIT,
  OVERFLOW_ERROR,
  orderKeyOf,
  WebhookQuotaError,
  type AlertStore,
  type DeliveryRecord,
  type OutboxEvent,
  type WebhookRecord,
} from '../alerts/types.js'
import { pgGuarded } from './faults.js'

interface DeliveryRow {
  id: string
  tenant: string
  webhook_id: string
  type: string
  session_id: string | null
  status: string
  attempts: number
  last_status: number | null
  last_error: string | null
  next_attempt_at: string | null
  created_at: string
  body: string
  waiting_since: string | null
}

const DELIVERY_COLUMNS = `id, tenant, webhook_id, type, session_id, status, attempts, last_status,
  last_error, next_attempt_at, created_at, body, waiting_since`

const orNull = (value: string | null) => (value === null ? null : Number(value))

const toDelivery = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  tenant: row.tenant,
  webhook_id: row.webhook_id,
  type: row.type,
  session_id: row.session_id,
  status: row.status as DeliveryRecord['status'],
  attempts: row.attempts,
  last_status: row.last_status,
  last_error: row.last_error,
  next_attempt_at: orNull(row.next_attempt_at),
  created_at: Number(row.created_at),
  body: row.body,
  waiting_since: orNull(row.waiting_since),
})

/** Inserts a delivery once (a dispatch that ran twice adds the same id). */
const INSERT_DELIVERY = `
  INSERT INTO alert_deliveries (${DELIVERY_COLUMNS}, order_key)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
  ON CONFLICT (id) DO NOTHING RETURNING 1`

/**
 * Keeps a webhook's pending deliveries within DELIVERY_PENDING_LIMIT: the oldest added (`seq`)
 * that no attempt holds give way (`failed`); answers their types.
 */
const BOUND_PENDING = `
  UPDATE alert_deliveries SET status = 'failed', last_error = $4, next_attempt_at = NULL
  WHERE id IN (
    SELECT id FROM alert_deliveries
    WHERE tenant = $1 AND webhook_id = $2 AND status = 'pending' AND lease_until <= $3
    ORDER BY seq
    LIMIT GREATEST((SELECT count(*) FROM alert_deliveries WHERE tenant = $1 AND webhook_id = $2
      AND status = 'pending') - ${DELIVERY_PENDING_LIMIT}, 0))
  RETURNING type`

/** Trims a webhook's log to its newest DELIVERY_LOG_LIMIT (a pending one is never trimmed). */
const TRIM_LOG = `
  DELETE FROM alert_deliveries WHERE tenant = $1 AND webhook_id = $2 AND status <> 'pending'
    AND id IN (SELECT id FROM alert_deliveries WHERE tenant = $1 AND webhook_id = $2
      ORDER BY created_at DESC, id DESC OFFSET ${DELIVERY_LOG_LIMIT})`

/**
 * A delivery's order key (`orderKeyOf`) as PostgreSQL text: the key joins its parts with NUL,
 * which text cannot hold; its JSON form is as unique and has none.
 */
const orderText = (d: DeliveryRecord) => {
  const key = orderKeyOf(d)
  return key === null ? null : JSON.stringify(key)
}

/**
 * Adds a delivery in the caller's transaction, bounds the webhook's pending ones and trims its
 * log; answers the types of the deliveries that gave way.
 */
async function addDeliveryIn(client: pg.PoolClient, d: DeliveryRecord): Promise<string[]> {
  const inserted = await client.query(INSERT_DELIVERY, [
    d.id,
    d.tenant,
    d.webhook_id,
    d.type,
    d.session_id,
    d.status,
    d.attempts,
    d.last_status,
    d.last_error,
    d.next_attempt_at,
    d.created_at,
    d.body,
    d.waiting_since,
    orderText(d),
  ])
  if (inserted.rowCount === 0) return []
  const failed = await client.query<{ type: string }>(BOUND_PENDING, [
    d.tenant,
    d.webhook_id,
    d.created_at,
    OVERFLOW_ERROR,
  ])
  await client.query(TRIM_LOG, [d.tenant, d.webhook_id])
  return failed.rows.map((row) => row.type)
}

/** Runs `work` in one transaction on a client of the pool. */
async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>) {
  const client = await pgGuarded(() => pool.connect())
  try {
    await pgGuarded(() => client.query('BEGIN'))
    const value = await pgGuarded(() => work(client))
    await pgGuarded(() => client.query('COMMIT'))
    return value
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

/**
 * The PostgreSQL alert store.
 * @param pool - the store's pool
 * @param now - the store's clock
 */
export function createPostgresAlerts(pool: pg.Pool, now: () => number) {
  const q = <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    pgGuarded(() => pool.query<R>(text, values))

  const queues = new Map<string, Promise<unknown>>()
  /** Runs `work` after the earlier work of the same key (per process), in call order. */
  const inOrder = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (queues.get(key) ?? Promise.resolve()).then(work, work)
    const settled = run.catch(() => undefined)
    queues.set(key, settled)
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key)
    })
    return run
  }

  const store: AlertStore = {
    async createWebhook(record, cap) {
      await inTransaction(pool, async (client) => {
        // the tenant's webhooks are counted and added under one lock: the cap holds for a fleet
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `webhooks:${record.tenant}`,
        ])
        const { rows } = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhooks WHERE tenant = $1',
          [record.tenant]
        )
        if (rows[0].n >= cap) throw new WebhookQuotaError(cap)
        await client.query(
          'INSERT INTO webhooks (tenant, id, data, created_at) VALUES ($1, $2, $3, $4)',
          [record.tenant, record.id, JSON.stringify(record), record.created_at]
        )
      })
    },
    async listWebhooks(tenant) {
      const { rows } = await q<{ data: string }>(
        'SELECT data FROM webhooks WHERE tenant = $1 ORDER BY created_at, id',
        [tenant]
      )
      return rows.map((row) => JSON.parse(row.data) as WebhookRecord)
    },
    async getWebhook(tenant, id) {
      const { rows } = await q<{ data: string }>(
        'SELECT data FROM webhooks WHERE tenant = $1 AND id = $2',
        [tenant, id]
      )
      return rows[0] ? (JSON.parse(rows[0].data) as WebhookRecord) : null
    },
    async setSecrets(tenant, id, secrets) {
      const { rowCount } = await q(
        `UPDATE webhooks SET data = jsonb_set(data::jsonb, '{secrets}', $3::jsonb)::text
         WHERE tenant = $1 AND id = $2`,
        [tenant, id, JSON.stringify(secrets)]
      )
      return (rowCount ?? 0) > 0
    },
    async deleteWebhook(tenant, id) {
      const { rows } = await q<{ n: number }>(
        `WITH w AS (DELETE FROM webhooks WHERE tenant = $1 AND id = $2 RETURNING 1),
         d AS (DELETE FROM alert_deliveries WHERE tenant = $1 AND webhook_id = $2),
         m AS (DELETE FROM alert_marks WHERE tenant = $1 AND webhook_id = $2)
         SELECT count(*)::int AS n FROM w`,
        [tenant, id]
      )
      return rows[0].n > 0
    },
    async listDeliveries(tenant, webhookId, limit) {
      const { rows } = await q<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE tenant = $1 AND webhook_id = $2
         ORDER BY created_at DESC, id DESC LIMIT $3`,
        [tenant, webhookId, limit]
      )
      return rows.map(toDelivery)
    },
    // one webhook's additions in the order they were made here: `seq`, and so which pending one
    // is the oldest, follows the calls (concurrent transactions would take theirs in any order)
    addDelivery: (delivery) =>
      inOrder(`${delivery.tenant}\u0000${delivery.webhook_id}`, () =>
        inTransaction(pool, (client) => addDeliveryIn(client, delivery))
      ),
    scanStale: (staleBefore, staleAfterMs) => scanStale(pool, now, staleBefore, staleAfterMs),
    async claimEvents(owner, at, leaseMs, limit) {
      const { rows } = await q<{
        seq: string
        tenant: string
        session_id: string
        transition: Transition
      }>(
        // tenants in turns (each tenant's oldest first, round by round): one tenant's backlog
        // never hides another's events; a row another instance is leasing right now is skipped
        `UPDATE alert_outbox SET lease_owner = $1, lease_until = $2
         WHERE seq IN (SELECT seq FROM (
             SELECT seq, row_number() OVER (PARTITION BY tenant ORDER BY seq) AS turn
             FROM alert_outbox WHERE lease_until <= $3) due
           ORDER BY turn, seq LIMIT $4)
           AND lease_until <= $3
         RETURNING seq, tenant, session_id, transition`,
        [owner, at + leaseMs, at, limit]
      )
      return rows
        .sort((a, b) => Number(a.seq) - Number(b.seq))
        .map((row): OutboxEvent => ({
          ...row.transition,
          id: row.seq,
          tenant: row.tenant,
          session_id: row.session_id,
          owner,
        }))
    },
    settleEvent(event, dispatch) {
      return inTransaction(pool, async (client) => {
        const gone = await client.query(
          'DELETE FROM alert_outbox WHERE seq = $1 AND lease_owner = $2',
          [event.id, event.owner]
        )
        if (gone.rowCount === 0) return []
        if (dispatch.dropWaiting) {
          await client.query(
            `DELETE FROM alert_deliveries WHERE tenant = $1 AND session_id = $2
             AND status = 'pending' AND type = 'session.waiting' AND attempts = 0`,
            [event.tenant, event.session_id]
          )
        }
        if (dispatch.clearMarks.length > 0) {
          await client.query(
            'DELETE FROM alert_marks WHERE tenant = $1 AND session_id = $2 AND webhook_id = ANY($3)',
            [event.tenant, event.session_id, dispatch.clearMarks]
          )
        }
        const failed: string[] = []
        for (const delivery of dispatch.deliveries) {
          failed.push(...(await addDeliveryIn(client, delivery)))
        }
        return failed
      })
    },
    async claimDeliveries(owner, at, leaseMs, limit, roomOf) {
      // each tenant's oldest due rows first, round by round: one tenant's backlog never hides
      // another tenant's due delivery; a delivery waits while an earlier one of its order (a
      // session's events to one webhook) is pending
      const { rows } = await q<{ id: string; tenant: string }>(
        `SELECT id, tenant FROM (
           SELECT d.id, d.tenant, d.next_attempt_at, d.seq,
             row_number() OVER (PARTITION BY d.tenant ORDER BY d.next_attempt_at, d.seq) AS turn
           FROM alert_deliveries d
           WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND d.lease_until <= $1
             AND (d.order_key IS NULL OR NOT EXISTS (
               SELECT 1 FROM alert_deliveries e WHERE e.tenant = d.tenant
                 AND e.order_key = d.order_key AND e.status = 'pending' AND e.seq < d.seq))) due
         WHERE turn <= $2 ORDER BY turn, next_attempt_at, seq LIMIT $3`,
        [at, limit, limit * 4]
      )
      const taken = new Map<string, number>()
      const ids: string[] = []
      for (const row of rows) {
        if (ids.length >= limit) break
        const count = taken.get(row.tenant) ?? 0
        if (count >= roomOf(row.tenant)) continue
        taken.set(row.tenant, count + 1)
        ids.push(row.id)
      }
      if (ids.length === 0) return []
      const leased = await q<DeliveryRow>(
        `UPDATE alert_deliveries SET lease_owner = $1, lease_until = $2
         WHERE id = ANY($3) AND status = 'pending' AND lease_until <= $4
         RETURNING ${DELIVERY_COLUMNS}`,
        [owner, at + leaseMs, ids, at]
      )
      const order = new Map(ids.map((id, index) => [id, index]))
      return leased.rows.map(toDelivery).sort((a, b) => order.get(a.id)! - order.get(b.id)!)
    },
    async finishAttempt(delivery, owner, outcome) {
      await q(
        `UPDATE alert_deliveries SET status = $1, attempts = $2, last_status = $3,
           last_error = $4, next_attempt_at = $5, lease_owner = NULL, lease_until = 0
         WHERE id = $6 AND lease_owner = $7`,
        [
          outcome.status,
          outcome.attempts,
          outcome.last_status,
          outcome.last_error,
          outcome.next_attempt_at,
          delivery.id,
          owner,
        ]
      )
    },
    async dropDelivery(delivery) {
      await q('DELETE FROM alert_deliveries WHERE id = $1', [delivery.id])
    },
    async setMark(tenant, webhookId, sessionId) {
      await q(
        `INSERT INTO alert_marks (tenant, session_id, webhook_id) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING`,
        [tenant, sessionId, webhookId]
      )
    },
    async marksOf(tenant, sessionId) {
      const { rows } = await q<{ webhook_id: string }>(
        'SELECT webhook_id FROM alert_marks WHERE tenant = $1 AND session_id = $2',
        [tenant, sessionId]
      )
      return rows.map((row) => row.webhook_id)
    },
    async countStates(staleBefore) {
      const { rows } = await q<{ state: string; n: number }>(
        `SELECT CASE
           WHEN ended THEN 'ended'
           WHEN total > 0 AND unfinished = 0 THEN 'done'
           WHEN waiting THEN 'waiting'
           WHEN unfinished > 0 AND updated_at < $2 THEN 'stale'
           ELSE 'active' END AS state, count(*)::int AS n
         FROM sessions WHERE expires_at > $1 GROUP BY state`,
        [now(), staleBefore]
      )
      return Object.fromEntries(rows.map((row) => [row.state, row.n]))
    },
  }
  return { store, close: () => undefined }
}

/**
 * Puts `stale` events in the outbox for each tenant with webhooks, and moves the tenant's mark,
 * in one transaction per tenant under the tenant's lock: each stall is found once for the fleet.
 */
async function scanStale(
  pool: pg.Pool,
  now: () => number,
  staleBefore: number,
  staleAfterMs: number
) {
  const { rows: tenants } = await pgGuarded(() =>
    pool.query<{ tenant: string }>('SELECT DISTINCT tenant FROM webhooks')
  )
  let found = 0
  for (const { tenant } of tenants) {
    found += await inTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `stale-scan:${tenant}`,
      ])
      const mark = await client.query<{ mark: string }>(
        'SELECT mark FROM alert_scan_marks WHERE tenant = $1',
        [tenant]
      )
      // from the mark, but not before the moment (last change + staleAfterMs) of the tenant's
      // oldest webhook's creation: a stall older than its webhooks is no news
      const first = await client.query<{ at: string }>(
        'SELECT min(created_at) AS at FROM webhooks WHERE tenant = $1',
        [tenant]
      )
      const from = Math.max(
        mark.rows[0] ? Number(mark.rows[0].mark) : -Infinity,
        Number(first.rows[0].at) - staleAfterMs
      )
      const candidates = await client.query<{
        session_id: string
        updated_at: string
        brief: string
      }>(
        `SELECT session_id, updated_at, brief FROM sessions
         WHERE tenant = $1 AND updated_at >= $2 AND updated_at < $3 AND expires_at > $4
           AND NOT ended AND unfinished > 0`,
        [tenant, from, staleBefore, now()]
      )
      let count = 0
      for (const row of candidates.rows) {
        const brief = parseBrief(row.brief)
        const at = Number(row.updated_at)
        if (brief && sessionState(briefColumns(brief), at, staleBefore) !== 'stale') continue
        await client.query(
          `INSERT INTO alert_outbox (tenant, session_id, transition, created_at)
           VALUES ($1, $2, $3, $4)`,
          [tenant, row.session_id, JSON.stringify({ kind: 'stale', at }), now()]
        )
        count++
      }
      if (staleBefore > from) {
        await client.query(
          `INSERT INTO alert_scan_marks (tenant, mark) VALUES ($1, $2)
           ON CONFLICT (tenant) DO UPDATE SET mark = GREATEST(alert_scan_marks.mark, excluded.mark)`,
          [tenant, staleBefore]
        )
      }
      return count
    })
  }
  return found
}
