// @ts-check
/**
 * @module dashboard/detail
 * The details panel of the open session: its badges, counters, how it ended, what an observed
 * agent adds, its list (or the edit form) and a message line.
 */
import { $, el, setText } from './dom.js'
import { renderEditForm } from './edit-form.js'
import { absoluteTime, relativeTime } from './format.js'
import { OUTCOME_LABEL, STATUS_LABEL, STATUS_MARK } from './labels.js'
import { canEdit } from './role.js'
import {
  agentLabel,
  badOutcome,
  badges,
  todoToolsSwitch,
  isObserved,
  kindOf,
  nestedId,
  progressBar,
  sourceBadge,
  todoToolsOff,
  todoToolsText,
} from './session.js'
import { app, detail } from './state.js'

/** @typedef {import('./types.js').SessionView} SessionView */
/** @typedef {import('./types.js').Item} Item */

/**
 * The panel's message line.
 * @param {string | null} text - null hides it
 * @param {'info' | 'error'} [kind]
 */
export function showMessage(text, kind) {
  const node = $('detail-message')
  node.hidden = !text
  node.className = 'message ' + (kind || 'info')
  node.setAttribute('role', kind === 'error' ? 'alert' : 'status')
  node.textContent = text || ''
}

/**
 * When the session last changed, in the locale and as a time ago.
 * @param {SessionView} view
 */
function lastUpdateText(view) {
  return absoluteTime(view.updated_at) + ' (' + relativeTime(view.updated_at) + ')'
}

/**
 * A link that opens another session in this panel.
 * @param {string} id
 * @param {string} text
 */
function sessionLink(id, text) {
  return el('a', { href: '#session=' + encodeURIComponent(id), title: id, text })
}

/**
 * An item's status mark and, for screen readers, its status.
 * @param {Item['status']} status
 */
function statusMark(status) {
  return [
    el('span', { class: 'mark', 'aria-hidden': 'true', text: STATUS_MARK[status] || '?' }),
    el('span', { class: 'visually-hidden', text: STATUS_LABEL[status] + ': ' }),
  ]
}

/**
 * The box saying what the agent waits for a person for.
 * @param {SessionView} view
 */
function renderWaiting(view) {
  const waiting = $('detail-waiting')
  waiting.hidden = !view.waiting
  if (!view.waiting) return
  waiting.replaceChildren(
    el('strong', { text: 'Waiting for a person' }),
    el('div', { class: 'item-sub' }, [
      'since ',
      el('time', {
        datetime: view.waiting.at,
        title: absoluteTime(view.waiting.at),
        text: new Date(view.waiting.at).toLocaleTimeString(),
      }),
      ' · ' + view.waiting.reason + (view.waiting.message ? ': ' + view.waiting.message : ''),
    ])
  )
}

/**
 * The box saying the agent has no todo tools, and for Claude how to turn them on.
 * @param {SessionView} view
 */
function renderNoTools(view) {
  const notools = $('detail-notools')
  notools.hidden = !todoToolsOff(view)
  if (!todoToolsOff(view)) return
  notools.replaceChildren(
    el('strong', { text: todoToolsText(view) }),
    el('div', {
      class: 'item-sub',
      text: todoToolsSwitch(view)
        ? agentLabel(view) +
          ' offers its todo tools only with ' +
          todoToolsSwitch(view) +
          ' set: without them there is no list to show.'
        : 'The agent has no todo tool: there is no list to show.',
    })
  )
}

/**
 * A person's edit of an observed list, until the agent is handed it.
 * @param {SessionView} view
 */
function renderPendingEdit(view) {
  const pending = $('detail-pending')
  const edited = view.observed && view.observed.pending_edit
  pending.hidden = !edited
  if (!edited) return
  pending.replaceChildren(
    el('strong', { text: 'Edit pending delivery to the agent' }),
    el('div', {
      class: 'item-sub',
      text:
        'Made ' +
        relativeTime(edited.at) +
        '. ' +
        agentLabel(view) +
        ' gets it once, with the reply to its next todo tool call; the list below changes when the agent writes it.',
    }),
    el(
      'ol',
      { class: 'pending-items' },
      edited.items.map((item) =>
        el('li', { class: 'status-' + item.status }, [...statusMark(item.status), item.content])
      )
    )
  )
}

/**
 * The session's facts, as label and value (a text, or a node of links), the last with its id.
 * @param {SessionView} view
 * @returns {[string, string | Node, string?][]}
 */
function metaRows(view) {
  const p = view.progress
  /** @type {[string, string | Node, string?][]} */
  const meta = [
    [
      'Source',
      isObserved(view)
        ? agentLabel(view) + ' (observed: the agent runs its own todo tool)'
        : 'Rounds run here',
    ],
  ]
  if (view.parent) meta.push(['Subagent of', sessionLink(view.parent, view.parent)])
  const subagents = view.observed ? view.observed.subagents : []
  if (subagents.length) {
    const links = el('span', { class: 'subagents' })
    subagents.forEach((id, i) => {
      if (i) links.append(', ')
      links.append(sessionLink(id, nestedId({ session_id: id, parent: view.session_id })))
    })
    meta.push(['Subagents', links])
  }
  meta.push(['Dialect', view.dialect], ['Version', String(view.version)])
  if (!isObserved(view))
    meta.push([
      'Round',
      view.round + ' (' + view.rounds_since_todo + ' since the list was last updated)',
    ])
  meta.push(
    [
      'Items',
      p.total +
        ' total · ' +
        p.completed +
        ' completed · ' +
        p.in_progress +
        ' in progress · ' +
        p.pending +
        ' pending' +
        (p.blocked ? ' · ' + p.blocked + ' blocked' : '') +
        (p.cancelled ? ' · ' + p.cancelled + ' cancelled' : ''),
    ],
    ['Created', absoluteTime(view.created_at)],
    ['Last update', lastUpdateText(view), 'detail-updated']
  )
  return meta
}

/**
 * How the run ended and what it left unfinished.
 * @param {SessionView} view
 */
function renderEnded(view) {
  const endedNode = $('detail-ended')
  endedNode.hidden = !view.ended
  if (!view.ended) return
  const children = [
    el('strong', {
      text: (OUTCOME_LABEL[view.ended.outcome] || 'Ended') + ' · ' + absoluteTime(view.ended.at),
    }),
  ]
  if (view.ended.detail) children.push(el('div', { text: view.ended.detail }))
  if (view.ended.unfinished.length)
    children.push(
      el('div', {
        class: 'item-sub',
        text: 'Left unfinished: #' + view.ended.unfinished.join(', #'),
      })
    )
  endedNode.className = 'ended-box' + (badOutcome(view) ? ' bad' : '')
  endedNode.replaceChildren(...children)
}

/** Everything above the list: badges, progress, facts, how it ended, the observed boxes. */
function renderDetailHeader() {
  const view = detail.view
  if (!view) return
  const kind = kindOf(view)
  detail.kind = kind
  const source = sourceBadge(view)
  $('detail-badges').replaceChildren(...(source ? [source] : []), ...badges(view, kind))
  $('detail-progress').replaceChildren(
    progressBar(view.progress, kind, 'Progress of ' + view.session_id)
  )
  const dl = $('detail-meta')
  dl.replaceChildren()
  for (const [label, value, id] of metaRows(view)) {
    dl.append(
      el('dt', { text: label }),
      typeof value === 'string'
        ? el('dd', { text: value, id: id || null })
        : el('dd', null, [value])
    )
  }
  renderWaiting(view)
  renderNoTools(view)
  renderPendingEdit(view)
  renderEnded(view)
}

/**
 * One item of the list, with its active form, id, status, owner and blockers below it.
 * @param {Item} item
 */
function itemEntry(item) {
  /** @type {string[]} */
  const sub = []
  if (item.status === 'in_progress' && item.active_form && item.active_form !== item.content)
    sub.push(item.active_form)
  sub.push('#' + item.id + ' · ' + STATUS_LABEL[item.status])
  if (item.owner) sub.push('owner ' + item.owner)
  if (item.blocked_by && item.blocked_by.length)
    sub.push('blocked by #' + item.blocked_by.join(', #'))
  const [mark, label] = statusMark(item.status)
  return el('li', { class: 'status-' + item.status, 'data-item-id': item.id }, [
    mark,
    el('span', { class: 'text' }, [
      label,
      item.content,
      el('span', { class: 'item-sub', text: sub.join(' · ') }),
    ]),
  ])
}

/** The open session's list (hidden while editing). */
function renderItems() {
  const list = $('detail-items')
  list.hidden = !!detail.edit
  const items = detail.view ? detail.view.items : []
  if (!items.length) {
    list.replaceChildren(
      el('li', { class: 'status-pending' }, [
        el('span', { class: 'mark', 'aria-hidden': 'true', text: '·' }),
        el('span', { class: 'text item-sub', text: 'The list is empty.' }),
      ])
    )
    return
  }
  list.replaceChildren(...items.map(itemEntry))
}

/** The whole panel, or why the session cannot be shown (loading, gone). */
export function renderDetail() {
  setText($('detail-title'), detail.id || '')
  const loaded = !!detail.view && !detail.gone
  $('detail-body').hidden = !loaded
  const status = $('detail-status')
  status.hidden = loaded
  setText(status, detail.gone || 'Loading…')
  if (!loaded) return
  renderDetailHeader()
  const view = detail.view
  // the server says whether PUT takes an edit (an observed agent other than Claude owns its list)
  const editable = !!view && view.editable
  $('edit-button').hidden = !canEdit() || !editable || !!detail.edit
  $('edit-readonly').hidden = canEdit() || app.role === null
  const owned = $('edit-owned')
  owned.hidden = !view || editable || !canEdit()
  if (view && !editable)
    setText(owned, 'Read-only: ' + agentLabel(view) + ' owns this list and writes it itself')
  renderItems()
  renderEditForm()
}

/** The "Last update" time again: it changes with time alone. */
export function tickDetail() {
  if (detail.view && !detail.gone) setText($('detail-updated'), lastUpdateText(detail.view))
}
