/**
 * @module http/dashboard/page
 * The live progress dashboard as one self-contained HTML page: inline CSS and JS, no CDN, no
 * build step. A Content-Security-Policy admits exactly the inline script and style by hash.
 */
import { createHash } from 'node:crypto'
import { DASHBOARD_SCRIPT } from './script.js'
import { DASHBOARD_STYLE } from './style.js'

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
  /** Sessions with unfinished items unchanged this long are shown as stale. */
  staleAfterMs: number
  /** The server's clock, epoch ms. */
  serverNow: number
}

const FILTERS: [string, string][] = [
  ['all', 'All'],
  ['working', 'Working'],
  ['stale', 'Stale'],
  ['ended', 'Ended'],
  ['done', 'Done'],
]

const filterButtons = FILTERS.map(
  ([name, label]) =>
    `<button type="button" class="filter" data-filter="${name}" aria-pressed="${name === 'all'}">${label} <span class="count" id="count-${name}">0</span></button>`
).join('\n      ')

/**
 * The dashboard page.
 * @param options - the stale threshold and the server's clock, handed to the script
 */
export function dashboardHtml(options: DashboardOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>agent-todos · live progress</title>
<link rel="icon" href="data:,">
<style>${DASHBOARD_STYLE}</style>
</head>
<body data-stale-after-ms="${Math.round(options.staleAfterMs)}" data-server-now="${Math.round(options.serverNow)}">
<header class="top">
  <div class="brand">
    <span class="logo" aria-hidden="true">✓</span>
    <h1>agent-todos</h1>
    <span class="subtitle">live progress of agent sessions</span>
  </div>
  <div class="top-right">
    <span id="conn" class="conn" role="status" data-conn="connecting"><span class="dot" aria-hidden="true"></span><span id="conn-text">Connecting…</span></span>
    <span id="role" class="role-badge" hidden></span>
    <button id="key-button" type="button" class="btn">API key</button>
  </div>
</header>
<main>
  <div class="toolbar">
    <div class="filters" role="group" aria-label="Show sessions">
      ${filterButtons}
    </div>
    <label class="search"><span class="visually-hidden">Filter by session id</span><input id="search" type="search" placeholder="Filter by session id…" autocomplete="off" spellcheck="false"></label>
  </div>
  <div class="layout">
    <section class="sessions" aria-labelledby="sessions-title">
      <h2 id="sessions-title" class="visually-hidden">Sessions</h2>
      <table>
        <thead>
          <tr>
            <th scope="col" class="col-session">Session</th>
            <th scope="col" class="col-progress">Progress</th>
            <th scope="col" class="col-current">Current item</th>
            <th scope="col" class="col-state">State</th>
            <th scope="col" class="col-updated">Updated</th>
          </tr>
        </thead>
        <tbody id="rows"></tbody>
      </table>
      <p id="empty" class="empty">Waiting for the first snapshot…</p>
    </section>
    <aside id="detail" class="detail" aria-labelledby="detail-title" hidden>
      <div class="detail-head">
        <h2 id="detail-title"></h2>
        <button type="button" id="detail-close" class="btn icon" aria-label="Close session details">×</button>
      </div>
      <p id="detail-status" class="item-sub">Loading…</p>
      <div id="detail-body" hidden>
        <div id="detail-badges" class="badges"></div>
        <div id="detail-progress"></div>
        <dl id="detail-meta" class="meta"></dl>
        <div id="detail-ended" class="ended-box" hidden></div>
        <div id="detail-message" class="message info" role="status" hidden></div>
        <div class="section-head">
          <h3 id="items-title">Todo list</h3>
          <button type="button" id="edit-button" class="btn small" hidden>Edit list</button>
          <span id="edit-readonly" class="item-sub" hidden>Read-only key</span>
        </div>
        <ol id="detail-items" class="items" aria-labelledby="items-title"></ol>
        <form id="edit-form" aria-label="Edit the todo list" hidden>
          <p id="edit-note" class="edit-note" role="status" hidden></p>
          <div id="edit-list"></div>
          <div class="add-row">
            <label class="visually-hidden" for="add-input">New item text</label>
            <input id="add-input" type="text" placeholder="New item…" maxlength="10000" autocomplete="off">
            <button type="button" id="add-button" class="btn small">Add item</button>
          </div>
          <div class="edit-actions">
            <button type="button" id="cancel-button" class="btn">Cancel</button>
            <button type="submit" id="save-button" class="btn primary">Save list</button>
          </div>
        </form>
        <h3 id="history-title">History</h3>
        <ol id="detail-history" class="history" aria-labelledby="history-title"></ol>
      </div>
    </aside>
  </div>
</main>
<div id="toast" class="toast" role="status" aria-live="polite"></div>
<dialog id="key-dialog" aria-labelledby="key-title">
  <form id="key-form">
    <h2 id="key-title">API key</h2>
    <p id="key-reason" class="hint"></p>
    <label for="key-input">Bearer key</label>
    <input id="key-input" type="password" autocomplete="off" spellcheck="false">
    <p class="hint">Kept in this browser's localStorage and sent as <code>Authorization: Bearer …</code> to this service only.</p>
    <div class="edit-actions">
      <button type="button" id="key-clear" class="btn">Forget key</button>
      <button type="button" id="key-cancel" class="btn">Cancel</button>
      <button type="submit" class="btn primary">Use key</button>
    </div>
  </form>
</dialog>
<script>${DASHBOARD_SCRIPT}</script>
</body>
</html>
`
}
