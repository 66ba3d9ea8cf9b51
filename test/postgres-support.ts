/**
 * PostgreSQL for tests: a reachability gate (a failing test under CI=true, a skip with the reason
 * elsewhere) and throwaway databases, one per test file or store, on the shared server
 * (`.ci/run` starts one on 127.0.0.1:5432 when none runs).
 */
import { it } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { createPostgresStore } from '../src/store/postgres/index.js'
import type { SessionStore, StoreOptions } from '../src/store/types.js'

/** The server of the test run: its `postgres` database is used to create the others. */
export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const IN_CI = process.env.CI === 'true'

/** Null when PostgreSQL answers, else why not. */
export async function probePostgres(url: string = TEST_POSTGRES_URL): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return null
  } catch (error) {
    return (error as Error).message
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** A test that fails (CI) or is skipped (elsewhere) because PostgreSQL is missing. */
export function missingPostgres(what: string, reason: string): void {
  if (IN_CI) {
    it(`${what}: PostgreSQL is required under CI`, () => {
      assert.fail(`${what} needs PostgreSQL, which is unavailable: ${reason}`)
    })
    return
  }
  console.log(`skipping ${what}: ${reason}`)
  it(what, { skip: `PostgreSQL unavailable: ${reason}` }, () => undefined)
}

/** The URL of another database on the server of `base`. */
export function databaseUrl(name: string, base: string = TEST_POSTGRES_URL): string {
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.toString()
}

/** Drops a database made by `freshDatabase` (its connections are ended first). */
export async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1)
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  } finally {
    await client.end()
  }
}

/**
 * Creates an empty database of its own and returns its URL; the caller drops it
 * (`dropDatabase`), or `openTestPostgresStore`'s store does when it closes.
 * @param tag - names the database (letters, digits and _)
 */
export async function freshDatabase(tag: string): Promise<string> {
  const name = `at_test_${tag}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  return databaseUrl(name)
}

/** A PostgreSQL store on a fresh database, dropped when the store closes. */
export async function openTestPostgresStore(
  tag: string,
  options: StoreOptions
): Promise<SessionStore> {
  const url = await freshDatabase(tag)
  const store = await createPostgresStore({ ...options, url })
  const close = store.close.bind(store)
  return Object.assign(store, {
    close: async () => {
      await close()
      await dropDatabase(url)
    },
  })
}
