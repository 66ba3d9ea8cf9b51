// `npm run build` runs this after tsc: tsc emits only what it compiles, so every other file
// under src/ (the dashboard's browser modules app/*.js, style.css and index.html, the docs page)
// is copied to the same place under dist/, where the compiled modules read them at start.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

const SRC = 'src'
const OUT = 'dist'

function* assets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* assets(path)
    else if (!entry.name.endsWith('.ts')) yield path
  }
}

let copied = 0
for (const path of assets(SRC)) {
  const target = join(OUT, relative(SRC, path))
  mkdirSync(dirname(target), { recursive: true })
  copyFileSync(path, target)
  copied++
}
console.error(`copied ${copied} asset file(s) from ${SRC}/ to ${OUT}/`)
