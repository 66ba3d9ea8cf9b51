/**
 * @module store/sqlite/alerts
 * The SQLite store's alert records (migrations 8, 9): webhooks, the outbox (written by the
 * session write's own transaction, `appendOutbox`), deliveries, marks and the stale scan's marks.
 * Every mutation goes through the store's group commit, so it is one transaction like a session
 * write; claims are leases (`lease_until`), so a process killed mid-delivery leaves rows that are
 * claimed again once the lease runs out. Claims walk the tenants with work (a skip over an index
 * led by the tenant: one seek per tenant) and read each one's own rows, tenants in turns. A
 * delivery's order (`ord`, `orderKeyOf`): of an order's pending rows only the oldest (by rowid,
 * the insertion order) is `pending`, the others `held` (pending to a reader), and each step that
 * ends a pending row lets the next go.
 */
import type Database from 'better-sqlite3'
import { sessionState, type SessionKey } from '../../core/session.js'
import type { Transition } from '../../core/transitions.js'
import { briefColumns, parseBrief } from '../brief.js'
import { inTurns, shareOf } from '../alerts/fair.js'
import {
  DELIVERY_LOG_LIMIT,
  DELIVERY_PENDING_LIMIT,
  OVERFLOW_ERROR,
  orderKeyOf,
  WebhookQuotaError,
} from '../alerts/types.js'
import type { AlertStore, DeliveryRecord, OutboxEvent, WebhookRecord } from '../alerts/types.js'
import type { GroupCommit } from './group-commit.js'
import { asStoreError } from './faults.js'

interface DeliveryRow extends Omit<DeliveryRecord, 'status'> {
  status: string
}

interface OutboxRow {
  seq: number
  tenant: string
  session_id: string
  kind: Transition['kind']
  at: number
  since: number | null
}

const toDelivery = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  tenant: row.tenant,
  webhook_id: row.webhook_id,
  type: row.type,
  session_id: row.session_id,
  // a `held` row (waiting for an earlier one of its order) is pending to its reader
  status: (row.status === 'held' ? 'pending' : row.status) as DeliveryRecord['status'],
  attempts: row.attempts,
  last_status: row.last_status,
  last_error: row.last_error,
  next_attempt_at: row.next_attempt_at,
  created_at: row.created_at,
  body: row.body,
  waiting_since: row.waiting_since,
})

const DELIVERY_COLUMNS = `id, tenant, webhook_id, type, session_id, status, attempts, last_status,
  last_error, next_attempt_at, created_at, body, waiting_since`

/** Prepares the alert statements of an open, migrated database. */
function prepare(db: Database.Database) {
  return {
    insertOutbox: db.prepare(
      `INSERT INTO alert_outbox (tenant, session_id, kind, at, since)
       VALUES (@tenant, @sessionId, @kind, @at, @since)`
    ),
    countWebhooks: db
      .prepare<{ tenant: string }, number>('SELECT count(*) FROM webhooks WHERE tenant = @tenant')
      .pluck(),
    insertWebhook: db.prepare(
      'INSERT INTO webhooks (tenant, id, data, created_at) VALUES (@tenant, @id, @data, @createdAt)'
    ),
    listWebhooks: db
      .prepare<{ tenant: string }, string>(
        'SELECT data FROM webhooks WHERE tenant = @tenant ORDER BY created_at, id'
      )
      .pluck(),
    getWebhook: db
      .prepare<{ tenant: string; id: string }, string>(
        'SELECT data FROM webhooks WHERE tenant = @tenant AND id = @id'
      )
      .pluck(),
    setWebhook: db.prepare('UPDATE webhooks SET data = @data WHERE tenant = @tenant AND id = @id'),
    deleteWebhook: db.prepare('DELETE FROM webhooks WHERE tenant = @tenant AND id = @id'),
    deleteWebhookDeliveries: db.prepare(
      'DELETE FROM alert_deliveries WHERE tenant = @tenant AND webhook_id = @id'
    ),
    deleteWebhookMarks: db.prepare(
      'DELETE FROM alert_marks WHERE tenant = @tenant AND webhook_id = @id'
    ),
    listDeliveries: db.prepare<{ tenant: string; id: string; limit: number }, DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries WHERE tenant = @tenant AND webhook_id = @id
       ORDER BY created_at DESC, id DESC LIMIT @limit`
    ),
    insertDelivery: db.prepare(
      `INSERT OR IGNORE INTO alert_deliveries (${DELIVERY_COLUMNS}, ord) VALUES (@id, @tenant,
       @webhook_id, @type, @session_id, CASE WHEN @ord IS NOT NULL AND EXISTS (SELECT 1
         FROM alert_deliveries INDEXED BY al_ord WHERE tenant = @tenant AND ord = @ord
         AND status IN ('pending', 'held')) THEN 'held' ELSE @status END, @attempts, @last_status, @last_error,
       @next_attempt_at, @created_at, @body, @waiting_since, @ord)`
    ),
    // the oldest pending row of an order goes (a no-op when it already may)
    releaseOrder: db.prepare(
      `UPDATE alert_deliveries SET status = 'pending' WHERE rowid = (SELECT rowid
         FROM alert_deliveries INDEXED BY al_ord WHERE tenant = @tenant AND ord = @ord
         AND status IN ('pending', 'held') ORDER BY rowid LIMIT 1) AND status = 'held'`
    ),
    orderOf: db
      .prepare<{ id: string }, string | null>('SELECT ord FROM alert_deliveries WHERE id = @id')
      .pluck(),
    countPending: db
      .prepare<{ tenant: string; webhook_id: string }, number>(
        `SELECT count(*) FROM alert_deliveries WHERE tenant = @tenant AND webhook_id = @webhook_id
           AND status IN ('pending', 'held')`
      )
      .pluck(),
    oldestPending: db.prepare<
      { tenant: string; webhook_id: string; now: number; limit: number },
      { id: string; type: string; ord: string | null }
    >(
      `SELECT id, type, ord FROM alert_deliveries WHERE tenant = @tenant
         AND webhook_id = @webhook_id AND status IN ('pending', 'held') AND lease_until <= @now
       ORDER BY rowid LIMIT @limit`
    ),
    overflow: db.prepare(
      `UPDATE alert_deliveries SET status = 'failed', last_error = @error, next_attempt_at = NULL
         WHERE id = @id`
    ),
    trimDeliveries: db.prepare(
      // a pending delivery is never trimmed: it leaves the log once settled (a receiver that
      // was down while more than the log's length piled up loses none of them)
      `DELETE FROM alert_deliveries WHERE tenant = @tenant AND webhook_id = @webhook_id
       AND status NOT IN ('pending', 'held') AND id IN
       (SELECT id FROM alert_deliveries WHERE tenant = @tenant AND webhook_id = @webhook_id
        ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ${DELIVERY_LOG_LIMIT})`
    ),
    webhookTenants: db.prepare<[], string>('SELECT DISTINCT tenant FROM webhooks').pluck(),
    // a tenant's stale scan mark: a row of store_settings named `alert_scan:<tenant>`
    scanMark: db
      .prepare<{ tenant: string }, number>(
        "SELECT value FROM store_settings WHERE name = 'alert_scan:' || @tenant"
      )
      .pluck(),
    setScanMark: db.prepare(
      `INSERT INTO store_settings (name, value) VALUES ('alert_scan:' || @tenant, @mark)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value`
    ),
    // the listing's covering index (tenant, updated_at DESC, …, brief): a range of it
    staleCandidates: db.prepare<
      { tenant: string; from: number; to: number; now: number },
      { session_id: string; updated_at: number; brief: string }
    >(
      `SELECT session_id, updated_at, brief FROM sessions INDEXED BY sessions_by_update
       WHERE tenant = @tenant AND updated_at >= @from AND updated_at < @to
         AND expires_at > @now AND ended = 0 AND unfinished > 0`
    ),
    // the tenants with outbox rows: one seek each on ao_tenant
    eventTenants: db
      .prepare<[], string>(
        `WITH RECURSIVE t(tenant) AS (SELECT min(tenant) FROM alert_outbox
           UNION ALL SELECT (SELECT min(tenant) FROM alert_outbox WHERE tenant > t.tenant)
           FROM t WHERE t.tenant IS NOT NULL)
         SELECT tenant FROM t WHERE tenant IS NOT NULL`
      )
      .pluck(),
    dueEvents: db.prepare<{ tenant: string; now: number; limit: number }, OutboxRow>(
      `SELECT seq, tenant, session_id, kind, at, since FROM alert_outbox
         INDEXED BY ao_tenant
       WHERE tenant = @tenant AND lease_until <= @now ORDER BY seq LIMIT @limit`
    ),
    leaseEvent: db.prepare(
      'UPDATE alert_outbox SET lease_owner = @owner, lease_until = @until WHERE seq = @seq'
    ),
    deleteEvent: db.prepare('DELETE FROM alert_outbox WHERE seq = @seq AND lease_owner = @owner'),
    dropWaiting: db.prepare<{ tenant: string; sessionId: string }, { ord: string | null }>(
      `DELETE FROM alert_deliveries WHERE tenant = @tenant AND session_id = @sessionId
         AND status IN ('pending', 'held') AND type = 'session.waiting' AND attempts = 0
       RETURNING ord`
    ),
    clearMark: db.prepare(
      `DELETE FROM alert_marks WHERE tenant = @tenant AND session_id = @sessionId
         AND webhook_id = @webhookId`
    ),
    setMark: db.prepare(
      `INSERT OR IGNORE INTO alert_marks (tenant, session_id, webhook_id)
       VALUES (@tenant, @sessionId, @webhookId)`
    ),
    marksOf: db
      .prepare<{ tenant: string; sessionId: string }, string>(
        'SELECT webhook_id FROM alert_marks WHERE tenant = @tenant AND session_id = @sessionId'
      )
      .pluck(),
    // the tenants with pending deliveries that may go: one seek each on al_due
    deliveryTenants: db
      .prepare<[], string>(
        `WITH RECURSIVE t(tenant) AS (SELECT (SELECT min(tenant) FROM alert_deliveries
             INDEXED BY al_due WHERE status = 'pending')
           UNION ALL SELECT (SELECT min(tenant) FROM alert_deliveries
             INDEXED BY al_due WHERE status = 'pending' AND tenant > t.tenant)
           FROM t WHERE t.tenant IS NOT NULL)
         SELECT tenant FROM t WHERE tenant IS NOT NULL`
      )
      .pluck(),
    dueDeliveries: db.prepare<{ tenant: string; now: number; limit: number }, DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries INDEXED BY al_due
       WHERE tenant = @tenant AND status = 'pending' AND next_attempt_at <= @now
         AND lease_until <= @now
       ORDER BY next_attempt_at LIMIT @limit`
    ),
    leaseDelivery: db.prepare(
      'UPDATE alert_deliveries SET lease_owner = @owner, lease_until = @until WHERE id = @id'
    ),
    finishAttempt: db.prepare(
      `UPDATE alert_deliveries SET status = @status, attempts = @attempts,
         last_status = @last_status, last_error = @last_error, next_attempt_at = @next_attempt_at,
         lease_owner = NULL, lease_until = 0
       WHERE id = @id AND lease_owner = @owner`
    ),
    deleteDelivery: db.prepare('DELETE FROM alert_deliveries WHERE id = @id'),
    // core/session's sessionState in SQL, over the listing's covering index (its columns and
    // the brief): counted inside SQLite, no brief parsed in JavaScript
    countStates: db.prepare<{ now: number; staleBefore: number }, { state: string; n: number }>(
      `SELECT CASE
         WHEN ended = 1 THEN 'ended'
         WHEN total > 0 AND unfinished = 0
           AND (brief = '' OR json_extract(brief, '$.background') IS NULL) THEN 'done'
         WHEN brief <> '' AND json_extract(brief, '$.waiting') IS NOT NULL THEN 'waiting'
         WHEN unfinished > 0 AND updated_at < @staleBefore THEN 'stale'
         ELSE 'active' END AS state, count(*) AS n
       FROM sessions WHERE expires_at > @now GROUP BY state`
    ),
  }
}

type AlertStatements = ReturnType<typeof prepare>

/**
 * The outbox writer a session write calls inside its transaction.
 * @param sql - the prepared statements
 */
const outboxWriter =
  (sql: AlertStatements) =>
  (key: SessionKey, transitions: readonly Transition[]): void => {
    for (const transition of transitions) {
      sql.insertOutbox.run({
        tenant: key.tenant,
        sessionId: key.sessionId,
        kind: transition.kind,
        at: transition.at,
        since: transition.since ?? null,
      })
    }
  }

/**
 * The SQLite alert store and its outbox writer.
 * @param db - the store's open, migrated database
 * @param commits - the store's group commit
 * @param now - the store's clock
 */
export function createSqliteAlerts(db: Database.Database, commits: GroupCommit, now: () => number) {
  const sql = prepare(db)
  const read = <T>(run: () => T): T => {
    try {
      return run()
    } catch (error) {
      throw asStoreError(error, false)
    }
  }
  const write = <T>(run: () => T) => commits.enqueue<T>(() => ({ value: run() }))
  const eventTurns = { last: null as string | null }
  const deliveryTurns = { last: null as string | null }
  const release = (tenant: string, ord: string | null) => {
    if (ord !== null) sql.releaseOrder.run({ tenant, ord })
  }
  /** Keeps a webhook's pending rows within the bound: the oldest no attempt holds gives way. */
  const bound = (delivery: DeliveryRecord): string[] => {
    const over = sql.countPending.get(delivery)! - DELIVERY_PENDING_LIMIT
    if (over <= 0) return []
    const rows = sql.oldestPending.all({ ...delivery, now: now(), limit: over })
    for (const row of rows) {
      sql.overflow.run({ id: row.id, error: OVERFLOW_ERROR })
      release(delivery.tenant, row.ord)
    }
    return rows.map((row) => row.type)
  }
  const addDelivery = (delivery: DeliveryRecord): string[] => {
    // a dispatch that ran twice adds the same id: kept once
    const ord = delivery.status === 'pending' ? orderKeyOf(delivery) : null
    if (sql.insertDelivery.run({ ...delivery, ord }).changes === 0) return []
    const failed = bound(delivery)
    sql.trimDeliveries.run(delivery)
    return failed
  }

  /* eslint-disable @typescript-eslint/require-await */
  const store: AlertStore = {
    createWebhook(record, cap) {
      return write(() => {
        if (sql.countWebhooks.get({ tenant: record.tenant })! >= cap) {
          throw new WebhookQuotaError(cap)
        }
        sql.insertWebhook.run({
          tenant: record.tenant,
          id: record.id,
          data: JSON.stringify(record),
          createdAt: record.created_at,
        })
      })
    },
    async listWebhooks(tenant) {
      return read(() => sql.listWebhooks.all({ tenant })).map((d) => JSON.parse(d) as WebhookRecord)
    },
    async getWebhook(tenant, id) {
      const data = read(() => sql.getWebhook.get({ tenant, id }))
      return data === undefined ? null : (JSON.parse(data) as WebhookRecord)
    },
    setSecrets(tenant, id, secrets) {
      return write(() => {
        const data = sql.getWebhook.get({ tenant, id })
        if (data === undefined) return false
        const record = { ...(JSON.parse(data) as WebhookRecord), secrets }
        sql.setWebhook.run({ tenant, id, data: JSON.stringify(record) })
        return true
      })
    },
    deleteWebhook(tenant, id) {
      return write(() => {
        const { changes } = sql.deleteWebhook.run({ tenant, id })
        sql.deleteWebhookDeliveries.run({ tenant, id })
        sql.deleteWebhookMarks.run({ tenant, id })
        return changes > 0
      })
    },
    async listDeliveries(tenant, webhookId, limit) {
      return read(() => sql.listDeliveries.all({ tenant, id: webhookId, limit })).map(toDelivery)
    },
    addDelivery(delivery) {
      return write(() => addDelivery(delivery))
    },
    scanStale(staleBefore, staleAfterMs) {
      return write(() => {
        let found = 0
        const at = now()
        for (const tenant of sql.webhookTenants.all()) {
          // from the mark, but not before the moment (last change + staleAfterMs) of the
          // tenant's oldest webhook's creation: a stall older than its webhooks is no news
          const oldest = Math.min(
            ...sql.listWebhooks
              .all({ tenant })
              .map((d) => (JSON.parse(d) as WebhookRecord).created_at)
          )
          const from = Math.max(sql.scanMark.get({ tenant }) ?? -Infinity, oldest - staleAfterMs)
          for (const row of sql.staleCandidates.all({ tenant, from, to: staleBefore, now: at })) {
            const brief = parseBrief(row.brief)
            if (
              brief &&
              sessionState(briefColumns(brief), row.updated_at, staleBefore) !== 'stale'
            ) {
              continue
            }
            outboxWriter(sql)({ tenant, sessionId: row.session_id }, [
              { kind: 'stale', at: row.updated_at },
            ])
            found++
          }
          sql.setScanMark.run({ tenant, mark: staleBefore })
        }
        return found
      })
    },
    claimEvents(owner, at, leaseMs, limit) {
      return write(() => {
        // each tenant's share of its own rows, in the order written; tenants in turns
        const tenants = sql.eventTenants.all()
        const share = shareOf(limit, tenants.length)
        const claimed: OutboxEvent[] = []
        for (const tenant of inTurns(tenants, eventTurns)) {
          const room = Math.min(share, limit - claimed.length)
          if (room <= 0) break
          for (const row of sql.dueEvents.all({ tenant, now: at, limit: room })) {
            sql.leaseEvent.run({ owner, until: at + leaseMs, seq: row.seq })
            claimed.push({
              id: String(row.seq),
              tenant: row.tenant,
              session_id: row.session_id,
              owner,
              kind: row.kind,
              at: row.at,
              ...(row.since === null ? {} : { since: row.since }),
            })
          }
        }
        return claimed
      })
    },
    settleEvent(event, dispatch) {
      return write(() => {
        if (sql.deleteEvent.run({ seq: Number(event.id), owner: event.owner }).changes === 0) {
          return []
        }
        const key = { tenant: event.tenant, sessionId: event.session_id }
        if (dispatch.dropWaiting) {
          for (const { ord } of sql.dropWaiting.all(key)) release(event.tenant, ord)
        }
        for (const webhookId of dispatch.clearMarks) sql.clearMark.run({ ...key, webhookId })
        return dispatch.deliveries.flatMap((delivery) => addDelivery(delivery))
      })
    },
    claimDeliveries(owner, at, leaseMs, limit, roomOf) {
      return write(() => {
        // each tenant's own due rows, at most its room; tenants in turns
        const claimed: DeliveryRecord[] = []
        for (const tenant of inTurns(sql.deliveryTenants.all(), deliveryTurns)) {
          const room = Math.min(roomOf(tenant), limit - claimed.length)
          if (room <= 0) continue
          for (const row of sql.dueDeliveries.all({ tenant, now: at, limit: room })) {
            sql.leaseDelivery.run({ owner, until: at + leaseMs, id: row.id })
            claimed.push(toDelivery(row))
          }
        }
        return claimed
      })
    },
    finishAttempt(delivery, owner, outcome) {
      return write(() => {
        const { changes } = sql.finishAttempt.run({ ...outcome, id: delivery.id, owner })
        if (changes > 0 && outcome.status !== 'pending') {
          release(delivery.tenant, sql.orderOf.get({ id: delivery.id }) ?? null)
        }
      })
    },
    dropDelivery(delivery) {
      return write(() => {
        const ord = sql.orderOf.get({ id: delivery.id }) ?? null
        sql.deleteDelivery.run({ id: delivery.id })
        release(delivery.tenant, ord)
      })
    },
    setMark(tenant, webhookId, sessionId) {
      return write(() => {
        sql.setMark.run({ tenant, webhookId, sessionId })
      })
    },
    async marksOf(tenant, sessionId) {
      return read(() => sql.marksOf.all({ tenant, sessionId }))
    },
    async countStates(staleBefore) {
      const rows = read(() => sql.countStates.all({ now: now(), staleBefore }))
      return Object.fromEntries(rows.map((row) => [row.state, row.n]))
    },
  }
  /* eslint-enable @typescript-eslint/require-await */
  return { store, append: outboxWriter(sql) }
}
