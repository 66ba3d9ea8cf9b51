/**
 * The typed client's generated types follow the committed OpenAPI document.
 */
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { AGENTS_JS_PATH, AGENTS_TS_PATH, agentsJs, agentsTs } from '../../scripts/agents-data.js'
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

describe("The agents' generated data (src/client/agents.ts, the dashboard's app/agents.js)", () => {
  it('Should match the descriptors in src/agents (run npm run client)', async () => {
    assert.ok(
      readFileSync(AGENTS_TS_PATH, 'utf8') === (await agentsTs()),
      'src/client/agents.ts is stale: run `npm run client`'
    )
    assert.ok(
      readFileSync(AGENTS_JS_PATH, 'utf8') === (await agentsJs()),
      'src/http/dashboard/app/agents.js is stale: run `npm run client`'
    )
  })
})
