// `npm start` runs this first: build dist/ when it is missing, older than src/, or lacks a file
// the build copies (the dashboard's and docs page's files), so that `npm ci && npm start` works
// on a fresh clone. An installed package ships dist/ and no src/: there it only checks that
// dist/server.js is there. The container runs `node dist/server.js` directly.
import { execSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const entry = 'dist/server.js'

if (!existsSync('src')) {
  if (!existsSync(entry)) {
    console.error(
      `agent-todos: ${entry} is missing and there is no src/ to build it from; reinstall the package (npm install agent-todos) or build it from a clone (npm run build).`
    )
    process.exit(1)
  }
  process.exit(0)
}

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? files(path) : [path]
  })

const sources = files('src')
const newest = Math.max(...sources.map((path) => statSync(path).mtimeMs))
// the docs page's swagger-ui files, which copy-assets.mjs takes from swagger-ui-dist
const vendored = 'dist/http/docs/swagger-ui/swagger-ui-bundle.js'
const assetMissing =
  !existsSync(vendored) ||
  sources
    .filter((path) => !path.endsWith('.ts'))
    .some((path) => !existsSync(join('dist', relative('src', path))))
if (!existsSync(entry) || statSync(entry).mtimeMs < newest || assetMissing) {
  console.error('building dist/ (tsc)…')
  execSync('npm run -s build', { stdio: 'inherit' })
}
