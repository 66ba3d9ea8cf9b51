/**
 * @module http/dashboard/page
 * The live progress dashboard: `index.html` with `style.css` inlined, and its script as plain
 * ES modules (`app/main.js` and the modules it imports) served by the service itself under
 * `/dashboard/<version>/`. No CDN, no build step. The files are read once, when this module loads
 * (from src/ under tsx, from dist/ where the build copies them).
 *
 * The Content-Security-Policy admits scripts by hash only: the inline import map, and each module
 * by its own hash, which the browser checks against the `integrity` the page gives the entry
 * script and the import map gives every other module. No other script runs, inline or not, even
 * from this origin. The version in the modules' path is a hash of all of them, so they can be
 * cached for good: a changed module is a new path.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

const read = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8')

const digest = (source: string) => createHash('sha256').update(source, 'utf8').digest('base64')

/** The module the page loads; it imports the others. */
export const DASHBOARD_ENTRY = 'main.js'

/** One of the page's script modules. */
export interface DashboardModule {
  /** The file name under `app/`, e.g. `main.js`. */
  name: string
  source: string
  /** Its Subresource Integrity value, `sha256-<base64>` (also its CSP hash-source). */
  integrity: string
  /** Its strong entity tag. */
  etag: string
}

// a static import of another module of the folder (prettier puts each statement at a line start)
const IMPORT =
  /^(?:import|export)\b[^'"]*?\bfrom ['"]\.\/([\w-]+\.js)['"]|^import ['"]\.\/([\w-]+\.js)['"]/gm

/**
 * The entry module and every module it imports, directly or not, by file name: what the browser
 * loads (a file only JSDoc types import, e.g. types.js, is not served).
 */
function readModules(): Map<string, DashboardModule> {
  const modules = new Map<string, DashboardModule>()
  const pending = [DASHBOARD_ENTRY]
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (modules.has(name)) continue
    const source = read(`app/${name}`)
    const hash = digest(source)
    modules.set(name, { name, source, integrity: `sha256-${hash}`, etag: `"${hash}"` })
    for (const [, from, bare] of source.matchAll(IMPORT)) pending.push(from ?? bare)
  }
  return new Map([...modules].sort(([a], [b]) => (a < b ? -1 : 1)))
}

/** The page's script modules by file name, read once. */
export const DASHBOARD_MODULES: ReadonlyMap<string, DashboardModule> = readModules()

/** A hash of every module's name and text: the path segment that changes when any of them does. */
export const DASHBOARD_VERSION = createHash('sha256')
  .update([...DASHBOARD_MODULES.values()].map((m) => `${m.name}\0${m.source}`).join('\0'))
  .digest('hex')
  .slice(0, 16)

/**
 * The path the page loads a module from.
 * @param name - the module's file name, e.g. `main.js`
 */
export const dashboardModulePath = (name: string) => `/dashboard/${DASHBOARD_VERSION}/${name}`

/** The page's stylesheet (style.css), as inlined. */
export const DASHBOARD_STYLE = read('style.css')

/** The inline import map: the integrity of each module, checked when a module imports it. */
export const DASHBOARD_IMPORT_MAP = JSON.stringify({
  integrity: Object.fromEntries(
    [...DASHBOARD_MODULES.values()].map((m) => [dashboardModulePath(m.name), m.integrity])
  ),
})

/** The page's Content-Security-Policy: its own scripts and style by hash, same-origin fetches. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `script-src ${[
    `sha256-${digest(DASHBOARD_IMPORT_MAP)}`,
    ...[...DASHBOARD_MODULES.values()].map((m) => m.integrity),
  ]
    .map((hash) => `'${hash}'`)
    .join(' ')}`,
  `style-src 'sha256-${digest(DASHBOARD_STYLE)}'`,
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export interface DashboardOptions {
  /** Sessions with unfinished items unchanged this long are shown as stale (the badge says so). */
  staleAfterMs: number
  /** The server's clock, epoch ms. */
  serverNow: number
  /** Sign-in is configured: the page offers "Sign in" (SPEC People). */
  signIn?: boolean
}

/** The import map, a preload of each module the entry imports, and the entry module. */
function scriptTags(): string {
  const preloads = [...DASHBOARD_MODULES.values()]
    .filter((m) => m.name !== DASHBOARD_ENTRY)
    .map(
      (m) =>
        `<link rel="modulepreload" href="${dashboardModulePath(m.name)}" integrity="${m.integrity}" />`
    )
  const entry = DASHBOARD_MODULES.get(DASHBOARD_ENTRY)!
  return [
    `<script type="importmap">${DASHBOARD_IMPORT_MAP}</script>`,
    ...preloads,
    `<script type="module" src="${dashboardModulePath(entry.name)}" integrity="${entry.integrity}"></script>`,
  ].join('\n    ')
}

/** index.html with its style inlined and its script tags in place. */
function assembled(html: string): string {
  for (const marker of ['<style></style>', '<!-- modules -->']) {
    if (!html.includes(marker)) throw new Error(`dashboard index.html has no ${marker}`)
  }
  return html
    .replace('<style></style>', () => `<style>${DASHBOARD_STYLE}</style>`)
    .replace('<!-- modules -->', scriptTags)
}

// split where the per-request values go
const PARTS = assembled(read('index.html')).split(/\{\{(staleAfterMs|serverNow|signIn)\}\}/)

/**
 * The dashboard page.
 * @param options - the stale threshold and the server's clock, handed to the script
 */
export function dashboardHtml(options: DashboardOptions): string {
  const values: Record<string, string> = {
    staleAfterMs: String(Math.round(options.staleAfterMs)),
    serverNow: String(Math.round(options.serverNow)),
    signIn: options.signIn ? 'on' : 'off',
  }
  // odd parts are the placeholder names split() captured
  return PARTS.map((part, i) => (i % 2 ? values[part] : part)).join('')
}
