// `npm run build` runs this after tsc: tsc emits only JavaScript, so the files the code reads at
// run time next to its modules (the Redis store's Lua scripts) are copied from src/ to dist/ at
// the same relative paths.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs'
import { dirname, extname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SRC = join(ROOT, 'src')
const DIST = join(ROOT, 'dist')
/** What tsc does not emit but the modules read at run time. */
const ASSETS = new Set(['.lua'])

let copied = 0
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path)
    else if (ASSETS.has(extname(entry.name))) {
      const target = join(DIST, relative(SRC, path))
      mkdirSync(dirname(target), { recursive: true })
      copyFileSync(path, target)
      copied++
    }
  }
}
walk(SRC)
if (copied === 0) throw new Error('copy-assets: no asset found under src/')
