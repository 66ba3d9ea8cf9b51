/**
 * The typed client's generated types follow the committed OpenAPI document.
 */
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CLIENT_TYPES_PATH, generateClientTypes } from '../../scripts/client-types.js'

describe('src/client/schema.ts', () => {
  it('Should match openapi/openapi.json (run npm run client)', async () => {
    const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8')
    assert.ok(
      committed === (await generateClientTypes()),
      'src/client/schema.ts is stale: run `npm run client`'
    )
  })
})
