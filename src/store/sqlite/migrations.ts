/**
 * @module store/sqlite/migrations
 * The SQLite schema as numbered steps. `PRAGMA user_version` holds the last step a file went
 * through; opening a file runs the steps after it, each in its own IMMEDIATE transaction that
 * also sets `user_version`, so a step happens whole or not at all, and another process opening
 * the file at the same time waits and then finds it done. Files made before the steps were
 * numbered say 0; step 1 and 2 are written so that they fit every such file.
 */
import type Database from 'better-sqlite3'
import type { Session } from '../../core/session.js'
import { briefOf } from '../brief.js'

/** What a step may need of the store that runs it. */
export interface MigrationContext {
  /** Versions of history kept per session (`HISTORY_LIMIT`). */
  historyLimit: number
}

export interface Migration {
  /** The `user_version` a file has after this step. */
  version: number
  /** What the step does, for the log and the errors. */
  name: string
  up(db: Database.Database, context: MigrationContext): void
}

/** The tables of step 1, in the order step 2 rebuilds them. */
const FIRST_TABLES = ['sessions', 'history', 'idempotency'] as const

/** The indexes step 1 made; step 2 drops and remakes them with their tables. */
const FIRST_INDEXES = ['sessions_by_update', 'sessions_by_expiry', 'idempotency_by_expiry']

// Rowid tables: a session row (~1.4 KB of JSON) and a history row (~1 KB) are larger than what
// a WITHOUT ROWID b-tree keeps on its page (about 1 KB of 4 KB), so there every write also
// rewrote overflow pages, costing CPU and file size (the figures: bench/results.md, SQLite).
const ROWID_TABLES: Record<(typeof FIRST_TABLES)[number], string> = {
  sessions: `
    CREATE TABLE sessions (
      tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, data TEXT NOT NULL,
      total INTEGER NOT NULL, unfinished INTEGER NOT NULL, ended INTEGER NOT NULL,
      updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
      PRIMARY KEY (tenant, session_id)) STRICT;`,
  history: `
    CREATE TABLE history (
      tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, at INTEGER NOT NULL,
      source TEXT NOT NULL, items TEXT NOT NULL,
      PRIMARY KEY (tenant, session_id, version)) STRICT;`,
  idempotency: `
    CREATE TABLE idempotency (
      scope TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, reply TEXT, expires_at INTEGER NOT NULL
    ) STRICT;`,
}

const FIRST_INDEX_SQL = `
  CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (tenant, updated_at DESC, session_id DESC);
  CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at);
  CREATE INDEX IF NOT EXISTS idempotency_by_expiry ON idempotency (expires_at);`

/**
 * The width of a session's expiry bucket, the column the sweep's index is on. A write sets it
 * only when its new expiry falls in another bucket, so most writes leave that index alone (with
 * the index on `expires_at`, every write moved one entry of it: a random page more per COMMIT,
 * bench/results.md, SQLite). Part of the schema: step 4 wrote every row's with it, so another
 * width takes another step.
 */
export const EXPIRY_BUCKET_MS = 60_000

/** The session columns step 10 copies, in its table's order (the brief before the data). */
const SESSION_COLUMNS_10 =
  'tenant,session_id,version,total,unfinished,ended,updated_at,expires_at,expiry_bucket,writes,brief,data'

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, history and idempotency records',
    // the schema as 0.1.0 released it; IF NOT EXISTS because an unversioned file may hold it
    // (or step 2's form of it) already
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS sessions (
          tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, data TEXT NOT NULL,
          total INTEGER NOT NULL, unfinished INTEGER NOT NULL, ended INTEGER NOT NULL,
          updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
          PRIMARY KEY (tenant, session_id)) STRICT, WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS history (
          tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL, at INTEGER NOT NULL,
          source TEXT NOT NULL, items TEXT NOT NULL,
          PRIMARY KEY (tenant, session_id, version)) STRICT, WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS idempotency (
          scope TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, reply TEXT, expires_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        ${FIRST_INDEX_SQL}`)
    },
  },
  {
    version: 2,
    name: 'rowid tables',
    // unversioned files made after 0.1.0 have rowid tables already: only the tables still
    // WITHOUT ROWID are rebuilt, with their rows
    up(db) {
      const legacy = db
        .prepare<[], string>(
          `SELECT name FROM sqlite_master WHERE type = 'table'
             AND name IN ('sessions', 'history', 'idempotency') AND sql LIKE '%WITHOUT ROWID%'`
        )
        .pluck()
        .all()
      if (legacy.length === 0) return
      for (const index of FIRST_INDEXES) db.exec(`DROP INDEX IF EXISTS ${index}`)
      for (const table of FIRST_TABLES.filter((name) => legacy.includes(name))) {
        db.exec(`ALTER TABLE ${table} RENAME TO ${table}_without_rowid`)
        db.exec(ROWID_TABLES[table])
        db.exec(`INSERT INTO ${table} SELECT * FROM ${table}_without_rowid`)
        db.exec(`DROP TABLE ${table}_without_rowid`)
      }
      db.exec(FIRST_INDEX_SQL)
    },
  },
  {
    version: 3,
    name: 'tombstones, idempotency claim tokens and the write probe',
    up(db) {
      // the last version of a deleted session, for the session TTL, so a re-created session
      // goes on from it
      db.exec(`
        CREATE TABLE tombstones (
          tenant TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          PRIMARY KEY (tenant, session_id)) STRICT;
        CREATE INDEX tombstones_by_expiry ON tombstones (expires_at);
        ALTER TABLE idempotency ADD COLUMN token TEXT;
        CREATE TABLE write_probe (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, pad BLOB NOT NULL) STRICT;`)
    },
  },
  {
    version: 4,
    name: 'expiry buckets for the sweep',
    up(db) {
      // integer division: the bucket is floor(expires_at / EXPIRY_BUCKET_MS), as the store writes it
      db.exec(`
        ALTER TABLE sessions ADD COLUMN expiry_bucket INTEGER NOT NULL DEFAULT 0;
        UPDATE sessions SET expiry_bucket = expires_at / ${EXPIRY_BUCKET_MS};
        DROP INDEX sessions_by_expiry;
        CREATE INDEX sessions_by_expiry_bucket ON sessions (expiry_bucket);`)
    },
  },
  {
    version: 5,
    name: 'history as a ring of HISTORY_LIMIT slots per session',
    up(db, { historyLimit }) {
      db.exec('CREATE TABLE store_settings (name TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT')
      layOutHistory(db, historyLimit)
    },
  },
  {
    version: 6,
    name: 'session briefs for listings',
    // listings read the brief (a few hundred bytes) instead of the session (up to
    // MAX_SESSION_BYTES), and filter on it; every row written before gets its brief here
    up(db) {
      db.exec("ALTER TABLE sessions ADD COLUMN brief TEXT NOT NULL DEFAULT ''")
      // in rowid order, a few rows at a time: a file of large sessions is never read whole
      const next = db.prepare<[number], { id: number; data: string }>(
        'SELECT rowid AS id, data FROM sessions WHERE rowid > ? ORDER BY rowid LIMIT 64'
      )
      const fill = db.prepare<[string, number]>('UPDATE sessions SET brief = ? WHERE rowid = ?')
      for (let rows = next.all(0); rows.length > 0; rows = next.all(rows[rows.length - 1].id)) {
        for (const row of rows) {
          fill.run(JSON.stringify(briefOf(JSON.parse(row.data) as Session)), row.id)
        }
      }
      // the listing's index covers what a listing filters on and returns: a listing never
      // reads a session's row, whose columns after `data` sit behind its overflow pages
      db.exec(`
        DROP INDEX sessions_by_update;
        CREATE INDEX sessions_by_update ON sessions
          (tenant, updated_at DESC, session_id DESC, expires_at, ended, unfinished, total, brief);`)
    },
  },
  {
    version: 7,
    name: 'a write count per session',
    // the store reads and serialises a write before its transaction; inside, the row must be
    // the one it read, which the version alone does not tell after a quiet write
    up(db) {
      db.exec('ALTER TABLE sessions ADD COLUMN writes INTEGER NOT NULL DEFAULT 0')
    },
  },
  {
    version: 8,
    name: 'webhooks, the alert outbox and deliveries',
    // the outbox is written in the session write's transaction (store/sqlite/alerts.ts); a
    // lease (`lease_until`) claims a row, so a row of a crashed process is claimed again later.
    // Terse: SQLite keeps each CREATE's text in the schema, read at every open (since steps 9
    // and 10 it no longer fits the first page; test/integration/sqlite-faults.test.ts keeps the
    // schema's pages when it damages the rest); the stale scan's marks are rows of
    // store_settings (`alert_scan:<tenant>`)
    up(db) {
      db.exec(
        [
          'CREATE TABLE webhooks(tenant TEXT NOT NULL,id TEXT NOT NULL,data TEXT NOT NULL,' +
            'created_at INTEGER NOT NULL,PRIMARY KEY(tenant,id))STRICT',
          'CREATE TABLE alert_outbox(seq INTEGER PRIMARY KEY,tenant TEXT NOT NULL,' +
            'session_id TEXT NOT NULL,kind TEXT NOT NULL,at INTEGER NOT NULL,since INTEGER,' +
            'lease_owner TEXT,lease_until INTEGER NOT NULL DEFAULT 0)STRICT',
          'CREATE TABLE alert_deliveries(id TEXT PRIMARY KEY,tenant TEXT NOT NULL,' +
            'webhook_id TEXT NOT NULL,type TEXT NOT NULL,session_id TEXT,status TEXT NOT NULL,' +
            'attempts INTEGER NOT NULL,last_status INTEGER,last_error TEXT,' +
            'next_attempt_at INTEGER,created_at INTEGER NOT NULL,body TEXT NOT NULL,' +
            'waiting_since INTEGER,lease_owner TEXT,lease_until INTEGER NOT NULL DEFAULT 0)STRICT',
          "CREATE INDEX alert_deliveries_due ON alert_deliveries(next_attempt_at)WHERE status='pending'",
          'CREATE INDEX alert_deliveries_by_webhook ON alert_deliveries(tenant,webhook_id,created_at)',
          'CREATE TABLE alert_marks(tenant TEXT NOT NULL,webhook_id TEXT NOT NULL,' +
            'session_id TEXT NOT NULL,PRIMARY KEY(tenant,session_id,webhook_id))STRICT',
        ].join(';')
      )
    },
  },
  {
    version: 9,
    name: 'alert claims per tenant, deliveries in order',
    // the due index leads with the tenant (a claim takes each tenant's own due rows, so one
    // tenant's backlog never hides another's) and the outbox is read per tenant too; `ord` is a
    // delivery's order (webhook and session, store/alerts/types.ts `orderKeyOf`), and a later
    // pending delivery of an order waits as status `held` (shown as `pending`). Terse, as step 8
    up(db) {
      db.exec(
        [
          'ALTER TABLE alert_deliveries ADD ord TEXT',
          'DROP INDEX alert_deliveries_due',
          "CREATE INDEX al_due ON alert_deliveries(tenant,next_attempt_at)WHERE status='pending'",
          'CREATE INDEX al_ord ON alert_deliveries(tenant,ord)',
          'CREATE INDEX ao_tenant ON alert_outbox(tenant,seq)',
        ].join(';')
      )
    },
  },
  {
    version: 10,
    name: 'the brief in the session row before its data, out of the listing index',
    // Step 6 put the brief (~500-800 bytes) in the listing's index, whose entry moves on every
    // write (it is ordered by updated_at): every write deleted and inserted an entry of that
    // size, splitting and rebalancing index pages, which doubled the CPU of a write
    // (bench/results.md, "The default store got a third slower"). The row is rewritten on every
    // write anyway: the brief now sits there, before `data`, so a listing reads it from the
    // row's first bytes and never a large session's overflow pages. Rowids are kept.
    up(db) {
      db.exec(
        [
          // the indexes go first, and the copy is made under a short name (see step 8)
          'DROP INDEX sessions_by_update',
          'DROP INDEX sessions_by_expiry_bucket',
          'CREATE TABLE s10(tenant TEXT NOT NULL,session_id TEXT NOT NULL,' +
            'version INTEGER NOT NULL,total INTEGER NOT NULL,unfinished INTEGER NOT NULL,' +
            'ended INTEGER NOT NULL,updated_at INTEGER NOT NULL,expires_at INTEGER NOT NULL,' +
            "expiry_bucket INTEGER NOT NULL DEFAULT 0,writes INTEGER NOT NULL DEFAULT 0,brief TEXT NOT NULL DEFAULT ''," +
            'data TEXT NOT NULL,PRIMARY KEY(tenant,session_id))STRICT',
          `INSERT INTO s10(rowid,${SESSION_COLUMNS_10}) SELECT rowid,${SESSION_COLUMNS_10} FROM sessions`,
          'DROP TABLE sessions',
          'ALTER TABLE s10 RENAME TO sessions',
          'CREATE INDEX sessions_by_update ON sessions(tenant,updated_at DESC,session_id DESC,' +
            'expires_at,ended,unfinished,total)',
          'CREATE INDEX sessions_by_expiry_bucket ON sessions(expiry_bucket)',
        ].join(';')
      )
    },
  },
  {
    version: 11,
    name: 'personal tokens and the audit trail',
    // one table of keys and values (store/sqlite/people.ts: `t/<hash>` a token,
    // `a/<tenant>/<at>/<id>` an audit entry; a rowid table, as the others): the file's first
    // page had room for one short CREATE only when it was written (see step 8)
    up(db) {
      db.exec('CREATE TABLE people(k TEXT PRIMARY KEY,v TEXT)STRICT')
    },
  },
]

/**
 * Lays the history out as a ring of `historyLimit` slots per session, keeping each session's
 * newest `historyLimit` versions, and records the limit. A write then rewrites the row of its
 * slot (`version % historyLimit`) in place instead of adding a row and deleting the oldest: no
 * index entry moves, and one random page is dirty instead of three (bench/results.md, SQLite).
 * Run inside the caller's transaction.
 * @param db - the open database, at step 5 or later (or inside it)
 * @param historyLimit - versions of history kept per session
 */
export function layOutHistory(db: Database.Database, historyLimit: number): void {
  if (!Number.isSafeInteger(historyLimit) || historyLimit < 1) {
    throw new Error(`the history limit must be a positive integer, not ${historyLimit}`)
  }
  // contiguous versions fill distinct slots; where more were kept than fit, the newest wins
  db.exec(`
    CREATE TABLE history_ring (
      tenant TEXT NOT NULL, session_id TEXT NOT NULL, slot INTEGER NOT NULL,
      version INTEGER NOT NULL, at INTEGER NOT NULL, source TEXT NOT NULL, items TEXT NOT NULL,
      PRIMARY KEY (tenant, session_id, slot)) STRICT;
    INSERT OR REPLACE INTO history_ring (tenant, session_id, slot, version, at, source, items)
      SELECT tenant, session_id, version % ${historyLimit}, version, at, source, items
      FROM history ORDER BY tenant, session_id, version;
    DROP TABLE history;
    ALTER TABLE history_ring RENAME TO history;`)
  db.prepare(
    `INSERT INTO store_settings (name, value) VALUES ('history_limit', ?)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value`
  ).run(historyLimit)
}

/** The size of the file's history ring, as `layOutHistory` recorded it. */
export const HISTORY_RING_SQL = "SELECT value FROM store_settings WHERE name = 'history_limit'"

const keptLimit = (db: Database.Database) => db.prepare<[], number>(HISTORY_RING_SQL).pluck().get()

/**
 * Lays the history out again when the file's ring has another size than `historyLimit` (the
 * setting changed since the file was last opened). A file whose ring fits is only read.
 * @param db - the open database, migrated
 * @param historyLimit - versions of history kept per session
 * @returns the size the ring had, when it was laid out again; else undefined
 */
export function fitHistoryLimit(db: Database.Database, historyLimit: number): number | undefined {
  if (keptLimit(db) === historyLimit) return undefined
  let before: number | undefined
  db.transaction(() => {
    // read again under the write lock: another process may have laid it out meanwhile
    before = keptLimit(db)
    if (before === historyLimit) before = undefined
    else layOutHistory(db, historyLimit)
  }).immediate()
  return before
}

/** The `user_version` of a file that went through every step. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version

const userVersion = (db: Database.Database) => db.pragma('user_version', { simple: true }) as number

/**
 * Brings a file up to the last step. A file already there is only read, so a read-only file
 * opens.
 * @param db - the open database
 * @param context - what the steps may need of the store
 * @param migrations - the steps, in order (tests pass others)
 * @returns the steps that ran
 * @throws Error when the file comes from a newer version (a `user_version` beyond the last step)
 */
export function migrate(
  db: Database.Database,
  context: MigrationContext,
  migrations: readonly Migration[] = MIGRATIONS
): Migration[] {
  const latest = migrations[migrations.length - 1]?.version ?? 0
  const found = userVersion(db)
  if (found > latest) {
    throw new Error(
      `the database is at schema version ${found}, newer than this release knows (${latest}): run a newer agent-todos, or restore a backup`
    )
  }
  const ran: Migration[] = []
  for (const migration of migrations) {
    if (migration.version <= found) continue
    db.transaction(() => {
      // read again under the write lock: another process may have run the step meanwhile
      if (userVersion(db) >= migration.version) return
      migration.up(db, context)
      db.pragma(`user_version = ${migration.version}`)
      ran.push(migration)
    }).immediate()
  }
  return ran
}
