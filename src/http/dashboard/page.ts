/**
 * @module http/dashboard/page
 * The live progress dashboard as one self-contained HTML page: `index.html` with `style.css`
 * and `app.js` inlined, no CDN, no build step. The files are read once, when this module loads
 * (from src/ under tsx, from dist/ where the build copies them). A Content-Security-Policy
 * admits exactly the inline script and style by hash.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

const read = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8')

/** The page's script (app.js), as inlined. */
export const DASHBOARD_SCRIPT = read('app.js')
/** The page's stylesheet (style.css), as inlined. */
export const DASHBOARD_STYLE = read('style.css')

const sha256 = (source: string) =>
  `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`

/** The page's Content-Security-Policy: nothing but its own script, style and same-origin fetches. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `script-src ${sha256(DASHBOARD_SCRIPT)}`,
  `style-src ${sha256(DASHBOARD_STYLE)}`,
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
}

/** index.html with its script and style inlined (into its empty style and script elements). */
function inlined(html: string): string {
  for (const tag of ['<style></style>', '<script></script>']) {
    if (!html.includes(tag)) throw new Error(`dashboard index.html has no ${tag}`)
  }
  return html
    .replace('<style></style>', () => `<style>${DASHBOARD_STYLE}</style>`)
    .replace('<script></script>', () => `<script>${DASHBOARD_SCRIPT}</script>`)
}

// split where the per-request values go
const PARTS = inlined(read('index.html')).split(/\{\{(staleAfterMs|serverNow)\}\}/)

/**
 * The dashboard page.
 * @param options - the stale threshold and the server's clock, handed to the script
 */
export function dashboardHtml(options: DashboardOptions): string {
  const values: Record<string, string> = {
    staleAfterMs: String(Math.round(options.staleAfterMs)),
    serverNow: String(Math.round(options.serverNow)),
  }
  // odd parts are the placeholder names split() captured
  return PARTS.map((part, i) => (i % 2 ? values[part] : part)).join('')
}
