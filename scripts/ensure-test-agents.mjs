/**
 * Installs test/agents/ (the real agent CLIs, the provider SDKs, the ACP SDK, the frameworks of
 * the client adapters and the MCP conformance suite, which only typecheck:providers and the
 * integration and end-to-end tiers use: never npm run typecheck, test:unit or the client
 * package's build) when test/agents/node_modules is missing
 * or was installed from another package.json / package-lock.json: `npm install --prefix test/agents`
 * with the committed lock (why not `npm ci`: below).
 * The root `npm ci` leaves them out because they are most of its time and 1.3 GB of its size.
 * A failed install exits non-zero, so a tier that needs them fails rather than skips.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const dir = fileURLToPath(new URL('../test/agents/', import.meta.url))
const stamp = `${dir}node_modules/.installed-from`

/** What the install was made from: test/agents' package.json and lock. */
function digestOfPackage() {
  const hash = createHash('sha256')
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(dir + file))
  return hash.digest('hex')
}
const wanted = digestOfPackage()

if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) process.exit(0)

// `npm install` with the committed lock, not `npm ci`: opencode, Kilo and Qwen Code's clipboard
// declare one optional package per platform, and npm writes only the ones the registry serves
// into the lock; a registry without the other platforms' builds (this VM's) leaves them out, and
// `npm ci` then refuses the lock as out of sync ("Missing: opencode-darwin-arm64@ from lock
// file"). `npm install` installs the locked versions the same and skips what it cannot get.
console.error('== npm install --prefix test/agents (the agent CLIs and provider SDKs of the tests)')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const run = spawnSync(npm, ['install', '--prefix', dir, '--no-audit', '--no-fund'], {
  stdio: 'inherit',
})
if (run.status !== 0) {
  console.error(
    `npm install --prefix test/agents failed (${run.error?.message ?? `exit ${run.status}`})`
  )
  process.exit(1)
}
writeFileSync(stamp, digestOfPackage())
