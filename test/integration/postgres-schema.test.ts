/**
 * The PostgreSQL schema: instances starting at once migrate once (the advisory lock), and a
 * database migrated by a newer release is refused with a message that says so.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { createPostgresStore } from '../../src/store/postgres/index.js'
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js'
import { dropDatabase, freshDatabase, missingPostgres, probePostgres } from '../postgres-support.js'

const options = { ttlMs: 3_600_000, historyLimit: 5, now: Date.now }
const down = await probePostgres()

if (down) {
  missingPostgres('PostgreSQL schema', down)
} else {
  describe('PostgreSQL schema', () => {
    it('Should migrate once when four instances start at once', async () => {
      const url = await freshDatabase('schema')
      try {
        const stores = await Promise.all(
          Array.from({ length: 4 }, () => createPostgresStore({ ...options, url }))
        )
        await Promise.all(stores.map((store) => store.close()))
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        const { rows } = await client.query<{ version: number }>(
          'SELECT version FROM agent_todos_schema ORDER BY version'
        )
        await client.end()
        assert.deepEqual(
          rows.map((row) => row.version),
          PG_MIGRATIONS.map((step) => step.version)
        )
      } finally {
        await dropDatabase(url)
      }
    })

    it('Should refuse a schema newer than it knows, naming both versions', async () => {
      const url = await freshDatabase('newer')
      try {
        await (await createPostgresStore({ ...options, url })).close()
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        await client.query("INSERT INTO agent_todos_schema (version, name) VALUES (999, 'future')")
        await client.end()
        await assert.rejects(
          createPostgresStore({ ...options, url }),
          /schema is at version 999, newer than this release knows \(\d+\)/
        )
      } finally {
        await dropDatabase(url)
      }
    })
  })
}
