/**
 * @module store/sqlite/alerts
 * The SQLite store's alert records (migration 8): webhooks, the outbox (written by the session
 * write's own transaction, `appendOutbox`), deliveries, marks and the stale scan's marks. Every
 * mutation goes through the store's group commit, so it is one transaction like a session write;
 * claims are leases (`lease_until`), so a process killed mid-delivery leaves rows that are
 * claimed again once the lease runs out.
 */
import type Database from 'better-sqlite3'
import { sessionState, type SessionKey } from '../../core/session.js'
import type { Transition } from '../../core/transitions.js'
import { briefColumns, parseBrief } from '../brief.js'
import { DELIVERY_LOG_LIMIT, WebhookQuotaError } from '../alerts/types.js'
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
  status: row.status as DeliveryRecord['status'],
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
      `INSERT OR IGNORE INTO alert_deliveries (${DELIVERY_COLUMNS}) VALUES (@id, @tenant, @webhook_id, @type,
       @session_id, @status, @attempts, @last_status, @last_error, @next_attempt_at, @created_at,
       @body, @waiting_since)`
    ),
    trimDeliveries: db.prepare(
      // a pending delivery is never trimmed: it leaves the log once settled (a receiver that
      // was down while more than the log's length piled up loses none of them)
      `DELETE FROM alert_deliveries WHERE tenant = @tenant AND webhook_id = @webhook_id
       AND status <> 'pending' AND id IN
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
    dueEvents: db.prepare<{ now: number; limit: number }, OutboxRow>(
      `SELECT seq, tenant, session_id, kind, at, since FROM alert_outbox
       WHERE lease_until <= @now ORDER BY seq LIMIT @limit`
    ),
    leaseEvent: db.prepare(
      'UPDATE alert_outbox SET lease_owner = @owner, lease_until = @until WHERE seq = @seq'
    ),
    deleteEvent: db.prepare('DELETE FROM alert_outbox WHERE seq = @seq AND lease_owner = @owner'),
    dropWaiting: db.prepare(
      `DELETE FROM alert_deliveries WHERE tenant = @tenant AND session_id = @sessionId
         AND status = 'pending' AND type = 'session.waiting' AND attempts = 0`
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
    dueDeliveries: db.prepare<{ now: number; limit: number }, DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries INDEXED BY alert_deliveries_due
       WHERE status = 'pending' AND next_attempt_at <= @now AND lease_until <= @now
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
  const addDelivery = (delivery: DeliveryRecord) => {
    // a dispatch that ran twice adds the same id: kept once
    if (sql.insertDelivery.run(delivery).changes > 0) sql.trimDeliveries.run(delivery)
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
    scanStale(staleBefore) {
      return write(() => {
        let found = 0
        const at = now()
        for (const tenant of sql.webhookTenants.all()) {
          // a tenant's first scan only sets its mark: a stall older than its webhooks is no news
          const from = sql.scanMark.get({ tenant }) ?? staleBefore
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
      return write(() =>
        sql.dueEvents.all({ now: at, limit }).map((row): OutboxEvent => {
          sql.leaseEvent.run({ owner, until: at + leaseMs, seq: row.seq })
          return {
            id: String(row.seq),
            tenant: row.tenant,
            session_id: row.session_id,
            owner,
            kind: row.kind,
            at: row.at,
            ...(row.since === null ? {} : { since: row.since }),
          }
        })
      )
    },
    settleEvent(event, dispatch) {
      return write(() => {
        if (sql.deleteEvent.run({ seq: Number(event.id), owner: event.owner }).changes === 0) return
        const key = { tenant: event.tenant, sessionId: event.session_id }
        if (dispatch.dropWaiting) sql.dropWaiting.run(key)
        for (const webhookId of dispatch.clearMarks) sql.clearMark.run({ ...key, webhookId })
        for (const delivery of dispatch.deliveries) addDelivery(delivery)
      })
    },
    claimDeliveries(owner, at, leaseMs, limit, roomOf) {
      return write(() => {
        // read a few more than asked: some may be of tenants at their bound
        const rows = sql.dueDeliveries.all({ now: at, limit: limit * 4 })
        const claimed: DeliveryRecord[] = []
        const taken = new Map<string, number>()
        for (const row of rows) {
          if (claimed.length >= limit) break
          const count = taken.get(row.tenant) ?? 0
          if (count >= roomOf(row.tenant)) continue
          taken.set(row.tenant, count + 1)
          sql.leaseDelivery.run({ owner, until: at + leaseMs, id: row.id })
          claimed.push(toDelivery(row))
        }
        return claimed
      })
    },
    finishAttempt(delivery, owner, outcome) {
      return write(() => {
        sql.finishAttempt.run({ ...outcome, id: delivery.id, owner })
      })
    },
    dropDelivery(delivery) {
      return write(() => {
        sql.deleteDelivery.run({ id: delivery.id })
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
