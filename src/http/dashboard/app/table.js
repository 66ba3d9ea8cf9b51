// @ts-check
/**
 * @module dashboard/table
 * The sessions table, fed by the tenant stream: a row per session, newest change first with
 * each subagent under its main session, rebuilt on the next animation frame after a change.
 */
import { $, el, setConnection, setText } from './dom.js'
import { absoluteTime, relativeTime } from './format.js'
import { matchesOriginFilters, notifyWaiting, originLine, renderNeeds } from './needs.js'
import {
  badOutcome,
  badges,
  isObserved,
  kindOf,
  nestedId,
  progressBar,
  sourceBadge,
  todoToolsOff,
  todoToolsText,
  waitingText,
} from './session.js'
import { openStream } from './sse.js'
import { app } from './state.js'

/** @typedef {import('./types.js').Shown} Shown */
/** @typedef {import('./types.js').SessionRecord} SessionRecord */

/**
 * The current item's cell: its text (the active form while in progress), or why there is none.
 * @param {Shown} s
 * @param {string} kind
 */
function currentCell(s, kind) {
  const waiting = s.waiting
    ? el('div', { class: 'sub waiting-text', title: waitingText(s), text: waitingText(s) })
    : null
  if (s.current) {
    const text = s.current.active_form || s.current.content
    return el('div', null, [
      el('div', { class: 'current', title: text }, [
        el('span', { class: 'spinner', 'aria-hidden': 'true' }),
        kind === 'ended' ? el('span', { class: 'item-prefix', text: 'stopped at ' }) : null,
        el('span', { class: 'current-text', text }),
      ]),
      waiting,
    ])
  }
  if (todoToolsOff(s))
    return el('div', null, [
      el('div', {
        class: 'current none notools',
        title: todoToolsText(s),
        text: todoToolsText(s),
      }),
      waiting,
    ])
  const none =
    s.progress.total === 0
      ? 'No items yet'
      : kind === 'done'
        ? 'All items done'
        : 'Nothing in progress'
  return el('div', null, [el('div', { class: 'current none', text: none }), waiting])
}

/**
 * Whose agent it is and where, under the session's id; nothing when unknown.
 * @param {Shown} s
 */
function originCell(s) {
  const line = originLine(s)
  return line ? el('span', { class: 'origin', text: line, title: line }) : null
}

/**
 * Stores a session's summary (or view); an older version is ignored unless force (a snapshot).
 * @param {Shown} summary
 * @param {boolean} [force]
 */
export function upsert(summary, force) {
  const record = app.sessions.get(summary.session_id)
  // a session that starts waiting now (not one a snapshot finds waiting) may notify the person
  if (!force && summary.waiting && !(record && record.s.waiting)) notifyWaiting(summary)
  if (!record) {
    app.sessions.set(summary.session_id, {
      s: summary,
      row: null,
      kind: kindOf(summary),
      depth: 0,
    })
  } else {
    if (!force && summary.version < record.s.version) return
    record.s = summary
  }
  markDirty(summary.session_id)
}

/**
 * Drops a session and its row.
 * @param {string} id
 */
export function remove(id) {
  const record = app.sessions.get(id)
  if (!record) return
  if (record.row) record.row.remove()
  app.sessions.delete(id)
  markDirty(null)
}

/**
 * Renders the table on the next frame, with this session's row built again.
 * @param {string | null} id - null: only the order, filter or counts changed
 */
export function markDirty(id) {
  if (id !== null) app.dirty.add(id)
  if (!app.frame) app.frame = requestAnimationFrame(flush)
}

/**
 * The session's row, built again (it replaces the old one in place).
 * @param {SessionRecord} record
 * @returns {HTMLTableRowElement}
 */
function buildRow(record) {
  const s = record.s
  const kind = kindOf(s)
  record.kind = kind
  const href = '#session=' + encodeURIComponent(s.session_id)
  const nested = record.depth > 0
  const selected = app.selected === s.session_id
  // an observed agent runs no rounds here: its round count says nothing
  const sub = isObserved(s)
    ? s.dialect + ' · v' + s.version
    : s.dialect + ' · round ' + s.round + ' · v' + s.version
  const row = el(
    'tr',
    {
      class:
        'state-' +
        kind +
        (badOutcome(s) ? ' outcome-bad' : '') +
        (nested ? ' subagent' : '') +
        (selected ? ' selected' : ''),
      'data-session-id': s.session_id,
      'data-state': kind,
      'data-version': s.version,
      'data-source': s.source,
      'data-parent': nested ? s.parent : null,
    },
    [
      el('td', { class: 'cell-session' }, [
        nested ? el('span', { class: 'nest', 'aria-hidden': 'true', text: '↳ ' }) : null,
        el('a', {
          class: 'sid',
          href,
          text: nested ? nestedId(s) : s.session_id,
          title: nested ? 'Subagent of ' + s.parent + ': ' + s.session_id : null,
          'aria-label': nested ? 'Subagent ' + s.session_id : null,
          'aria-current': selected ? 'true' : null,
        }),
        el('span', { class: 'sub' }, [sourceBadge(s), sub]),
        originCell(s),
      ]),
      el('td', { class: 'cell-progress' }, [
        progressBar(s.progress, kind, 'Progress of ' + s.session_id),
      ]),
      el('td', { class: 'cell-current' }, [currentCell(s, kind)]),
      el('td', { class: 'cell-state' }, [el('div', { class: 'badges' }, badges(s, kind))]),
      el('td', { class: 'cell-updated' }, [
        el('time', {
          datetime: s.updated_at,
          title: absoluteTime(s.updated_at),
          text: relativeTime(s.updated_at),
        }),
      ]),
    ]
  )
  if (nested) row.cells[0].style.paddingLeft = 12 + 20 * record.depth + 'px'
  if (record.row) record.row.replaceWith(row)
  record.row = row
  return row
}

/**
 * Records in listing order with each subagent right after its main session (depth 1, its own
 * subagents 2…); a subagent whose main session is not listed stays at the top level.
 * @param {SessionRecord[]} sorted - newest change first
 * @returns {{ record: SessionRecord, depth: number }[]}
 */
function nestSubagents(sorted) {
  /** @type {Map<string, SessionRecord[]>} */
  const children = new Map()
  for (const record of sorted) {
    const parent = record.s.parent
    if (parent && parent !== record.s.session_id && app.sessions.has(parent)) {
      const siblings = children.get(parent) || []
      siblings.push(record)
      children.set(parent, siblings)
    }
  }
  /** @type {{ record: SessionRecord, depth: number }[]} */
  const out = []
  /** @type {Set<string>} */
  const placed = new Set()
  /**
   * @param {SessionRecord} record
   * @param {number} depth
   */
  const place = (record, depth) => {
    if (placed.has(record.s.session_id)) return
    placed.add(record.s.session_id)
    out.push({ record, depth })
    for (const child of children.get(record.s.session_id) || []) place(child, depth + 1)
  }
  for (const record of sorted) {
    const parent = record.s.parent
    if (!parent || !app.sessions.has(parent)) place(record, 0)
  }
  // sessions that name each other as parents: nothing above them is listed
  for (const record of sorted) place(record, 0)
  return out
}

/**
 * Whether the row passes the filter and the search.
 * @param {SessionRecord} record
 */
function matches(record) {
  if (app.filter !== 'all' && record.kind !== app.filter) return false
  if (!matchesOriginFilters(record.s)) return false
  return !app.search || record.s.session_id.toLowerCase().indexOf(app.search) >= 0
}

/** The sessions in listing order, subagents under their main sessions, rows rebuilt when moved. */
function listed() {
  const sorted = Array.from(app.sessions.values())
  sorted.sort((a, b) => {
    const diff = Date.parse(b.s.updated_at) - Date.parse(a.s.updated_at)
    return diff !== 0 ? diff : a.s.session_id < b.s.session_id ? -1 : 1
  })
  return nestSubagents(sorted).map((placed) => {
    // a subagent moves under its main session (or back) when that one comes or goes
    if (placed.record.depth !== placed.depth) {
      placed.record.depth = placed.depth
      buildRow(placed.record)
    }
    return placed.record
  })
}

/** Renders the table: dirty rows built again, every row in order, shown or hidden, the counts. */
function flush() {
  app.frame = 0
  for (const id of app.dirty) {
    const record = app.sessions.get(id)
    if (record) buildRow(record)
  }
  app.dirty.clear()
  const records = listed()
  const tbody = $('rows')
  /** @type {Record<string, number>} */
  const counts = { all: records.length, working: 0, waiting: 0, stale: 0, ended: 0, done: 0 }
  let visible = 0
  records.forEach((record, i) => {
    if (record.kind in counts) counts[record.kind]++
    const row = record.row || buildRow(record)
    row.hidden = !matches(record)
    if (!row.hidden) visible++
    if (tbody.children[i] !== row) tbody.insertBefore(row, tbody.children[i] || null)
  })
  for (const name in counts) setText($('count-' + name), String(counts[name]))
  renderNeeds(records)
  const empty = $('empty')
  empty.hidden = visible > 0
  setText(
    empty,
    records.length === 0
      ? 'No sessions yet. A session appears here when its agent loop posts its first round, or an observed agent its first event.'
      : 'No session matches this filter.'
  )
}

/** Each row's "updated" time again: it changes with time alone (states come from the server). */
export function tickRows() {
  for (const record of app.sessions.values()) {
    if (!record.row) continue
    const time = record.row.querySelector('time')
    if (time) setText(time, relativeTime(record.s.updated_at))
  }
}

/** (Re)opens the tenant stream: a snapshot of the sessions, then each change. */
export function startTenantStream() {
  if (app.tenantStream) app.tenantStream.close()
  setConnection('connecting', 'Connecting…')
  app.tenantStream = openStream('/v1/events', {
    onStatus: (status) => {
      if (status === 'live') setConnection('live', 'Live')
      else if (status === 'reconnecting') setConnection('reconnecting', 'Reconnecting…')
    },
    onFail: (status, data) => {
      setConnection('error', (data && data.detail) || 'HTTP ' + status)
    },
    onEvent: (event, data) => {
      if (event === 'snapshot') {
        // a reconnect starts over: the snapshot is the truth
        /** @type {Set<string>} */
        const seen = new Set()
        for (const summary of data.sessions) {
          seen.add(summary.session_id)
          upsert(summary, true)
        }
        for (const id of Array.from(app.sessions.keys())) if (!seen.has(id)) remove(id)
      } else if (event === 'update') {
        upsert(data)
      } else if (event === 'delete') {
        remove(data.session_id)
      }
    },
  })
}
