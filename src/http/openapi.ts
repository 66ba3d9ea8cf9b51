/**
 * @module http/openapi
 * The OpenAPI 3.1 document of the app, as committed in `openapi/openapi.json`.
 */
import pino from 'pino'
import { createMemoryStore } from '../store/memory.js'
import { createApp, OPENAPI_CONFIG } from './app.js'

/** Generates the document text (pretty JSON, trailing newline) from the routes. */
export async function generateOpenApi(): Promise<string> {
  const store = createMemoryStore({ ttlMs: 1, historyLimit: 1, now: Date.now })
  const app = createApp({
    store,
    logger: pino({ level: 'silent' }),
    keys: new Map(),
    bodyLimitBytes: 1,
    staleAfterMs: 1,
    historyLimit: 1,
    idempotencyTtlMs: 1,
    now: Date.now,
    isDraining: () => false,
    openapiDocument: null,
    sseHeartbeatMs: 15_000,
  })
  const document = app.getOpenAPI31Document(OPENAPI_CONFIG)
  await store.close()
  return JSON.stringify(document, null, 2) + '\n'
}
