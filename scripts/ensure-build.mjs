// `npm start` runs this first: build dist/ when it is missing or older than src/, so that
// `npm ci && npm start` works on a fresh clone. The container runs `node dist/server.js` directly.
import { execSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name)
    const time = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs
    return Math.max(latest, time)
  }, 0)

const entry = 'dist/server.js'
if (!existsSync(entry) || statSync(entry).mtimeMs < newest('src')) {
  console.error('building dist/ (tsc)…')
  execSync('npm run -s build', { stdio: 'inherit' })
}
