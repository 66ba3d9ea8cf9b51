/**
 * The store contract on SQLite, each run on a fresh file in the temporary directory.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteStore } from '../../src/store/sqlite.js'
import { storeContract } from '../store-contract.js'

storeContract('sqlite', (options) =>
  createSqliteStore({
    ...options,
    path: join(mkdtempSync(join(tmpdir(), 'agent-todos-')), 'contract.db'),
    synchronous: 'normal',
  })
)
