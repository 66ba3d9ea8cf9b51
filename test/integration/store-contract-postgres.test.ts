/**
 * The store contract on PostgreSQL, on a database of its own on the shared server.
 */
import { missingPostgres, openTestPostgresStore, probePostgres } from '../postgres-support.js'
import { storeContract } from '../store-contract.js'

const down = await probePostgres()
if (down) missingPostgres('SessionStore contract: postgres', down)
else storeContract('postgres', (options) => openTestPostgresStore('contract', options))
