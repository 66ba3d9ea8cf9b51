import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryStore } from '../../src/store/memory.js'
import { createSqliteStore } from '../../src/store/sqlite.js'
import { storeContract } from '../store-contract.js'

storeContract('memory', (options) => createMemoryStore(options))

storeContract('sqlite', (options) =>
  createSqliteStore({
    ...options,
    path: join(mkdtempSync(join(tmpdir(), 'agent-todos-')), 'contract.db'),
    synchronous: 'normal',
  })
)
