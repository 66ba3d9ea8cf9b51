/**
 * @module http/routes/ops
 * Liveness, readiness, the OpenAPI document and the API reference page.
 */
import { existsSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import { problem } from '../problem.js'

/** How long readiness waits for the store before calling it down. */
const READY_TIMEOUT_MS = 1000

// the API reference page and its start script, read once (the build copies them to dist/)
const docsFile = (name: string) => readFileSync(new URL(`../docs/${name}`, import.meta.url), 'utf8')
const DOCS_HTML = docsFile('index.html')
const DOCS_INIT = docsFile('init.js')

const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
}

/**
 * Where swagger-ui's files are: the build copies them beside the docs page (an installed package
 * has no swagger-ui-dist, a devDependency); run from src/ they come from swagger-ui-dist itself.
 */
function swaggerUiDir(): string {
  const copied = fileURLToPath(new URL('../docs/swagger-ui/', import.meta.url))
  if (existsSync(join(copied, 'swagger-ui-bundle.js'))) return copied
  // resolve the folder, do not load the package: its index requires the whole 1.5 MB bundle
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Registers the operational routes.
 * @param app - the app
 * @param deps - store and lifecycle
 * @param document - a function returning the OpenAPI document as JSON text
 */
export function registerOpsRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, document: () => string) {
  app.get('/livez', (c) => c.json({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' }))

  app.get('/readyz', async (c) => {
    if (deps.isDraining()) {
      return problem(c, 'draining', 'The service is shutting down.', {
        headers: { 'Cache-Control': 'no-store' },
      })
    }
    try {
      await withTimeout(deps.store.ping(), READY_TIMEOUT_MS)
    } catch (error) {
      c.get('logger').warn({ err: error }, 'readiness: store unreachable')
      return problem(c, 'store-unavailable', `The ${deps.store.kind} store is unreachable.`, {
        headers: { 'Cache-Control': 'no-store', 'Retry-After': '1' },
      })
    }
    if (deps.writeHealth?.failing()) {
      try {
        await withTimeout(deps.store.checkWritable(), READY_TIMEOUT_MS)
        deps.writeHealth.recovered()
      } catch (error) {
        c.get('logger').warn({ err: error }, 'readiness: store cannot write')
        return problem(c, 'store-unavailable', `The ${deps.store.kind} store cannot write.`, {
          headers: { 'Cache-Control': 'no-store', 'Retry-After': '1' },
        })
      }
    }
    return c.json({ status: 'ready', store: deps.store.kind }, 200, { 'Cache-Control': 'no-store' })
  })

  app.get('/openapi.json', (c) =>
    c.body(document(), 200, { 'Content-Type': 'application/json; charset=utf-8' })
  )

  app.get('/docs', (c) => c.html(DOCS_HTML))
  const assetDir = swaggerUiDir()
  const assets = new Map<string, Promise<Buffer>>()
  app.get('/docs/assets/:file', async (c) => {
    const file = c.req.param('file')
    if (file === 'init.js')
      return c.body(DOCS_INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' })
    // own properties only: 'constructor' or '__proto__' name no asset
    const type = Object.hasOwn(DOCS_ASSETS, file) ? DOCS_ASSETS[file] : undefined
    if (!type) return problem(c, 'not-found', `No asset '${file}'.`)
    let content = assets.get(file)
    if (!content) {
      content = readFile(join(assetDir, file))
      assets.set(file, content)
    }
    return c.body(new Uint8Array(await content), 200, {
      'Content-Type': type,
      'Cache-Control': 'public, max-age=86400',
    })
  })
}
