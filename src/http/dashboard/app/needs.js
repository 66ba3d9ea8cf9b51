// @ts-check
/**
 * @module dashboard/needs
 * What needs a person, across agents and machines, first on the page: sessions whose agent waits
 * for a person (the longest wait first, with its reason), then stale ones (the longest quiet
 * first), then runs that ended with work left (the latest end first). Each says whose agent it is
 * and where (`user@host · repo (branch)`); the origin filters narrow it and the table alike. A
 * browser notification, once a person opts in, says when a session starts waiting.
 */
import { decisionControls } from './decide.js'
import { $, el, setText } from './dom.js'
import { quote, relativeTime } from './format.js'
import { OUTCOME_LABEL } from './labels.js'
import { agentLabel, isObserved, kindOf, sourceBadge } from './session.js'
import { inView } from './people.js'
import { app } from './state.js'

/** @typedef {import('./types.js').Shown} Shown */
/** @typedef {import('./types.js').SessionRecord} SessionRecord */

/** The origin fields the page filters on, with each select's "any" text. */
export const ORIGIN_FILTERS = /** @type {const} */ ([
  ['user', 'Any user'],
  ['host', 'Any host'],
  ['repo', 'Any repo'],
  ['agent', 'Any agent'],
])

const NOTIFY_STORAGE = 'agent-todos.notify'

/**
 * A session's origin field; null when unknown (or sent by a server without origins).
 * @param {Shown} s
 * @param {string} field
 * @returns {string | null}
 */
function originField(s, field) {
  const origin = /** @type {Record<string, string | boolean | null> | undefined} */ (s.origin)
  const value = origin ? origin[field] : null
  if (typeof value !== 'string' && value !== null) return null
  // a session fed by rounds with no agent named: the page calls it by its source
  if (field === 'agent' && !value) return isObserved(s) ? s.source : null
  return value || null
}

/**
 * `user@host · repo (branch)`, or '' when nothing is known.
 * @param {Shown} s
 */
export function originLine(s) {
  const who = [originField(s, 'user'), originField(s, 'host')].filter(Boolean).join('@')
  const repo = originField(s, 'repo')
  const branch = originField(s, 'branch')
  const where = repo ? repo + (branch ? ' (' + branch + ')' : '') : ''
  return [who, where].filter(Boolean).join(' · ')
}

/**
 * Whether a session passes the origin filters.
 * @param {Shown} s
 */
export function matchesOriginFilters(s) {
  if (!inView(s)) return false
  for (const [field] of ORIGIN_FILTERS) {
    const wanted = app.origin[field]
    if (wanted && originField(s, field) !== wanted) return false
  }
  return true
}

/**
 * Why a session needs a person, and where it goes in the list; null when it does not.
 * Waiting (rank 0) since its wait began, stale (1) since its last change, ended with unfinished
 * items (2), the latest end first.
 * @param {Shown} s
 * @returns {{ rank: number, order: number, kind: string, text: string } | null}
 */
export function needOf(s) {
  const kind = kindOf(s)
  // done yet waiting too: Claude idles at its prompt once its list is through
  if (s.waiting && kind !== 'ended') {
    const message = s.waiting.message ? ': ' + s.waiting.message : ''
    return {
      rank: 0,
      order: Date.parse(s.waiting.at),
      kind: 'waiting',
      text: 'Waiting since ' + relativeTime(s.waiting.at) + ' · ' + s.waiting.reason + message,
    }
  }
  if (kind === 'stale') {
    return {
      rank: 1,
      order: Date.parse(s.updated_at),
      kind,
      text: 'Stale: no change since ' + relativeTime(s.updated_at),
    }
  }
  if (kind === 'ended' && s.ended && s.ended.unfinished.length > 0) {
    const outcome = OUTCOME_LABEL[s.ended.outcome] || s.ended.outcome
    const left = s.ended.unfinished.length
    return {
      rank: 2,
      // the latest end first
      order: -Date.parse(s.ended.at),
      kind,
      text:
        outcome +
        ' ' +
        relativeTime(s.ended.at) +
        ' with ' +
        left +
        (left === 1 ? ' item' : ' items') +
        ' left',
    }
  }
  return null
}

/**
 * The sessions that need a person, in the order they are shown.
 * @param {SessionRecord[]} records
 */
export function needing(records) {
  /** @type {{ record: SessionRecord, need: NonNullable<ReturnType<typeof needOf>> }[]} */
  const out = []
  for (const record of records) {
    const need = needOf(record.s)
    if (need && matchesOriginFilters(record.s)) out.push({ record, need })
  }
  out.sort(
    (a, b) =>
      a.need.rank - b.need.rank ||
      a.need.order - b.need.order ||
      (a.record.s.session_id < b.record.s.session_id ? -1 : 1)
  )
  return out
}

/**
 * One card of the list.
 * @param {Shown} s
 * @param {NonNullable<ReturnType<typeof needOf>>} need
 */
function card(s, need) {
  const line = originLine(s)
  const current = s.current ? s.current.active_form || s.current.content : null
  return el(
    'li',
    { class: 'need need-' + need.kind, 'data-session-id': s.session_id, 'data-need': need.kind },
    [
      el('div', { class: 'need-head' }, [
        el('a', {
          class: 'sid',
          href: '#session=' + encodeURIComponent(s.session_id),
          text: s.session_id,
        }),
        sourceBadge(s),
      ]),
      el('div', { class: 'need-reason', text: need.text }),
      need.kind === 'waiting' ? decisionControls(s) : null,
      line ? el('div', { class: 'origin', text: line, title: line }) : null,
      current ? el('div', { class: 'sub need-current', text: quote(current) }) : null,
    ]
  )
}

/**
 * Renders the list (on the table's frame).
 * @param {SessionRecord[]} records - every listed session
 */
export function renderNeeds(records) {
  const list = $('needs-list')
  const shown = needing(records)
  list.replaceChildren(...shown.map(({ record, need }) => card(record.s, need)))
  setText($('count-needs'), String(shown.length))
  $('needs-empty').hidden = shown.length > 0
  renderOriginOptions(records)
}

/**
 * The values each origin filter offers: the ones the listed sessions have, sorted; the chosen
 * one stays offered while no session has it.
 * @param {SessionRecord[]} records
 */
function renderOriginOptions(records) {
  for (const [field, any] of ORIGIN_FILTERS) {
    const select = /** @type {HTMLSelectElement} */ ($('origin-' + field))
    /** @type {Set<string>} */
    const values = new Set()
    for (const record of records) {
      const value = originField(record.s, field)
      if (value) values.add(value)
    }
    if (app.origin[field]) values.add(app.origin[field])
    const sorted = Array.from(values).sort()
    const current = Array.from(select.options).map((option) => option.value)
    const wanted = [''].concat(sorted)
    if (current.join('\n') !== wanted.join('\n')) {
      select.replaceChildren(
        ...wanted.map((value) =>
          el('option', {
            value,
            text: value === '' ? any : field === 'agent' ? agentName(value) : value,
          })
        )
      )
    }
    select.value = app.origin[field]
  }
}

/**
 * An agent filter's text: the agent's name for an observed source.
 * @param {string} agent
 */
function agentName(agent) {
  return agentLabel(/** @type {Shown} */ ({ source: agent }))
}

/** Whether the person asked for notifications here, and the browser allows them. */
function notifying() {
  try {
    return (
      typeof Notification !== 'undefined' &&
      Notification.permission === 'granted' &&
      localStorage.getItem(NOTIFY_STORAGE) === 'on'
    )
  } catch (e) {
    return false
  }
}

/** The notify button's text and state. */
function renderNotifyButton() {
  const button = $('notify-button')
  if (typeof Notification === 'undefined') {
    button.hidden = true
    return
  }
  button.hidden = false
  const on = notifying()
  button.setAttribute('aria-pressed', on ? 'true' : 'false')
  setText(button, on ? 'Notifications on' : 'Notify me when an agent waits')
  if (Notification.permission === 'denied') {
    button.setAttribute('disabled', '')
    button.title = 'This browser blocks notifications from this page'
  }
}

/** The notify button: asks the browser once, then turns notifications on or off here. */
export function wireNotifications() {
  renderNotifyButton()
  $('notify-button').addEventListener('click', async () => {
    if (typeof Notification === 'undefined') return
    try {
      if (notifying()) {
        localStorage.setItem(NOTIFY_STORAGE, 'off')
      } else {
        const permission =
          Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission()
        if (permission === 'granted') localStorage.setItem(NOTIFY_STORAGE, 'on')
      }
    } catch (e) {
      /* storage disabled: nothing to keep */
    }
    renderNotifyButton()
  })
}

/**
 * Tells the person a session started waiting (when notifications are on): once per wait.
 * @param {Shown} s
 */
export function notifyWaiting(s) {
  if (!notifying() || !s.waiting) return
  const line = originLine(s)
  try {
    const note = new Notification((isObserved(s) ? agentLabel(s) : 'An agent') + ' waits for you', {
      body:
        s.session_id +
        (line ? '\n' + line : '') +
        '\n' +
        s.waiting.reason +
        (s.waiting.message ? ': ' + s.waiting.message : ''),
      tag: 'agent-todos:' + s.session_id,
    })
    note.onclick = () => {
      window.focus()
      location.hash = 'session=' + encodeURIComponent(s.session_id)
    }
  } catch (e) {
    /* a browser that only notifies from a service worker: nothing shown */
  }
}
