// `npm run build` runs this after tsc: tsc emits only what it compiles, so every other file
// under src/ (the dashboard's browser modules app/*.js, style.css and index.html, the docs page)
// is copied to the same place under dist/, where the compiled modules read them at start.
// The docs page's swagger-ui files come from swagger-ui-dist, a devDependency: copied with its
// LICENSE and NOTICE to dist/http/docs/swagger-ui/, an installed package serves /docs offline
// without it (and without @scarf/scarf, its install-time telemetry).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'

const SRC = 'src'
const OUT = 'dist'
/** What src/http/routes/ops.ts serves under /docs/assets/, and the licence files that go with it. */
const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'LICENSE', 'NOTICE']
const SWAGGER_UI_OUT = join(OUT, 'http', 'docs', 'swagger-ui')

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

// resolve the folder, do not load the package: its index requires the whole 1.5 MB bundle
const swaggerUi = dirname(
  createRequire(join(process.cwd(), 'package.json')).resolve('swagger-ui-dist/package.json')
)
mkdirSync(SWAGGER_UI_OUT, { recursive: true })
for (const file of SWAGGER_UI_FILES) copyFileSync(join(swaggerUi, file), join(SWAGGER_UI_OUT, file))
console.error(`copied ${SWAGGER_UI_FILES.length} swagger-ui-dist file(s) to ${SWAGGER_UI_OUT}/`)
