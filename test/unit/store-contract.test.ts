/**
 * The store contract on the memory store; the SQLite and Redis runs are in test/integration/.
 */
import { createMemoryStore } from '../../src/store/memory.js'
import { storeContract } from '../store-contract.js'

storeContract('memory', (options) => createMemoryStore(options))
