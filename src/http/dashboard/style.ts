/**
 * @module http/dashboard/style
 * The dashboard's stylesheet, inlined into the page (no CDN, works offline).
 */

export const DASHBOARD_STYLE = String.raw`
:root {
  color-scheme: light dark;
  --bg: #f6f8fa;
  --panel: #ffffff;
  --text: #1f2328;
  --muted: #59636e;
  --border: #d1d9e0;
  --row-hover: #f3f6f9;
  --row-selected: #ddf4ff;
  --accent: #0969da;
  --accent-text: #ffffff;
  --bar-bg: #e3e8ee;
  --working: #0969da;
  --working-bg: #ddf4ff;
  --stale: #9a6700;
  --stale-bg: #fff8c5;
  --stale-bar: #d4a72c;
  --ended: #b3261e;
  --ended-bg: #ffebe9;
  --ended-ok: #59636e;
  --ended-ok-bg: #eaeef2;
  --done: #1a7f37;
  --done-bg: #dafbe1;
  --reminder: #8250df;
  --reminder-bg: #fbefff;
  --error-bg: #ffebe9;
  --error-text: #82071e;
  --info-bg: #ddf4ff;
  --info-text: #0a3069;
  --shadow: 0 1px 2px rgba(31, 35, 40, 0.08), 0 3px 12px rgba(31, 35, 40, 0.06);
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117;
    --panel: #151b23;
    --text: #e6edf3;
    --muted: #9198a1;
    --border: #3d444d;
    --row-hover: #1c232c;
    --row-selected: #122d4f;
    --accent: #4493f8;
    --accent-text: #0d1117;
    --bar-bg: #2a313c;
    --working: #4493f8;
    --working-bg: #122d4f;
    --stale: #d29922;
    --stale-bg: #3b2e0a;
    --stale-bar: #d29922;
    --ended: #ff7b72;
    --ended-bg: #4b1a18;
    --ended-ok: #9198a1;
    --ended-ok-bg: #262c36;
    --done: #3fb950;
    --done-bg: #133321;
    --reminder: #bc8cff;
    --reminder-bg: #2e1f4b;
    --error-bg: #4b1a18;
    --error-text: #ffb1aa;
    --info-bg: #122d4f;
    --info-text: #a5d6ff;
    --shadow: none;
  }
}
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; }
body {
  background: var(--bg);
  color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
button, input, select { font: inherit; color: inherit; }
a { color: var(--accent); }
.visually-hidden {
  position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
[hidden] { display: none !important; }
.top {
  display: flex; align-items: center; justify-content: space-between; gap: 16px;
  padding: 10px 24px; background: var(--panel); border-bottom: 1px solid var(--border);
  position: sticky; top: 0; z-index: 5;
}
.brand { display: flex; align-items: baseline; gap: 10px; }
.brand h1 { font-size: 18px; margin: 0; letter-spacing: -0.01em; }
.logo {
  display: inline-grid; place-items: center; width: 24px; height: 24px; border-radius: 6px;
  background: var(--accent); color: var(--accent-text); font-weight: 700; align-self: center;
}
.subtitle { color: var(--muted); }
.top-right { display: flex; align-items: center; gap: 12px; }
.conn { display: inline-flex; align-items: center; gap: 6px; color: var(--muted); font-size: 13px; }
.conn .dot { width: 8px; height: 8px; border-radius: 50%; background: var(--muted); }
.conn[data-conn="live"] .dot { background: var(--done); box-shadow: 0 0 0 3px var(--done-bg); }
.conn[data-conn="reconnecting"] .dot, .conn[data-conn="connecting"] .dot { background: var(--stale-bar); }
.conn[data-conn="key"] .dot, .conn[data-conn="error"] .dot { background: var(--ended); }
.role-badge {
  font-size: 12px; padding: 2px 8px; border-radius: 999px; border: 1px solid var(--border); color: var(--muted);
}
.btn {
  border: 1px solid var(--border); background: var(--panel); border-radius: 6px; padding: 5px 12px;
  cursor: pointer; line-height: 20px;
}
.btn:hover { background: var(--row-hover); }
.btn:focus-visible, .filter:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible {
  outline: 2px solid var(--accent); outline-offset: 1px;
}
.btn.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); font-weight: 600; }
.btn.primary:hover { filter: brightness(1.08); }
.btn.danger { color: var(--ended); }
.btn.small { padding: 2px 8px; font-size: 13px; }
.btn:disabled { opacity: 0.55; cursor: default; }
main { padding: 16px 24px 32px; }
.toolbar { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 12px; margin-bottom: 12px; }
.filters { display: flex; flex-wrap: wrap; gap: 6px; }
.filter {
  border: 1px solid var(--border); background: var(--panel); border-radius: 999px; padding: 4px 12px;
  cursor: pointer; display: inline-flex; gap: 6px; align-items: center;
}
.filter[aria-pressed="true"] { background: var(--text); color: var(--panel); border-color: var(--text); }
.filter .count { font-variant-numeric: tabular-nums; font-weight: 600; }
.search input {
  width: 260px; max-width: 100%; padding: 5px 10px; border: 1px solid var(--border); border-radius: 6px;
  background: var(--panel);
}
.layout { display: flex; align-items: flex-start; gap: 16px; }
.sessions {
  flex: 1 1 auto; min-width: 0; background: var(--panel); border: 1px solid var(--border);
  border-radius: 8px; box-shadow: var(--shadow); overflow: hidden;
}
table { width: 100%; border-collapse: collapse; table-layout: fixed; }
thead th {
  text-align: left; font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase;
  letter-spacing: 0.04em; padding: 8px 12px; border-bottom: 1px solid var(--border); background: var(--panel);
}
th.col-session { width: 22%; }
th.col-progress { width: 21%; }
th.col-state { width: 19%; }
th.col-updated { width: 10%; }
tbody tr { cursor: pointer; }
tbody tr:hover { background: var(--row-hover); }
tbody tr.selected { background: var(--row-selected); }
tbody td { padding: 9px 12px; border-bottom: 1px solid var(--border); vertical-align: middle; overflow: hidden; }
tbody tr:last-child td { border-bottom: none; }
tbody td:first-child { box-shadow: inset 3px 0 0 transparent; }
tr.state-working td:first-child { box-shadow: inset 3px 0 0 var(--working); }
tr.state-stale td:first-child { box-shadow: inset 3px 0 0 var(--stale-bar); }
tr.state-ended td:first-child { box-shadow: inset 3px 0 0 var(--ended-ok); }
tr.state-ended.outcome-bad td:first-child { box-shadow: inset 3px 0 0 var(--ended); }
tr.state-done td:first-child { box-shadow: inset 3px 0 0 var(--done); }
tr.state-ended .current, tr.state-ended .sid { color: var(--muted); }
.sid { font-weight: 600; text-decoration: none; color: var(--text); word-break: break-all; }
.sid:hover { text-decoration: underline; }
.sub { display: block; color: var(--muted); font-size: 12px; }
.progress { display: flex; align-items: center; gap: 10px; }
.bar { flex: 1 1 auto; height: 8px; min-width: 60px; border-radius: 999px; background: var(--bar-bg); overflow: hidden; }
.bar-fill { height: 100%; width: 0; border-radius: 999px; background: var(--working); transition: width 0.25s ease; }
.state-done .bar-fill, .bar-fill.done { background: var(--done); }
.state-stale .bar-fill, .bar-fill.stale { background: var(--stale-bar); }
.state-ended .bar-fill, .bar-fill.ended { background: var(--ended-ok); }
.progress-text { flex: 0 0 auto; font-variant-numeric: tabular-nums; color: var(--muted); font-size: 12px; min-width: 72px; text-align: right; }
.progress-text .pct { color: var(--text); font-weight: 600; font-size: 13px; }
.current { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.current.none { color: var(--muted); }
.current .spinner {
  display: inline-block; width: 7px; height: 7px; border-radius: 50%; background: var(--working);
  margin-right: 7px; vertical-align: middle;
}
.state-stale .current .spinner { background: var(--stale-bar); }
.state-ended .current .spinner { background: var(--ended-ok); }
.badges { display: flex; flex-wrap: wrap; gap: 4px; }
td .badge { white-space: normal; }
.item-prefix { color: var(--muted); font-size: 12px; }
.history > li.quiet .h-source, .history > li.quiet ul { opacity: 0.8; }
.badge {
  display: inline-flex; align-items: center; gap: 5px; font-size: 12px; font-weight: 600; line-height: 18px;
  padding: 1px 8px; border-radius: 999px; white-space: nowrap; border: 1px solid transparent;
}
.badge-working { color: var(--working); background: var(--working-bg); }
.badge-stale { color: var(--stale); background: var(--stale-bg); border-color: var(--stale-bar); }
.badge-ended { color: var(--ended-ok); background: var(--ended-ok-bg); }
.badge-ended.bad { color: var(--ended); background: var(--ended-bg); }
.badge-done { color: var(--done); background: var(--done-bg); }
.badge-reminder { color: var(--reminder); background: var(--reminder-bg); }
.badge-live::before {
  content: ""; width: 6px; height: 6px; border-radius: 50%; background: currentColor;
  animation: pulse 1.6s ease-in-out infinite;
}
@keyframes pulse { 50% { opacity: 0.25; } }
@media (prefers-reduced-motion: reduce) { .badge-live::before { animation: none; } .bar-fill { transition: none; } }
time { color: var(--muted); font-variant-numeric: tabular-nums; white-space: nowrap; }
.empty { padding: 28px 16px; text-align: center; color: var(--muted); margin: 0; }
.detail {
  flex: 0 0 460px; max-width: 460px; background: var(--panel); border: 1px solid var(--border); border-radius: 8px;
  box-shadow: var(--shadow); padding: 16px 18px; position: sticky; top: 64px; max-height: calc(100vh - 80px); overflow: auto;
}
.detail-head { display: flex; align-items: flex-start; justify-content: space-between; gap: 8px; }
.detail-head h2 { font-size: 17px; margin: 0 0 6px; word-break: break-all; }
.btn.icon { padding: 0 8px; font-size: 18px; line-height: 26px; }
.detail .progress { margin: 12px 0 4px; }
.detail .bar { height: 10px; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 12px 0; font-size: 13px; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; font-variant-numeric: tabular-nums; }
.ended-box { border: 1px solid var(--border); border-radius: 6px; padding: 8px 10px; margin: 8px 0; background: var(--ended-ok-bg); }
.ended-box.bad { background: var(--ended-bg); border-color: var(--ended); }
.ended-box strong { display: block; }
.message { border-radius: 6px; padding: 8px 10px; margin: 10px 0; }
.message.error { background: var(--error-bg); color: var(--error-text); }
.message.info { background: var(--info-bg); color: var(--info-text); }
.section-head { display: flex; align-items: center; justify-content: space-between; margin-top: 16px; }
.section-head h3, .detail h3 { font-size: 13px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 16px 0 8px; }
.section-head h3 { margin: 0; }
.items { list-style: none; margin: 8px 0 0; padding: 0; }
.items li { display: grid; grid-template-columns: 22px 1fr; gap: 6px; padding: 6px 0; border-bottom: 1px solid var(--border); }
.items li:last-child { border-bottom: none; }
.mark { font-weight: 700; text-align: center; }
.status-completed .mark { color: var(--done); }
.status-in_progress .mark { color: var(--working); }
.status-pending .mark { color: var(--muted); }
.status-cancelled .mark { color: var(--muted); }
.status-blocked .mark { color: var(--ended); }
.status-completed .text { color: var(--muted); }
.status-cancelled .text { color: var(--muted); text-decoration: line-through; }
.status-in_progress .text { font-weight: 600; }
.item-sub { display: block; color: var(--muted); font-size: 12px; font-weight: 400; }
.text { word-break: break-word; }
.edit-row { display: grid; grid-template-columns: 124px 1fr auto; gap: 6px; margin: 6px 0; align-items: center; }
.edit-row select, .edit-row input, .add-row input {
  border: 1px solid var(--border); border-radius: 6px; padding: 4px 6px; background: var(--panel); min-width: 0;
}
.add-row { display: grid; grid-template-columns: 1fr auto; gap: 6px; margin: 10px 0; }
.edit-actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 10px; }
.edit-note { font-size: 13px; color: var(--stale); margin: 6px 0; }
.history { list-style: none; margin: 0; padding: 0; font-size: 13px; }
.history > li { padding: 6px 0 6px 12px; border-left: 2px solid var(--border); margin-left: 4px; }
.history > li.src-put { border-left-color: var(--reminder); }
.history > li.src-end { border-left-color: var(--ended-ok); }
.history .h-head { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.history .h-version { font-weight: 600; font-variant-numeric: tabular-nums; }
.history .h-source { color: var(--muted); }
.history ul { margin: 2px 0 0; padding-left: 16px; color: var(--muted); }
.history ul li { word-break: break-word; }
dialog {
  border: 1px solid var(--border); border-radius: 10px; padding: 20px; width: min(440px, 92vw);
  background: var(--panel); color: var(--text); box-shadow: var(--shadow);
}
dialog::backdrop { background: rgba(0, 0, 0, 0.35); }
dialog h2 { margin: 0 0 8px; font-size: 17px; }
dialog label { display: block; font-weight: 600; margin: 12px 0 4px; }
dialog input { width: 100%; padding: 6px 10px; border: 1px solid var(--border); border-radius: 6px; background: var(--bg); }
.hint { color: var(--muted); font-size: 12px; }
.toast {
  position: fixed; bottom: 18px; left: 50%; transform: translateX(-50%); background: var(--text); color: var(--panel);
  padding: 8px 16px; border-radius: 8px; box-shadow: var(--shadow); max-width: 90vw;
}
.toast:empty { display: none; }
@media (max-width: 1100px) {
  .layout { flex-direction: column; align-items: stretch; }
  .detail { position: static; max-width: none; flex-basis: auto; max-height: none; }
  th.col-updated, td.cell-updated { display: none; }
}
`
