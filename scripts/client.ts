/**
 * Writes src/client/schema.ts from openapi/openapi.json; `--check` exits 1 when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { CLIENT_TYPES_PATH, generateClientTypes } from './client-types.js'

const generated = await generateClientTypes()
if (process.argv.includes('--check')) {
  let committed = ''
  try {
    committed = readFileSync(CLIENT_TYPES_PATH, 'utf8')
  } catch {
    // no committed file yet: it is stale by definition
  }
  if (committed !== generated) {
    console.error('src/client/schema.ts is stale: run `npm run client` and commit the result')
    process.exit(1)
  }
  console.log('src/client/schema.ts is up to date')
} else {
  writeFileSync(CLIENT_TYPES_PATH, generated)
  console.log('wrote src/client/schema.ts')
}
