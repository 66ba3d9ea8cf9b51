/**
 * Writes src/client/schema.ts from openapi/openapi.json, and the agents' data the CLI and the
 * dashboard read from the descriptors (scripts/agents-data.ts); `--check` exits 1 when one is
 * stale.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { AGENTS_JS_PATH, AGENTS_TS_PATH, agentsJs, agentsTs } from './agents-data.js'
import { CLIENT_TYPES_PATH, generateClientTypes } from './client-types.js'

const files: [string | URL, string][] = [
  [CLIENT_TYPES_PATH, await generateClientTypes()],
  [AGENTS_TS_PATH, await agentsTs()],
  [AGENTS_JS_PATH, await agentsJs()],
]
for (const [path, generated] of files) {
  if (process.argv.includes('--check')) {
    let committed = ''
    try {
      committed = readFileSync(path, 'utf8')
    } catch {
      // no committed file yet: it is stale by definition
    }
    if (committed !== generated) {
      console.error(`${String(path)} is stale: run \`npm run client\` and commit the result`)
      process.exit(1)
    }
    console.log(`${String(path)} is up to date`)
  } else {
    writeFileSync(path, generated)
    console.log(`wrote ${String(path)}`)
  }
}
