/**
 * @module store/postgres/migrations
 * The PostgreSQL schema as numbered steps, run at start under an advisory lock so that several
 * instances starting at once migrate once; a database whose schema is newer than this code knows
 * is refused with a message saying so.
 */
import type { Pool, PoolClient } from 'pg'

/** One schema step: runs in its own transaction. */
export interface PgMigration {
  version: number
  name: string
  sql: string
}

/**
 * Epoch-ms columns are `bigint`; `pg` returns them as strings, which the store reads with
 * `Number` (they stay far below 2^53).
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'sessions, history, tombstones, idempotency, counters',
    sql: `
      CREATE TABLE sessions (
        tenant text NOT NULL,
        session_id text NOT NULL,
        version integer NOT NULL,
        writes integer NOT NULL,
        data text NOT NULL,
        brief text NOT NULL,
        total integer NOT NULL,
        unfinished integer NOT NULL,
        ended boolean NOT NULL,
        waiting boolean NOT NULL,
        updated_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (tenant, session_id)
      );
      CREATE INDEX sessions_listing ON sessions (tenant, updated_at DESC, session_id DESC);
      CREATE INDEX sessions_expiry ON sessions (expires_at);
      CREATE TABLE history (
        tenant text NOT NULL,
        session_id text NOT NULL,
        version integer NOT NULL,
        at bigint NOT NULL,
        source text NOT NULL,
        items text NOT NULL,
        PRIMARY KEY (tenant, session_id, version)
      );
      CREATE TABLE tombstones (
        tenant text NOT NULL,
        session_id text NOT NULL,
        version integer NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (tenant, session_id)
      );
      CREATE TABLE idempotency (
        scope text PRIMARY KEY,
        fingerprint text NOT NULL,
        token text,
        reply text,
        expires_at bigint NOT NULL
      );
      CREATE TABLE counters (
        key text PRIMARY KEY,
        hits integer NOT NULL,
        reset_at bigint NOT NULL
      );`,
  },
  {
    version: 2,
    name: 'webhooks, the alert outbox, deliveries, marks and stale scan marks',
    sql: `
      CREATE TABLE webhooks (
        tenant text NOT NULL,
        id text NOT NULL,
        data text NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (tenant, id)
      );
      CREATE TABLE alert_outbox (
        seq bigserial PRIMARY KEY,
        tenant text NOT NULL,
        session_id text NOT NULL,
        transition jsonb NOT NULL,
        created_at bigint NOT NULL,
        lease_owner text,
        lease_until bigint NOT NULL DEFAULT 0
      );
      CREATE TABLE alert_deliveries (
        id text PRIMARY KEY,
        seq bigserial NOT NULL,
        order_key text,
        tenant text NOT NULL,
        webhook_id text NOT NULL,
        type text NOT NULL,
        session_id text,
        status text NOT NULL,
        attempts integer NOT NULL,
        last_status integer,
        last_error text,
        next_attempt_at bigint,
        created_at bigint NOT NULL,
        body text NOT NULL,
        waiting_since bigint,
        lease_owner text,
        lease_until bigint NOT NULL DEFAULT 0
      );
      CREATE INDEX alert_deliveries_due ON alert_deliveries (tenant, next_attempt_at)
        WHERE status = 'pending';
      CREATE INDEX alert_deliveries_order ON alert_deliveries (tenant, order_key, seq)
        WHERE status = 'pending' AND order_key IS NOT NULL;
      CREATE INDEX alert_deliveries_pending ON alert_deliveries (tenant, webhook_id, seq)
        WHERE status = 'pending';
      CREATE INDEX alert_deliveries_by_webhook ON alert_deliveries (tenant, webhook_id, created_at DESC, id DESC);
      CREATE TABLE alert_marks (
        tenant text NOT NULL,
        session_id text NOT NULL,
        webhook_id text NOT NULL,
        PRIMARY KEY (tenant, session_id, webhook_id)
      );
      CREATE TABLE alert_scan_marks (
        tenant text PRIMARY KEY,
        mark bigint NOT NULL
      );`,
  },
  {
    version: 3,
    name: 'personal tokens and the audit trail',
    sql: `
      CREATE TABLE people_tokens (
        hash text PRIMARY KEY,
        id text NOT NULL,
        tenant text NOT NULL,
        person text NOT NULL,
        name text NOT NULL,
        role text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint
      );
      CREATE UNIQUE INDEX people_tokens_by_id ON people_tokens (tenant, id);
      CREATE INDEX people_tokens_by_person ON people_tokens (tenant, person, created_at DESC);
      CREATE TABLE people_audit (
        tenant text NOT NULL,
        id text NOT NULL,
        at bigint NOT NULL,
        person text,
        action text NOT NULL,
        entry text NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (tenant, id)
      );
      CREATE INDEX people_audit_newest ON people_audit (tenant, at DESC, id DESC);
      CREATE INDEX people_audit_expiry ON people_audit (expires_at);`,
  },
]

/** The advisory lock key of the migration step (any constant, the same for every instance). */
const MIGRATION_LOCK = 0x61676e74 // 'agnt'

/**
 * Brings the schema up to date under a session-level advisory lock.
 * @returns the steps that ran here (none when another instance ran them first)
 * @throws Error when the database's schema is newer than this code
 */
export async function migratePostgres(pool: Pool): Promise<PgMigration[]> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      return await runSteps(client)
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } finally {
    client.release()
  }
}

async function runSteps(client: PoolClient): Promise<PgMigration[]> {
  await client.query(
    'CREATE TABLE IF NOT EXISTS agent_todos_schema (version integer NOT NULL, name text NOT NULL, at timestamptz NOT NULL DEFAULT now())'
  )
  const { rows } = await client.query<{ v: number | null }>(
    'SELECT max(version) AS v FROM agent_todos_schema'
  )
  const current = rows[0]?.v ?? 0
  const known = PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version
  if (current > known) {
    throw new Error(
      `the PostgreSQL schema is at version ${current}, newer than this release knows (${known}): run a newer agent-todos, or restore the database of this release`
    )
  }
  const ran: PgMigration[] = []
  for (const step of PG_MIGRATIONS) {
    if (step.version <= current) continue
    await client.query('BEGIN')
    try {
      await client.query(step.sql)
      await client.query('INSERT INTO agent_todos_schema (version, name) VALUES ($1, $2)', [
        step.version,
        step.name,
      ])
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK')
      throw error
    }
    ran.push(step)
  }
  return ran
}
