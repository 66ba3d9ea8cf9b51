// `npm start` runs this first: build dist/ when it is missing, older than src/, or lacks a file
// the build copies (the dashboard's and docs page's files), so that `npm ci && npm start` works
// on a fresh clone. The container runs `node dist/server.js` directly.
import { execSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? files(path) : [path]
  })

const sources = files('src')
const newest = Math.max(...sources.map((path) => statSync(path).mtimeMs))
const entry = 'dist/server.js'
const assetMissing = sources
  .filter((path) => !path.endsWith('.ts'))
  .some((path) => !existsSync(join('dist', relative('src', path))))
if (!existsSync(entry) || statSync(entry).mtimeMs < newest || assetMissing) {
  console.error('building dist/ (tsc)…')
  execSync('npm run -s build', { stdio: 'inherit' })
}
