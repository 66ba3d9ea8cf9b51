/**
 * Writes openapi/openapi.json from the routes; `--check` exits 1 when the committed file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { generateOpenApi } from '../src/http/openapi.js'

const path = new URL('../openapi/openapi.json', import.meta.url)
const generated = await generateOpenApi()
if (process.argv.includes('--check')) {
  let committed = ''
  try {
    committed = readFileSync(path, 'utf8')
  } catch {
    // no committed file yet: it is stale by definition
  }
  if (committed !== generated) {
    console.error('openapi/openapi.json is stale: run `npm run openapi` and commit the result')
    process.exit(1)
  }
  console.log('openapi/openapi.json is up to date')
} else {
  writeFileSync(path, generated)
  console.log('wrote openapi/openapi.json')
}
